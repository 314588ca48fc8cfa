"""What a reviewer looks at before a report ships: the page in headless Chromium at 1400 x 1000 and
1000 x 1000, its first screen and every chart as PNG at each width, and the facts a test reads from the
same page: does it fit the window, does every chart panel hold marks, are both markets' verdicts on
the first screen, is any text under 11 px, does a panel colour more than 8 series, does a label sit on
a mark, does a result ID break across lines (issue 63). `make report-screenshots` runs it on the
report `make report` wrote:

    .venv-test/bin/python tests/report_screenshots.py report/index.html build/report-screenshots
"""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
WINDOW = {"width": 1400, "height": 1000}
WINDOWS = (WINDOW, {"width": 1000, "height": 1000})
SMALLEST_TEXT = 11    # px, as drawn: CSS font size, an SVG text's times the chart's scale on the page
MOST_COLOURS = 8      # distinct non-grey colours of the marks of one chart panel
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


# Text drawn smaller than SMALLEST_TEXT: every visible text node of the page (its parent's computed
# font size) and every SVG text (its font size times the scale the chart is drawn at).
SMALL_TEXT_JS = """(smallest) => {
  const found = [];
  const visible = (e) => { const r = e.getBoundingClientRect(); const s = getComputedStyle(e);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none'; };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!node.textContent.trim() || !parent || parent.closest('script, style, noscript, svg') || !visible(parent)) continue;
    const size = parseFloat(getComputedStyle(parent).fontSize);
    if (size < smallest) found.push({text: node.textContent.trim().slice(0, 60), size});
  }
  for (const text of document.querySelectorAll('svg text')) {
    if (!text.textContent.trim() || !visible(text)) continue;
    const m = text.getScreenCTM();
    const size = parseFloat(getComputedStyle(text).fontSize) * Math.sqrt(m.a * m.a + m.b * m.b);
    if (size < smallest - 0.05) found.push({text: text.textContent.trim().slice(0, 60), size: Math.round(size * 10) / 10,
                                            chart: text.closest('figure.chart')?.dataset.chart});
  }
  return found;
}"""
# Per chart panel, the distinct colours of its marks (fill and stroke) that are not grey, white or none.
PANEL_COLOURS_JS = """(name) => {
  const canvas = document.createElement('canvas').getContext('2d');
  const rgb = (c) => { if (!c || c === 'none' || c === 'transparent') return null; canvas.fillStyle = '#000';
    canvas.fillStyle = c; const h = canvas.fillStyle;
    if (h.startsWith('#')) return [1, 3, 5].map(i => parseInt(h.slice(i, i + 2), 16));
    const v = h.match(/[\\d.]+/g).map(Number); return v[3] === 0 ? null : v.slice(0, 3); };
  const coloured = (c) => { const v = rgb(c); return v && Math.max(...v) - Math.min(...v) > 24 ? v.join(',') : null; };
  const collect = (item, into) => { for (const mark of item.items || []) {
      if (mark.marktype === 'group') { for (const g of mark.items || []) collect(g, into); continue; }
      if (mark.role !== 'mark' || mark.marktype === 'text') continue;
      for (const i of mark.items || []) for (const c of [i.fill, i.stroke]) { const k = coloured(c); if (k) into.add(k); } } };
  const axes = (item) => (item.items || []).filter(m => m.role === 'axis').length;
  const found = [];
  const visit = (mark) => { for (const item of mark.items || []) {
      if (mark.marktype === 'group' && (mark.role === 'cell' || (mark.role === 'scope' && axes(item)))) {
        const into = new Set(); collect(item, into); found.push({panel: mark.name || '', colours: [...into]}); }
      if (mark.marktype === 'group') for (const child of item.items || []) visit(child); } };
  const root = window.reportViews[name].scenegraph().root;
  visit(root);
  if (!found.length) { const into = new Set(); collect(root.items[0], into); found.push({panel: 'whole chart', colours: [...into]}); }
  return found;
}"""
# Labels (a chart's text marks) whose box covers a mark of the chart: a symbol's or a bar's box, or a
# point along a line (sampled every 2 px of its path).
LABELS_OVER_MARKS_JS = """(name) => {
  const figure = document.getElementById('chart-' + name);
  const inside = (p, r) => p.x > r.left + 1 && p.x < r.right - 1 && p.y > r.top + 1 && p.y < r.bottom - 1;
  const overlap = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  const labels = [...figure.querySelectorAll('g.role-mark.mark-text text')].filter(t => t.textContent.trim())
    .map(t => ({text: t.textContent.trim(), box: t.getBoundingClientRect()}));
  const boxes = [...figure.querySelectorAll('g.role-mark.mark-symbol path, g.role-mark.mark-rect path')]
    .map(p => p.getBoundingClientRect()).filter(r => r.width > 0 && r.height > 0);
  const linePoints = [];
  for (const path of figure.querySelectorAll('g.role-mark.mark-line path')) {
    const m = path.getScreenCTM(); const length = path.getTotalLength();
    for (let at = 0; at <= length; at += 2) { const p = path.getPointAtLength(at);
      linePoints.push({x: m.a * p.x + m.c * p.y + m.e, y: m.b * p.x + m.d * p.y + m.f}); } }
  const found = [];
  for (const label of labels) {
    if (boxes.some(b => overlap(label.box, b)) || linePoints.some(p => inside(p, label.box))) found.push(label.text);
  }
  return found;
}"""
# Result IDs drawn on more than one line: an ID is an element of class rid, or a link whose text is one.
SPLIT_IDS_JS = """() => [...document.querySelectorAll('.rid, a')]
  .filter(e => /^(v?\\d+\\.\\d+-\\d{4})$/.test(e.textContent.trim()))
  .filter(e => new Set([...e.getClientRects()].map(r => Math.round(r.top))).size > 1)
  .map(e => e.textContent.trim() + ' in ' + (e.closest('[id]')?.id || 'the page'))"""
