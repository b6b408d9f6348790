"""Does an HTML report read at a given width without horizontal scrolling?

    python scripts/check_report_layout.py report.html [more.html ...] [--width 1280]

Opens each report in headless Chromium (Debian's ``chromium``) at the given width, with every
folded section (``<details>``) opened, and prints the page's scroll width against the window's: a
report overflows when the page is wider than the window, or when any single element (a table, a
figure, a list) sticks out of the body. A table may be wider than the screen only inside its
scroll box (``<div class="scroll">``, CSS ``overflow-x: auto``), which scrolls sideways while the
page stays put; a table outside such a box counts as overflowing when it is wider than the body,
and every table must sit in one (``unboxed`` counts those that do not).

Chromium's headless window is at least 500 px wide, so a phone's width (390 px) is measured in an
``<iframe>`` of that width: the report's own ``window.innerWidth`` is then the phone's. The same
frame is used for every width, so the numbers are comparable. Exit code 1 if any report overflows.
The report itself is not changed: a measuring script is added to a temporary copy.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

MEASURE = (
    """
<script>
document.querySelectorAll('details').forEach(d => d.open = true);
const body = document.body.getBoundingClientRect();
const boxed = e => e.parentElement && e.parentElement.closest('div.scroll') !== null;
const wide = [...document.querySelectorAll('div.scroll, table, figure, img, pre, ul, p, h1, h2')]
  .filter(e => !boxed(e) && e.getBoundingClientRect().right > body.right + 1)
  .map(e => e.tagName + ':' + Math.round(e.getBoundingClientRect().width));
const unboxed = [...document.querySelectorAll('table')].filter(e => !boxed(e)).length;
const scrolling = [...document.querySelectorAll('div.scroll')]"""
    """.filter(e => e.scrollWidth > e.clientWidth + 1).length;
parent.postMessage('LAYOUT' + JSON.stringify({page: document.documentElement.scrollWidth,
  window: window.innerWidth, wide: wide.slice(0, 5), unboxed: unboxed, scrolling: scrolling}), '*');
</script>
"""
)

#: the page Chromium opens: the report in a frame of the width measured; the frame's message
#: becomes the page title, which --dump-dom prints
FRAME = """<!DOCTYPE html><html><head><title>waiting</title></head><body style="margin:0">
<iframe src="report.html" style="border:0;width:{width}px;height:1000px"></iframe>
<script>window.addEventListener('message', m => {{ document.title = m.data; }});</script>
</body></html>
"""


def measure(report: Path, width: int) -> dict:
    browser = (
        shutil.which("chromium")
        or shutil.which("chromium-browser")
        or shutil.which("google-chrome")
    )
    if browser is None:
        sys.exit(
            "check_report_layout: chromium not found; install it with: apt-get install -y chromium"
        )
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / "report.html"
        copy.write_text(
            report.read_text(encoding="utf-8").replace("</body>", MEASURE + "</body>"),
            encoding="utf-8",
        )
        frame = Path(folder) / "frame.html"
        frame.write_text(FRAME.format(width=width), encoding="utf-8")
        dom = subprocess.run(
            [
                browser,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--hide-scrollbars",
                "--allow-file-access-from-files",
                "--virtual-time-budget=5000",
                f"--user-data-dir={folder}/profile",
                f"--window-size={max(width, 500) + 20},1000",
                "--dump-dom",
                frame.as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        ).stdout
    found = re.search(r"<title>LAYOUT(.*?)</title>", dom)
    if found is None:
        sys.exit(f"check_report_layout: could not measure {report}")
    return json.loads(found.group(1).replace("&quot;", '"'))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+", type=Path)
    parser.add_argument("--width", type=int, default=1280)
    args = parser.parse_args()
    failed = False
    for report in args.reports:
        m = measure(report, args.width)
        overflow = m["page"] > m["window"] or bool(m["wide"]) or m["unboxed"] > 0
        failed |= overflow
        verdict = "OVERFLOWS" if overflow else "fits"
        print(
            f"{report}: page {m['page']} px, window {m['window']} px, {verdict}; "
            f"{m['scrolling']} table boxes scroll sideways, "
            f"{m['unboxed']} tables outside a scroll box"
            + (f" (wider than the body: {', '.join(m['wide'])})" if m["wide"] else "")
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
