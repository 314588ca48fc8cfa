"""What a reviewer looks at before a report ships: the page in headless Chromium at 1400 x 1000, its
first screen and its history charts (performance, efficiency) as PNG, and the facts a test reads from the same page (does it fit
the window, does every chart panel hold marks). `make report` runs it on the report it wrote:

    .venv-test/bin/python tests/report_screenshots.py report/index.html build/report-screenshots
"""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
WINDOW = {"width": 1400, "height": 1000}
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
# Every panel of a chart (a facet cell, or a concatenated view with axes of its own) and the marks
# with a row behind them inside it; a chart with neither counts as one panel.
PANELS_JS = """(name) => {
  const marks = (item) => { let n = 0;
    for (const mark of item.items || []) {
      if (mark.marktype === 'group') { for (const g of mark.items || []) n += marks(g); }
      else if (mark.role === 'mark') n += (mark.items || []).filter(i => i.datum).length; }
    return n; };
  const axes = (item) => (item.items || []).filter(m => m.role === 'axis').length;
  const found = [];
  const visit = (mark) => { for (const item of mark.items || []) {
      if (mark.marktype === 'group' && (mark.role === 'cell' || (mark.role === 'scope' && axes(item))))
        found.push({name: mark.name || '', marks: marks(item)});
      if (mark.marktype === 'group') for (const child of item.items || []) visit(child); } };
  const root = window.reportViews[name].scenegraph().root;
  visit(root);
  return found.length ? found : [{name: 'whole chart', marks: marks(root.items[0])}];
}"""


def open_page(context, report: Path):
    page = context.new_page()
    page.goto(report.resolve().as_uri(), wait_until="networkidle")
    page.wait_for_function("document.body.dataset.charts && document.body.dataset.tables", timeout=60_000)
    return page


def panels(page) -> dict[str, list[dict]]:
    """Chart name -> its panels, each with how many marks it draws."""
    return {name: page.evaluate(PANELS_JS, name) for name in page.evaluate("Object.keys(window.reportViews)")}


def overflow(page) -> tuple[int, int]:
    """The document's width against the window's: wider means a sideways scroll."""
    return tuple(page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]"))


def write_screenshots(page, out: Path) -> list[Path]:
    """The first screen, and each history chart the page draws (performance, efficiency)."""
    out.mkdir(parents=True, exist_ok=True)
    first = out / "first-screen.png"
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(first))
    written = [first]
    for chart, name in (("accelerator_history", "history.png"), ("efficiency_history", "efficiency.png")):
        if page.locator(f"#chart-{chart}").count():
            page.locator(f"#chart-{chart}").screenshot(path=str(out / name))
            written.append(out / name)
    return written


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright
    report, out = Path(argv[0]), Path(argv[1])
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = open_page(browser.new_context(viewport=WINDOW), report)
        written = write_screenshots(page, out)
        width, window = overflow(page)
        empty = [f"{name}: {p['name']}" for name, found in panels(page).items() for p in found if not p["marks"]]
        browser.close()
    print(f"screenshots of the page at {WINDOW['width']} x {WINDOW['height']}: {', '.join(map(str, written))}")
    if width > window:
        print(f"warning: the page is {width} px wide in a {window} px window (a sideways scroll)", file=sys.stderr)
    if empty:
        print(f"warning: chart panels without marks: {'; '.join(empty)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