# Words drawn on more than one line inside the tables `selector` finds (a word: a run without spaces;
# "gener ation_ speed up" was one), each with its table's id
BROKEN_WORDS_JS = """(selector) => { const found = [];
  for (const cell of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const match of node.textContent.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, match.index); range.setEnd(node, match.index + match[0].length);
        const lines = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
        if (lines.size > 1) found.push(match[0] + ' in ' + (cell.closest('table[id]')?.id || 'a table'));
      } } }
  return found; }"""
LEDGER_TABLES = "#table-claim_audit td, #table-claim_audit th, #table-decisions_due td, #table-decisions_due th"
# Each market's verdict line: its text, and whether all of it is on the first screen
VERDICTS_JS = """() => { window.scrollTo(0, 0); return [...document.querySelectorAll('#verdict li.verdict')].map(li => {
  const r = li.getBoundingClientRect();
  return {market: li.dataset.market, llm: li.dataset.llm, text: li.innerText, on_first_screen: r.top >= 0 && r.bottom <= innerHeight};
}); }"""


def small_text(page) -> list[dict]:
    return page.evaluate(SMALL_TEXT_JS, SMALLEST_TEXT)


def panel_colours(page) -> dict[str, list[dict]]:
    """Chart name -> its panels, each with the non-grey colours of its marks."""
    return {name: page.evaluate(PANEL_COLOURS_JS, name) for name in page.evaluate("Object.keys(window.reportViews)")}


def labels_over_marks(page) -> dict[str, list[str]]:
    return {name: found for name in page.evaluate("Object.keys(window.reportViews)")
            if (found := page.evaluate(LABELS_OVER_MARKS_JS, name))}


def split_ids(page) -> list[str]:
    return page.evaluate(SPLIT_IDS_JS)


def broken_words(page, selector: str = LEDGER_TABLES) -> list[str]:
    return page.evaluate(BROKEN_WORDS_JS, selector)


def verdict_lines(page) -> list[dict]:
    return page.evaluate(VERDICTS_JS)


def problems(page) -> list[str]:
    """What the page breaks of issue 63's reading rules, one line each (none: it keeps them)."""
    width = page.viewport_size["width"]
    found = [f"{width} px: text at {t['size']} px{' in ' + t['chart'] if t.get('chart') else ''}: {t['text']!r}"
             for t in small_text(page)]
    found += [f"{width} px: {name} panel {p['panel']!r} colours {len(p['colours'])} series"
              for name, found_panels in panel_colours(page).items() for p in found_panels
              if len(p["colours"]) > MOST_COLOURS]
    found += [f"{width} px: {name}: label over a mark: {label!r}" for name, labels in labels_over_marks(page).items()
              for label in labels]
    found += [f"{width} px: result ID on two lines: {rid}" for rid in split_ids(page)]
    found += [f"{width} px: a word broken across lines: {word}" for word in broken_words(page)]
    markets = {v["market"] for v in verdict_lines(page) if v["on_first_screen"]}
    found += [f"{width} px: no {market} verdict on the first screen" for market in ("datacenter", "edge")
              if market not in markets]
    return found


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
    """The first screen, the ledger's tables and every chart the page draws, named by the window's width
    (first-screen-1400.png, table-claim_audit-1400.png, chart-accelerator_history-1400.png)."""
    out.mkdir(parents=True, exist_ok=True)
    width = page.viewport_size["width"]
    first = out / f"first-screen-{width}.png"
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(first))
    written = [first]
    for table in ("claim_audit", "decisions_due"):
        section = page.locator(f"#section-{table}")
        if section.count() and page.locator(f"#table-{table}").count():
            shot = out / f"table-{table}-{width}.png"
            section.screenshot(path=str(shot))
            written.append(shot)
    for chart in page.evaluate("Object.keys(window.reportViews)"):
        shot = out / f"chart-{chart}-{width}.png"
        page.locator(f"#chart-{chart}").screenshot(path=str(shot))
        written.append(shot)
    return written


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright
    report, out = Path(argv[0]), Path(argv[1])
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        for window in WINDOWS:
            page = open_page(browser.new_context(viewport=window), report)
            written = write_screenshots(page, out)
            width, inner = overflow(page)
            empty = [f"{name}: {p['name']}" for name, found in panels(page).items() for p in found if not p["marks"]]
            broken = problems(page)
            print(f"screenshots of the page at {window['width']} x {window['height']}: {len(written)} in {out}")
            if width > inner:
                print(f"warning: the page is {width} px wide in a {inner} px window (a sideways scroll)", file=sys.stderr)
            if empty:
                print(f"warning: chart panels without marks: {'; '.join(empty)}", file=sys.stderr)
            for line in broken:
                print(f"warning: {line}", file=sys.stderr)
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
