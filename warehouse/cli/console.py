"""What the commands print: rows as a Rich table sized to the terminal (or as CSV / JSON for
machines), informational lines that `-q` silences, warnings and errors on stderr. Text read from the
warehouse is printed with control characters escaped, never as Rich markup; CSV cells are made safe for
spreadsheets (warehouse/export/cells.py: no formula, no raw control or bidi character)."""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass, replace
from datetime import datetime
from enum import Enum
from functools import cache, lru_cache

from warehouse.cli.invocation import current
from warehouse.errors import escape_control, one_line
from warehouse.figures import human_number

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
    from rich.console import Console
    if frame.height == 0:
        print(escape_control(f"(no rows; columns: {', '.join(frame.columns)})"))
        return
    if frame.height > LONG_TABLE:
        sys.stdout.write(long_table(frame, raw=raw))
        return
    console = Console(highlight=False, emoji=False, markup=False)
    console.print(rich_table(frame, console.width, raw))


def long_table(frame, widest: int = 48, raw: bool = False) -> str:
    """Many rows, drawn in time proportional to the cells (Rich measures and wraps each one: 40 s for
    3,000 rows): a row per line, columns at their natural width up to `widest` characters (cut with …),
    numbers right-aligned; lines wider than the terminal are left to the pager (`less -S`)."""
    cells, numeric, _ = _columns(frame, raw)
    widths = [min(widest, max([len(escape_control(name)), *map(len, column)])) for name, column in zip(frame.columns, cells)]

    def line(values, aligned=numeric) -> str:
        return "│ " + " ┆ ".join(_fit(v, w, right) for v, w, right in zip(values, widths, aligned)) + " │\n"
    rule = "".join(("├" if i else "╞") + "═" * (w + 2) for i, w in enumerate(widths)).replace("├", "╪") + "╡\n"
    top = "┌" + "┬".join("─" * (w + 2) for w in widths) + "┐\n"
    bottom = "└" + "┴".join("─" * (w + 2) for w in widths) + "┘\n"
    header = line([escape_control(name) for name in frame.columns], [False] * len(widths))
    return top + header + rule + "".join(line(row) for row in zip(*cells)) + bottom


def _fit(text: str, width: int, right: bool) -> str:
    text = text.replace("\n", " ")
    if len(text) > width:
        text = text[:width - 1] + "…"
    return text.rjust(width) if right else text.ljust(width)


def rich_table(frame, width: int, raw: bool = False):
    """Sized to `width`: short columns (numbers, codes) keep their width and never wrap; a column of
    single words (ids, names with dashes) is never cut inside a word; prose wraps at spaces. Each
    column starts on one line, header and cells; while the table is too wide, the column that gains
    most narrows by the least step: a header onto two lines (after its underscores: tokens_per_ /
    second_per_rack), prose onto two lines, single words onto two lines (after a dash, underscore or
    slash: b300-b200- / llama405b-server); then headers and words onto as many lines as their breaks
    allow, prose onto any (at least FLEXIBLE_MIN wide). When even that does not fit, one record per
    block (column, value), as psql's expanded display."""
    from rich.table import Table
    from rich.text import Text
    cells, numeric, unbroken = _columns(frame, raw)
    columns = _layout(frame.columns, cells, numeric, unbroken, width)
    if columns is None:
        return _expanded([escape_control(name) for name in frame.columns], cells)
    table = Table(box=_box(), header_style="bold")
    for column in columns:
        sized = column.sized()
        header = _broken(column.name, column.width() if sized else column.header_width(), HEADER_BREAKS)
        table.add_column(Text(header, overflow="fold"), justify="right" if column.numeric else "left",
                         width=column.width() if sized else None, no_wrap=column.kind != "prose", overflow="fold")
    for row in zip(*(column.shown_cells() for column in columns)):
        table.add_row(*(Text(value) for value in row))
    return table


HEADER_BREAKS, WORD_BREAKS, PROSE_BREAKS = "_", "-_/", " "
# the narrowing steps, least harmful first: (what narrows, onto how many lines; None: as many as needed)
STEPS = (("header", 2), ("prose", 2), ("word", 2), ("header", None), ("prose", None), ("word", None))


