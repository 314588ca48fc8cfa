"""Reading the CLI's printed tables back: the Rich table (wrapped cells continue on the next lines)
or, on a narrow terminal, its expanded form (one block of `column | value` lines per record)."""
from __future__ import annotations

CELL = "┆"


def _raw_cells(line: str) -> list[str]:
    return line.strip()[1:-1].split(CELL)


def _join(before: str, raw: str, previous_raw: str) -> str:
    """A line that filled its cell was folded inside a word, one ending in a dash, underscore or slash
    was a single word broken there; a shorter one was wrapped at a space."""
    more = raw.strip()
    if not more:
        return before
    folded = len(previous_raw.strip()) == len(previous_raw) - 2  # no room left beside the padding
    return before + ("" if folded or before.endswith(("-", "_", "/")) else " ") + more


def continues(first_cell_before: str, first_cell: str) -> bool:
    """Whether a line of a table's body goes on with the row above: its first cell is blank (a cell
    beside it wrapped), or the first cell above was a single word broken after a dash, underscore or
    slash (b300-b200- / llama405b-server)."""
    return not first_cell.strip() or first_cell_before.strip().endswith(("-", "_", "/"))


def table_rows(out: str) -> list[dict[str, str]]:
    """The first table printed in `out` -> its rows as {column: cell}."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("┌"))
    end = next(i for i, line in enumerate(lines) if i > start and line.startswith("└"))
    body = lines[start + 1:end]
    if any(line.startswith("╞") for line in body):
        return _table(body)
    return _expanded(body)


def _table(body: list[str]) -> list[dict[str, str]]:
    rule = next(i for i, line in enumerate(body) if line.startswith("╞"))
    # a header too wide for its column wraps after an underscore, over several lines: joined back
    header = ["".join(parts) for parts in zip(*([cell.strip() for cell in _raw_cells(line)] for line in body[:rule]))]
    rows, last_raw = [], []
    for line in body[rule + 1:]:
        raw = _raw_cells(line)
        if rows and continues(last_raw[0], raw[0]):
            rows[-1] = [_join(before, more, previous) for before, more, previous in zip(rows[-1], raw, last_raw)]
        else:
            rows.append([cell.strip() for cell in raw])
        last_raw = raw
    return [dict(zip(header, row)) for row in rows]


def _expanded(body: list[str]) -> list[dict[str, str]]:
    records, record, last, last_raw = [], {}, None, ""
    for line in body:
        if line.startswith("├"):
            records.append(record)
            record, last = {}, None
            continue
        name, value = _raw_cells(line)
        if name.strip():
            record[name.strip()], last = value.strip(), name.strip()
        else:
            record[last] = _join(record[last], value, last_raw)
        last_raw = value
    return [*records, record]


def lines_per_row(out: str) -> list[int]:
    """How many lines the header and then each row of the first table printed take (a wrapped cell goes
    on with the first cell blank); refused when the table is printed as blocks of `column | value` lines."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("┌"))
    end = next(i for i, line in enumerate(lines) if i > start and line.startswith("└"))
    rule = next((i for i in range(start, end) if lines[i].startswith("╞")), None)
    assert rule is not None, f"not a table but blocks of column | value lines:\n{out}"
    counts, first_cell_before = [rule - start - 1], ""
    for line in lines[rule + 1:end]:
        first_cell = line.strip()[1:].split("┆")[0]
        if len(counts) > 1 and continues(first_cell_before, first_cell):
            counts[-1] += 1
        else:
            counts.append(1)
        first_cell_before = first_cell
    return counts
