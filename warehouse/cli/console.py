"""What the commands print: rows as a Rich table sized to the terminal (or as CSV / JSON for
machines), informational lines that `-q` silences, warnings and errors on stderr. Text read from the
warehouse is printed with control characters escaped, never as Rich markup; CSV cells are made safe for
spreadsheets (warehouse/export/cells.py: no formula, no raw control or bidi character)."""
from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, replace
from datetime import datetime
from enum import Enum
from functools import cache, lru_cache

from warehouse.cli.invocation import current
from warehouse.errors import escape_control, one_line
from warehouse.figures import human_number, truth

SHORT_TEXT = 16      # a text column this wide or narrower (codes, rounds, statuses) never wraps
FLEXIBLE_MIN = 12    # the least a wrapping text column gets before records are shown one by one


class Format(str, Enum):
    table = "table"
    csv = "csv"
    json = "json"
    markdown = "markdown"


def say(text: str = "") -> None:
    """An informational line on stdout (a run report, what a command did); -q drops it."""
    if not current().quiet:
        print(text)


def note(text: str) -> None:
    """A remark about the output on stderr (stdout stays the rows); -q drops it."""
    if not current().quiet:
        print(text, file=sys.stderr)


def warn(text: str) -> None:
    print(f"warning: {one_line(text)}", file=sys.stderr)


def error(text: str) -> None:
    print(f"error: {one_line(text)}", file=sys.stderr)


def print_rows(frame, fmt: Format | str = Format.table, raw: bool = False) -> None:
    """A polars frame as a table, CSV (header row), JSON (a list of objects) or a Markdown table; a
    table also from warehouse.store.rows.Rows (no polars). Tables show numbers for people (1,126,850;
    2.93; 0.0181); `raw` shows every digit, as CSV and JSON always do."""
    fmt = Format(fmt)
    if fmt is Format.csv:
        from warehouse.export.frame_cells import safe_frame
        sys.stdout.write(safe_frame(frame).write_csv())
    elif fmt is Format.json:
        print(inert_json(json_ready(frame).write_json()))
    elif fmt is Format.markdown:
        sys.stdout.write(markdown_table(frame, raw))
    else:
        print_table(frame, raw)


def markdown_table(frame, raw: bool = False) -> str:
    """A GitHub-flavoured Markdown table: numbers right-aligned, `|` in a cell escaped."""
    def cell(text: str) -> str:
        return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")
    header = "| " + " | ".join(cell(name) for name in frame.columns) + " |"
    rule = "|" + "".join(" ---: |" if dtype.is_numeric() else " --- |" for dtype in frame.dtypes)
    rows = ["| " + " | ".join(cell(cell_text(v, raw)) for v in row) + " |" for row in frame.iter_rows()]
    return "\n".join([header, rule, *rows]) + "\n"


def json_ready(frame):
    """Bytes as hex (as in CSV: polars writes no bytes to JSON), objects as text."""
    import polars as pl
    return frame.with_columns(
        *(pl.col(name).bin.encode("hex") for name, dtype in frame.schema.items() if dtype == pl.Binary),
        *(pl.col(name).cast(pl.String) for name, dtype in frame.schema.items() if dtype == pl.Object))


def inert_json(text: str) -> str:
    """JSON text with every control, bidi and noncharacter code point written as JSON's own `\\uXXXX`
    escape: the same values to a parser, nothing a terminal acts on or draws reversed."""
    from warehouse.export.cells import ESCAPED
    return ESCAPED.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def print_wrapped(text: str) -> None:
    """A line of the output (not a remark), wrapped at the terminal's width; stored text escaped."""
    from rich.console import Console
    from rich.text import Text
    Console(highlight=False, emoji=False, markup=False).print(Text(escape_control(text)))


def print_json(value) -> None:
    print(json.dumps(value, indent=2, default=str))


LONG_TABLE = 200  # rows; longer tables are drawn by long_table


