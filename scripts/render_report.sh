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
"$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --hide-scrollbars --user-data-dir="$profile" --screenshot="$(realpath -m "$out")" \
    --window-size="${width},${height}" "file://$(realpath "$report")" >/dev/null 2>&1
echo "$out"
"${PYTHON:-python3}" "$(dirname "$0")/check_report_layout.py" "$report" --width "$width"
