"""What the commands print: rows as a Rich table sized to the terminal (or as CSV / JSON for
machines), informational lines that `-q` silences, warnings and errors on stderr. Text read from the
warehouse is printed with control characters escaped, never as Rich markup; CSV cells are made safe for
spreadsheets (warehouse/export/cells.py: no formula, no raw control or bidi character)."""
from __future__ import annotations

import json
import sys
from datetime import datetime
from enum import Enum
from functools import cache

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
    """Sized to `width`: short columns (numbers, codes) keep their width and never wrap; long text
    wraps (long words folded). A column of single words (ids, names with dashes) keeps its width too
    when the prose beside it can wrap instead. Headers stay on one line when they fit, else wrap after
    an underscore (tokens_per_second_per_rack: "tokens_per_" / "second_per_" / "rack", so the name
    reads whole); only when even that does not fit, one record per block (column, value), as psql's
    expanded display."""
    from rich.table import Table
    from rich.text import Text
    cells, numeric, unbroken = _columns(frame, raw)
    names = [escape_control(name) for name in frame.columns]
    widest_cell = [max(map(len, column), default=0) for column in cells]
    short = [keep or max(n, len(name)) <= SHORT_TEXT for keep, n, name in zip(unbroken, widest_cell, names)]
    words = [f or not any(_has_space(cell) for cell in column) for f, column in zip(short, cells)]
    layouts = [(kept, header_width) for kept in ([words, short] if words != short else [short])
               for header_width in (len, _header_width)]
    for fixed, header_width in layouts:  # the first that fits: which columns keep their width, how headers wrap
        natural = [max(header_width(name), n) for name, n in zip(names, widest_cell)]
        needed = sum(n if f else min(n, FLEXIBLE_MIN) for n, f in zip(natural, fixed)) + 3 * len(natural) + 1
        if needed <= width or len(natural) == 1:
            break
    else:
        return _expanded(names, cells)
    headers = names
    if header_width is _header_width:
        headers = [_wrapped_header(name, n) for name, n in zip(names, natural)]
    table = Table(box=_box(), header_style="bold")
    for header, is_number, is_fixed, n in zip(headers, numeric, fixed, natural):
        table.add_column(Text(header, overflow="fold"), justify="right" if is_number else "left",
                         width=n if is_fixed else None, no_wrap=is_fixed, overflow="fold")
    for row in zip(*cells):
        table.add_row(*(Text(value) for value in row))
    return table


def _has_space(text: str) -> bool:
    return any(character.isspace() for character in text)


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


def _header_width(name: str) -> int:
    """The narrowest a header gets wrapped after its underscores: its longest part."""
    return max(len(part) for part in _header_parts(name))


def _header_parts(name: str) -> list[str]:
    parts = name.split("_")
    return [part + "_" for part in parts[:-1]] + [parts[-1]]


def _wrapped_header(name: str, width: int) -> str:
    lines, line = [], ""
    for part in _header_parts(name):
        if line and len(line) + len(part) > width:
            lines.append(line)
            line = ""
        line += part
    return "\n".join([*lines, line])


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