def print_table(frame, raw: bool = False) -> None:
    """Sized to the terminal (COLUMNS, else its width), or with --wide every cell whole on one line,
    the table as wide as they make it (for `less -S`)."""
    from rich.console import Console
    wide = current().wide
    if frame.height == 0:
        print_wrapped(f"(no rows; columns: {', '.join(frame.columns)})")
        return
    console = Console(highlight=False, emoji=False, markup=False)
    if frame.height > LONG_TABLE:
        sys.stdout.write(long_table(frame, None if wide else console.width, raw))
        return
    table, width = rich_table(frame, None if wide else console.width, raw, with_width=True)
    if wide:
        console = Console(highlight=False, emoji=False, markup=False, width=max(width, console.width))
    console.print(table)


def long_table(frame, width: int | None, raw: bool = False) -> str:
    """Many rows, drawn in time proportional to the cells (Rich measures and wraps each one: 40 s for
    3,000 rows): a row per line, numbers right-aligned, sized to `width` as a table is (headers onto
    two lines, then text cut with …; never a number or an id), or every cell whole (`width` None). A
    line is wider than `width` only when its numbers and ids alone are; the pager shows it (`less -S`)."""
    cells, numeric, unbroken = _columns(frame, raw)
    columns = _initial_columns(frame.columns, cells, numeric, unbroken)
    if width is not None:
        _narrow(columns, width, ONE_LINE_STEPS)
    widths = [column.width() for column in columns]

    def line(values, aligned=numeric) -> str:
        return "│ " + " ┆ ".join(_fit(v, w, right) for v, w, right in zip(values, widths, aligned)) + " │\n"
    rule = "".join(("├" if i else "╞") + "═" * (w + 2) for i, w in enumerate(widths)).replace("├", "╪") + "╡\n"
    top = "┌" + "┬".join("─" * (w + 2) for w in widths) + "┐\n"
    bottom = "└" + "┴".join("─" * (w + 2) for w in widths) + "┘\n"
    headers = [column.header_text().split("\n") for column in columns]
    header = "".join(line([h[i] if i < len(h) else "" for h in headers], [False] * len(widths))
                     for i in range(max(map(len, headers))))
    return top + header + rule + "".join(line(row) for row in zip(*(c.shown_cells() for c in columns))) + bottom


def _fit(text: str, width: int, right: bool) -> str:
    text = _cut(text.replace("\n", " "), width)
    return text.rjust(width) if right else text.ljust(width)


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[:max(width - 1, 0)] + "…"


def rich_table(frame, width: int | None, raw: bool = False, with_width: bool = False):
    """Sized to `width` (None: every column at its widest, on one line): short columns (numbers,
    codes) keep their width and never wrap; a column of single words (ids, names with dashes) is never
    cut inside a word; prose wraps at spaces. Each column starts on one line, header and cells; while
    the table is too wide, the column that gains most narrows by the least step (STEPS): a header
    onto two lines (after its underscores: tokens_per_ / second_per_rack, else anywhere: accele /
    rator), prose onto two lines, single words onto two lines (after a dash, underscore or slash:
    b300-b200- / llama405b-server); then headers, prose and words onto as many lines as their breaks
    allow (prose at least FLEXIBLE_MIN wide); then text cut with … (free text first, the widest
    first, never below CUT_MIN characters, never a number or an id). When even that does not fit, one
    record per block (column, value), as psql's expanded display. `with_width`: (the table, its width)."""
    from rich.table import Table
    from rich.text import Text
    cells, numeric, unbroken = _columns(frame, raw)
    columns = _layout(frame.columns, cells, numeric, unbroken, width)
    if columns is None:
        table = _expanded([escape_control(name) for name in frame.columns], cells)
        return (table, width) if with_width else table
    table = Table(box=_box(), header_style="bold")
    for column in columns:
        sized = column.sized()
        table.add_column(Text(column.header_text() if sized else _broken(column.name, column.header_width(),
                                                                         column.header_breaks), overflow="fold"),
                         justify="right" if column.numeric else "left", width=column.width() if sized else None,
                         no_wrap=not column.wraps(), overflow="fold")
    for row in zip(*(column.shown_cells() for column in columns)):
        table.add_row(*(Text(value) for value in row))
    return (table, _needed(columns)) if with_width else table