@dataclass(frozen=True)
class _Column:
    name: str
    cells: tuple[str, ...]
    numeric: bool
    kind: str                     # fixed (numbers, short codes: never wrap), word (no space in any cell), prose
    header_lines: int | None = 1
    cell_lines: int | None = 1
    room: int = 0                 # prose drawn at width(): what it is given beyond its narrowest

    def header_width(self) -> int:
        return _narrowest((self.name,), self.header_lines, HEADER_BREAKS)

    def cells_width(self) -> int:
        if self.kind == "fixed" or self.cell_lines == 1:
            return max(map(len, self.cells), default=0)
        if self.kind == "prose" and self.cell_lines is None:
            return min(FLEXIBLE_MIN, max(map(len, self.cells), default=0))
        return _narrowest(self.cells, self.cell_lines, WORD_BREAKS if self.kind == "word" else PROSE_BREAKS)

    def width(self) -> int:
        return max(self.header_width(), self.cells_width() + self.room)

    def widest(self) -> int:
        """Its width with the header and every cell on one line."""
        return max(len(self.name), *map(len, self.cells))

    def sized(self) -> bool:
        """Drawn at width() (else prose left to Rich, at least FLEXIBLE_MIN wide)."""
        return not (self.kind == "prose" and self.cell_lines is None)

    def shown_cells(self) -> list[str]:
        if self.kind != "word":
            return list(self.cells)
        return [_broken(cell, self.width(), WORD_BREAKS) for cell in self.cells]

    def narrowed(self, what: str, lines: int | None) -> "_Column | None":
        """This column with one more step taken, if the step applies and makes it narrower."""
        if what == "header" and self.header_lines != lines:
            step = replace(self, header_lines=lines)
        elif what == self.kind and self.cell_lines != lines:
            step = replace(self, cell_lines=lines)
        else:
            return None
        return step if step.width() < self.width() else None

    def undone(self, step: "_Column") -> "_Column":
        """This column with what `step` changed as it was here before it (the other steps kept)."""
        if step.header_lines != self.header_lines:
            return replace(step, header_lines=self.header_lines)
        return replace(step, cell_lines=self.cell_lines)


def _layout(names: list[str], cells, numeric, unbroken, width: int) -> list[_Column] | None:
    """Each column's layout (its cells as _columns writes them), narrowed step by step (STEPS) until
    the table fits `width`; None if it never does."""
    columns = []
    for name, column, is_number, keep in zip(names, cells, numeric, unbroken):
        name = escape_control(name)
        kind = "fixed" if keep or max([len(name), *map(len, column)]) <= SHORT_TEXT else \
            "prose" if any(_has_space(cell) for cell in column) else "word"
        columns.append(_Column(name, tuple(column), is_number, kind))

    if len(columns) == 1:
        return columns

    def needed() -> int:
        return sum(column.width() for column in columns) + 3 * len(columns) + 1
    taken = []  # (column index, the column before the step)
    for what, lines in STEPS:
        while needed() > width:
            narrower = [(column.width() - step.width(), index, step) for index, column in enumerate(columns)
                        if (step := column.narrowed(what, lines)) is not None]
            if not narrower:
                break
            _, index, step = max(narrower, key=lambda found: found[:2])
            taken.append((index, columns[index]))
            columns[index] = step
    if needed() > width:
        return None
    # A later step (prose onto any number of lines) may have made an earlier one needless (an id onto
    # two lines): the latest first, each step is undone where the table still fits without it.
    for index, before in reversed(taken):
        narrowed = columns[index]
        columns[index] = before.undone(narrowed)
        if needed() > width:
            columns[index] = narrowed
    # What the terminal has left goes to the prose drawn at a width of its own, so it wraps less.
    for index, column in enumerate(columns):
        if column.kind == "prose" and column.sized():
            columns[index] = replace(column, room=max(0, min(width - needed(), column.widest() - column.width())))
    return columns


def _has_space(text: str) -> bool:
    return any(character.isspace() for character in text)


def _parts(text: str, breaks: str) -> list[str]:
    """`text` cut after each of its break characters: tokens_per_rack -> tokens_, per_, rack."""
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
        return "true" if value else "false"
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
