#!/usr/bin/env bash
# Render a survfair HTML report to a PNG with headless Chromium, to look at it without a browser,
# then check that it reads at that width without horizontal scrolling (check_report_layout.py).
#
#   scripts/render_report.sh report.html [out.png] [width] [height]
#
# Exit code 1 when the report overflows the width (the PNG is written all the same). The layout
# check runs with $PYTHON (default: python3).
# Needs Debian's `chromium` package (apt-get install -y chromium). The report is self-contained,
# and Chromium runs with networking features off, so the screenshot also shows that nothing has to
# be fetched from outside.
set -euo pipefail
report="${1:?usage: render_report.sh report.html [out.png] [width] [height]}"
out="${2:-${report%.*}.png}"
width="${3:-1200}"
height="${4:-2000}"
browser="$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)"
if [ -z "$browser" ]; then
    echo "render_report.sh: chromium not found; install it with: apt-get install -y chromium" >&2
    exit 2
fi
profile="$(mktemp -d)"
trap 'rm -rf "$profile"' EXIT
# Chromium's headless window is at least 500 px wide: a narrower width (a phone, 390 px) is shown
# in an <iframe> of that width, at the left of a 500 px window (the rest stays white).
target="file://$(realpath "$report")"
window="$width"
if [ "$width" -lt 500 ]; then
    window=500
    printf '<!DOCTYPE html><html><body style="margin:0;background:#fff">%s</body></html>\n' \
        "<iframe src=\"$target\" style=\"border:0;border-right:1px dashed #999;width:${width}px;height:${height}px\"></iframe>" \
        > "$profile/frame.html"
    target="file://$profile/frame.html"
fi
"$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --allow-file-access-from-files \
    --hide-scrollbars --user-data-dir="$profile/chromium" --screenshot="$(realpath -m "$out")" \
    --window-size="${window},${height}" "$target" >/dev/null 2>&1
echo "$out"
"${PYTHON:-python3}" "$(dirname "$0")/check_report_layout.py" "$report" --width "$width"