HEADER_BREAKS, WORD_BREAKS, PROSE_BREAKS = "_", "-_/", " "
ANYWHERE = ""       # breaks: a header folded at any character
CUT_MIN = 6         # a cut cell keeps at least this many characters, … included
# A column that names or locates a row (id, result_id, result_id_new, source_id, run_path): never cut.
IDENTIFIER = re.compile(r"(^|_)(ids?|path)(_|$)")
# The narrowing steps, least harmful first: (what narrows, onto how many lines; None: as many as
# needed). A header's second line is one more line for the table, a cell's one more per row; a cut
# loses the end of the cells, and comes last (folding the header too where it is then the widest).
STEPS = (("header", 2), ("fold", 2), ("prose", 2), ("word", 2), ("header", None), ("prose", None), ("word", None),
         ("cut", None))
ONE_LINE_STEPS = (("header", 2), ("fold", 2), ("header", None), ("cut", None))  # long_table: a row per line
FREE_TEXT = 32      # prose with a cell longer than this is free text (a reason, a note), cut first
FOLD_MIN = 8        # a header folds (anywhere) only when each of its two lines keeps 4 letters (not "roun" / "d")


@dataclass(frozen=True)
class _Column:
    name: str
    cells: tuple[str, ...]
    numeric: bool
    kind: str                     # fixed (numbers, short codes: never wrap), word (no space in any cell), prose
    cuttable: bool = False        # text, not an id
    header_lines: int | None = 1
    header_breaks: str = HEADER_BREAKS
    cell_lines: int | None = 1
    cut: int | None = None        # every cell on one line, cut with … to this width
    room: int = 0                 # prose drawn at width(): what it is given beyond its narrowest

    def header_width(self) -> int:
        return _narrowest((self.name,), self.header_lines, self.header_breaks)

    def header_text(self) -> str:
        """Its header as drawn: broken after underscores to fill its width, or folded into even halves."""
        folded = self.header_breaks == ANYWHERE and self.header_lines is not None
        return _broken(self.name, self.header_width() if folded else self.width(), self.header_breaks)

    def cells_width(self) -> int:
        if self.cut is not None:
            return min(self.cut, self.widest_cell())
        if self.kind == "fixed" or self.cell_lines == 1:
            return self.widest_cell()
        if self.kind == "prose" and self.cell_lines is None:
            return min(FLEXIBLE_MIN, self.widest_cell())
        return _narrowest(self.cells, self.cell_lines, WORD_BREAKS if self.kind == "word" else PROSE_BREAKS)

    def widest_cell(self) -> int:
        return max(map(len, self.cells), default=0)

    def width(self) -> int:
        return max(self.header_width(), self.cells_width() + self.room)

    def widest(self) -> int:
        """Its width with the header and every cell on one line."""
        return max(len(self.name), self.widest_cell())

    def sized(self) -> bool:
        """Drawn at width() (else prose left to Rich, at least FLEXIBLE_MIN wide)."""
        return not (self.kind == "prose" and self.cell_lines is None and self.cut is None)

    def folds(self) -> bool:
        """A header with no underscore to break after, long enough to fold in two."""
        return len(self.name) >= FOLD_MIN and HEADER_BREAKS not in self.name

    def free_text(self) -> bool:
        return self.kind == "prose" and self.widest_cell() > FREE_TEXT

    def hidden(self) -> int:
        """How many characters its cut hides, over every cell."""
        if self.cut is None:
            return 0
        return sum(len(cell) - (self.cut - 1) for cell in self.cells if len(cell) > self.cut)

    def cut_cells(self) -> int:
        """How many of its cells its cut shortens."""
        return 0 if self.cut is None else sum(1 for cell in self.cells if len(cell) > self.cut)

    def wraps(self) -> bool:
        return self.kind == "prose" and self.cut is None

    def shown_cells(self) -> list[str]:
        if self.cut is not None:
            return [_cut(cell, self.width()) for cell in self.cells]
        if self.kind != "word":
            return list(self.cells)
        return [_broken(cell, self.width(), WORD_BREAKS) for cell in self.cells]

    def narrowed(self, what: str, lines: int | None) -> "_Column | None":
        """This column with one more step taken, if the step applies and makes it narrower."""
        if what == "header" and (self.header_lines, self.header_breaks) != (lines, HEADER_BREAKS) \
                and self.header_breaks == HEADER_BREAKS:
            step = replace(self, header_lines=lines)
        elif what == "fold" and self.folds() and (self.header_lines, self.header_breaks) != (lines, ANYWHERE):
            step = replace(self, header_lines=lines, header_breaks=ANYWHERE)
        elif what == "cut" and self.cuttable and CUT_MIN < self.cells_width() == self.width():
            step = replace(self, cut=self.cells_width() - 1, cell_lines=1)
            if step.header_width() > step.cut and self.folds() and self.header_lines == 1:
                step = replace(step, header_lines=2, header_breaks=ANYWHERE)
        elif what == self.kind and self.cut is None and self.cell_lines != lines:
            step = replace(self, cell_lines=lines)
        else:
            return None
        return step if step.width() < self.width() else None

    def undone(self, before: "_Column", what: str) -> "_Column":
        """This column with what a step of kind `what` changed as it was in `before` (the other steps kept)."""
        header = dict(header_lines=before.header_lines, header_breaks=before.header_breaks)
        cells = dict(cell_lines=before.cell_lines, cut=before.cut)
        return replace(self, **{"header": header, "fold": header, "cut": header | cells}.get(what, cells))


