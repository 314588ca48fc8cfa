"""Text cells that a spreadsheet cannot turn against its reader. Claims, decisions and upstream rows
are text other people wrote; a CSV or workbook cell is made safe by one rule, the same for the export
(CSV and XLSX: the rows in SQL below, the workbook's column sheet by `safe_text`) and the CLI's
`--format csv` (frame_cells.py, over a polars frame):

- control characters (all but tab and newline), U+FFFE/U+FFFF and the bidi embeddings, overrides and
  isolates (U+202A-202E, U+2066-2069) are written as the six characters `\\uXXXX`: no raw NUL in a
  CSV, every workbook sheet well-formed XML, no text that reads reversed. In a JSON cell this is
  JSON's own escape, so the cell still parses to the same value;
- a text cell that then begins with `=`, `+`, `-`, `@`, tab or carriage return gets a leading single
  quote (the OWASP CSV-injection rule), unless the whole cell is a plain decimal number such as
  `-1.5` or `+2e3`, which a spreadsheet reads as that number and nothing else.

Only text cells are touched: numeric, temporal and boolean columns are written as they are.
Lists and structs are JSON text (CSV has no nesting), then treated as text.
"""
from __future__ import annotations

import re

_ESCAPED_RANGES = [(0x00, 0x08), (0x0B, 0x1F), (0x7F, 0x9F), (0x202A, 0x202E), (0x2066, 0x2069),
                   (0xFFFE, 0xFFFF)]
# The same character class written for Python's re and for Rust's regex (polars) and RE2 (DuckDB).
ESCAPED = re.compile("[" + "".join(f"\\u{a:04x}-\\u{b:04x}" for a, b in _ESCAPED_RANGES) + "]")
ESCAPED_RE2 = "[" + "".join(f"\\x{{{a:x}}}-\\x{{{b:x}}}" for a, b in _ESCAPED_RANGES) + "]"
FORMULA_START = "=+-@\t\r"
FORMULA_START_RE = r"^[=+\-@\t\r]"  # the same, for every regex engine here
PLAIN_NUMBER = r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$"
_PLAIN_NUMBER = re.compile(PLAIN_NUMBER)
QUOTE = "'"


def _escape(found: re.Match) -> str:
    return f"\\u{ord(found.group()):04x}"


def safe_text(text: str) -> str:
    """One text cell made safe (the module's rule)."""
    escaped = ESCAPED.sub(_escape, text)
    if escaped[:1] and escaped[0] in FORMULA_START and not _PLAIN_NUMBER.match(escaped):
        return QUOTE + escaped
    return escaped


# --- DuckDB SQL (the CSV export, written by COPY without leaving the database) ---------------------

def escaped_sql(expression: str) -> str:
    """SQL: the first half of the rule, characters escaped, for a VARCHAR `expression`."""
    per_character = (f"list_transform(string_split({expression}, ''), lambda c: CASE WHEN "
                     f"regexp_matches(c, '{ESCAPED_RE2}') THEN printf('\\u%04x', unicode(c)) ELSE c END)")
    return (f"CASE WHEN regexp_matches({expression}, '{ESCAPED_RE2}') "
            f"THEN array_to_string({per_character}, '') ELSE {expression} END")


def quoted_sql(expression: str) -> str:
    """SQL: the second half of the rule, the leading quote, for an already escaped `expression`."""
    return (f"CASE WHEN regexp_matches({expression}, '{FORMULA_START_RE}') AND NOT regexp_matches({expression}, "
            f"'{PLAIN_NUMBER}') THEN '{QUOTE * 2}' || {expression} ELSE {expression} END")


def needs_care_sql(expression: str) -> str:
    """SQL: true when the rule may change a VARCHAR `expression` (an escaped character, or a first
    character that starts a formula; a plain number such as `-1.5` is let through by safe_sql).
    A column none of whose cells it is true for is written as it is."""
    return f"(regexp_matches({expression}, '{ESCAPED_RE2}') OR regexp_matches({expression}, '{FORMULA_START_RE}'))"


def any_needs_care_sql(expressions: list[str]) -> str:
    """SQL: true when the rule may change any of the VARCHAR `expressions` of a row: one match over
    them joined, each after a newline (so a formula's first character is found after one). Cheaper
    than needs_care_sql per column (one expression to compile, not two per column) and never false
    when one of those is true: a cell that holds a newline before a formula's character only makes
    it true where it need not be."""
    if not expressions:
        return "false"
    joined = ", ".join(f"chr(10), {e}" for e in expressions)
    after_newline = FORMULA_START_RE.replace("^", "\\n", 1)
    return f"regexp_matches(concat({joined}), '{ESCAPED_RE2}|{after_newline}')"


def safe_sql(expression: str) -> str:
    """SQL: the whole rule for a VARCHAR `expression`, one CASE: a clean cell (nearly all of them)
    costs one scan for the escaped characters and a look at its first one, with no text made for it."""
    return (f"CASE WHEN regexp_matches({expression}, '{ESCAPED_RE2}') THEN {quoted_sql('(' + escaped_sql(expression) + ')')} "
            f"WHEN regexp_matches({expression}, '{FORMULA_START_RE}') AND NOT regexp_matches({expression}, "
            f"'{PLAIN_NUMBER}') THEN '{QUOTE * 2}' || {expression} ELSE {expression} END")
