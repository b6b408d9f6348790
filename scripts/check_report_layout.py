"""Does an HTML report read at a given width without horizontal scrolling?

    python scripts/check_report_layout.py report.html [more.html ...] [--width 1280]

Opens each report in headless Chromium (Debian's ``chromium``) at the given window width, with
every folded section (``<details>``) opened, and prints the page's scroll width against the
window's: a report overflows when the page is wider than the window, or when any single element
(a table, a figure) is wider than the body. Exit code 1 if any report overflows. The report itself
is not changed: a measuring script is added to a temporary copy.
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

MEASURE = """
<script>
document.querySelectorAll('details').forEach(d => d.open = true);
const body = document.body.getBoundingClientRect();
const wide = [...document.querySelectorAll('table, figure, img, pre, ul')]
  .filter(e => e.getBoundingClientRect().right > body.right + 1)
  .map(e => e.tagName + ':' + Math.round(e.getBoundingClientRect().width));
document.title = 'LAYOUT' + JSON.stringify({page: document.documentElement.scrollWidth,
  window: window.innerWidth, wide: wide.slice(0, 5)});
</script>
"""


def measure(report: Path, width: int) -> dict:
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if browser is None:
        sys.exit("check_report_layout: chromium not found; install it with: apt-get install -y chromium")
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / "report.html"
        copy.write_text(report.read_text(encoding="utf-8").replace("</body>", MEASURE + "</body>"), encoding="utf-8")
        dom = subprocess.run(
            [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
             f"--user-data-dir={folder}/profile", f"--window-size={width},1000", "--dump-dom", copy.as_uri()],
            capture_output=True, text=True, timeout=120,
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
        overflow = m["page"] > m["window"] or bool(m["wide"])
        failed |= overflow
        verdict = "OVERFLOWS" if overflow else "fits"
        print(f"{report}: page {m['page']} px, window {m['window']} px, {verdict}"
              + (f" (wider than the body: {', '.join(m['wide'])})" if m["wide"] else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