def _initial_columns(names: list[str], cells, numeric, unbroken) -> list[_Column]:
    """Each column on one line, header and cells, of the kind its cells make it."""
    columns = []
    for name, column, is_number, keep in zip(names, cells, numeric, unbroken):
        name = escape_control(name)
        kind = "fixed" if keep or max([len(name), *map(len, column)]) <= SHORT_TEXT else \
            "prose" if any(_has_space(cell) for cell in column) else "word"
        columns.append(_Column(name, tuple(column), is_number, kind, not keep and not IDENTIFIER.search(name)))
    return columns


def _needed(columns: list[_Column]) -> int:
    """The width of a table of these columns: each with a space either side, a line between."""
    return sum(column.width() for column in columns) + 3 * len(columns) + 1


def _layout(names: list[str], cells, numeric, unbroken, width: int | None) -> list[_Column] | None:
    """Each column's layout (its cells as _columns writes them), narrowed step by step (STEPS) until
    the table fits `width`; None if it never does; every column at its widest when `width` is None."""
    columns = _initial_columns(names, cells, numeric, unbroken)
    if width is None or len(columns) == 1:
        return columns
    return columns if _narrow(columns, width, STEPS) else None


def _narrow(columns: list[_Column], width: int, steps) -> bool:
    """Narrow `columns` in place until they fit `width`, losing nothing first (`steps` without the
    cut), then cutting text on top of that; whether they fit."""
    lossless = [step for step in steps if step[0] != "cut"]
    for phase in (lossless, [step for step in steps if step[0] == "cut"]):
        taken = _taken(columns, width, phase)
        if _needed(columns) <= width:
            _undo_needless(columns, width, taken)
            break
    else:
        return False
    # What the terminal has left goes to the prose drawn at a width of its own, so it wraps less.
    for index, column in enumerate(columns):
        if column.wraps() and column.sized():
            columns[index] = replace(column, room=max(0, min(width - _needed(columns), column.widest() - column.width())))
    return True


def _taken(columns: list[_Column], width: int, steps) -> list[tuple[int, str, _Column]]:
    """Take `steps` in turn, each on the column it helps most, while the table is too wide; the steps
    taken: (column index, the kind of step, the column before it)."""
    taken = []
    for what, lines in steps:
        while _needed(columns) > width:
            narrower = [(_gain(column, step, what), index, step) for index, column in enumerate(columns)
                        if (step := column.narrowed(what, lines)) is not None]
            if not narrower:
                break
            _, index, step = max(narrower, key=lambda found: found[:2])
            taken.append((index, what, columns[index]))
            columns[index] = step
    return taken


def _undo_needless(columns: list[_Column], width: int, taken: list[tuple[int, str, _Column]]) -> None:
    """A later step (prose onto any number of lines) may have made an earlier one needless (an id onto
    two lines): the latest first, each step is undone where the table still fits without it."""
    for index, what, before in reversed(taken):
        narrowed = columns[index]
        columns[index] = narrowed.undone(before, what)
        if _needed(columns) > width:
            columns[index] = narrowed


def _gain(column: _Column, step: _Column, what: str) -> tuple:
    """What taking `step` is worth: the width it saves; for a cut, free text first (the widest first),
    then the column where it cuts the fewest more cells (a name few rows have before the benchmark
    every row shows), then the fewest more characters."""
    if what == "cut":
        free = column.free_text()
        return (free, column.width()) if free else \
            (False, -(step.cut_cells() - column.cut_cells()), -(step.hidden() - column.hidden()))
    return (column.width() - step.width(),)


def _has_space(text: str) -> bool:
    return any(character.isspace() for character in text)


def _parts(text: str, breaks: str) -> list[str]:
    """`text` cut after each of its break characters: tokens_per_rack -> tokens_, per_, rack (ANYWHERE:
    after every character)."""
    if breaks == ANYWHERE:
        return list(text) or [text]
    parts, part = [], ""
    for character in text:
        part += character
        if character in breaks:
            parts.append(part)
            part = ""
    return [*parts, part] if part or not parts else parts


def _lines(parts: list[str], width: int) -> list[str]:
    """The parts put on lines of at most `width` characters (a space ending a line not counted), as
    many on a line as fit."""
    lines, line = [], ""
    for part in parts:
        if line and len((line + part).rstrip(" ")) > width:
            lines.append(line.rstrip(" "))
            line = ""
        line += part
    return [*lines, line.rstrip(" ")]


@lru_cache(maxsize=256)
def _narrowest(texts: tuple[str, ...], lines: int | None, breaks: str) -> int:
    """The narrowest width at which every text, broken only after its break characters, takes at most
    `lines` lines (None: any number; its longest part). Found by halving: a wider line never needs
    more lines. Kept per (texts, lines, breaks): the layout asks again as it tries each step."""
    split = [_parts(text, breaks) for text in texts if text]
    if not split:
        return 0
    narrow = max(len(part.rstrip(" ")) for parts in split for part in parts)
    if lines is None:
        return narrow
    wide = max(map(len, texts))  # one line each
    while narrow < wide:
        middle = (narrow + wide) // 2
        if all(len(_lines(parts, middle)) <= lines for parts in split):
            wide = middle
        else:
            narrow = middle + 1
    return narrow


def _broken(text: str, width: int, breaks: str) -> str:
    """`text` on lines of at most `width` (a part longer has a line of its own), broken only after a
    break character."""
    if len(text) <= width:
        return text
    return "\n".join(_lines(_parts(text, breaks), width))


def _columns(frame, raw: bool = False) -> tuple[list[list[str]], list[bool], list[bool]]:
    """(each column's cells as text, which columns are numbers, which never wrap: numbers, dates and
    times, booleans) of a polars frame or of Rows."""
    if hasattr(frame, "column_values"):  # warehouse.store.rows.Rows
        values, numeric, unbroken = frame.column_values(), frame.numeric(), frame.unbroken()
    else:
        import polars as pl
        values = [frame.get_column(name).to_list() for name in frame.columns]
        numeric = [dtype.is_numeric() for dtype in frame.dtypes]
        unbroken = [dtype.is_numeric() or dtype.is_temporal() or dtype == pl.Boolean for dtype in frame.dtypes]
    return [[cell_text(v, raw) for v in column] for column in values], numeric, unbroken


def _expanded(names: list[str], cells: list[list[str]]):
    from rich.table import Table
    from rich.text import Text
    table = Table(box=_box(), show_header=False)
    table.add_column(no_wrap=True, style="bold")
    table.add_column(overflow="fold")
    rows = list(zip(*cells))
    for number, row in enumerate(rows, 1):
        for index, (name, value) in enumerate(zip(names, row)):
            table.add_row(Text(name), Text(value), end_section=index == len(names) - 1 and number < len(rows))
    return table


def cell_text(value, raw: bool = False) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return truth(value)
    if isinstance(value, float):
        return repr(value) if raw else human_number(value)
    if isinstance(value, int):
        return str(value) if raw else f"{value:,}"
    if isinstance(value, datetime):
        return value.isoformat(sep=" ", timespec="seconds")
    if isinstance(value, list):
        return escape_control(", ".join(cell_text(v, raw) for v in value))
    return escape_control(str(value))


@cache
def _box():
    """The look of the previous (polars) tables: solid outer lines, dotted inner ones."""
    from rich.box import Box
    return Box("┌─┬┐\n"
               "│ ┆│\n"
               "╞═╪╡\n"
               "│ ┆│\n"
               "├─┼┤\n"
               "├─┼┤\n"
               "│ ┆│\n"
               "└─┴┘\n")
