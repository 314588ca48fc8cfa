"""One completeness rule, and one set of bounds, for every text input the warehouse reads: round
tables, ledgers (claims, decisions, prices), your own measurements, SQL files, submission-tree files.

A file is read whole only when it is no larger than the bound for its kind (SIZE_BOUNDS), as UTF-8
(a byte-order mark dropped; the first bad byte named). A text format with no closing mark of its
own (CSV, TOML, SQL) is complete only when its last line ends with a line break: a file cut
mid-line (`...,19` of `...,195`) is refused, never loaded as the shorter value. A CSV header naming
a column twice is refused (a reader would keep one of the two silently). JSON is read with its
closing bracket as its end mark, and within bounds: nesting no deeper than MAX_DEPTH, integers
that fit in 64 bits, no key given twice in one object with two values (a submission tree's system
description alone is read as MLCommons' checker reads it, the last value winning, each repeat
returned to be recorded: load_json_keeping_last). An id (a claim's, a
decision's) is trimmed and case-folded, and refused when it holds a control or bidi character,
before it is compared with the ids other files own.

Each refusal raises the caller's error class (an ExpectedFailure: one line, exit 1) naming the file
and what is wrong. Pure functions, apart from `read_bounded`.
"""
from __future__ import annotations

import csv
import io
import json
import math
import os
import stat
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from warehouse.errors import ExpectedFailure, escape_control

MIB = 1024 * 1024
SIZE_BOUNDS = {
    "sql": 1 * MIB,             # a query file
    "ledger": 16 * MIB,         # claims, decisions, prices (hand-written: a few KB)
    "measurements": 256 * MIB,  # vLLM's per-request arrays for a long run: tens of MB
}
MAX_DEPTH = 64                  # JSON or TOML nesting (the real files: 2 to 6 levels)
INT64 = range(-2**63, 2**63)
SIGNED_OR_UNSIGNED_64 = range(-2**63, 2**64)  # files that print unsigned 64-bit seeds (LoadGen's, the harness's)


class InputRefused(ExpectedFailure, ValueError):
    """A text input that is incomplete or out of bounds (when the caller names no error class)."""


def read_bounded(path: str | Path, kind: str, error: type[Exception] = InputRefused) -> bytes:
    """The bytes of `path`, read only when no larger than SIZE_BOUNDS[kind]: a pipe or a device
    (`/dev/zero`) is read up to the bound and refused past it, never without end."""
    limit = SIZE_BOUNDS[kind]
    try:
        with open(path, "rb") as f:
            if stat.S_ISDIR(os.fstat(f.fileno()).st_mode):
                raise error(f"{path}: is a directory, not a file")
            content = f.read(limit + 1)
    except FileNotFoundError:
        raise error(f"{path}: no such file") from None
    except IsADirectoryError:
        raise error(f"{path}: is a directory, not a file") from None
    except OSError as exc:
        raise error(f"{path}: cannot read ({exc.strerror or exc})") from None
    return bounded(content, limit, str(path), kind, error)


def bounded(content: bytes, limit: int, label: str, kind: str, error: type[Exception] = InputRefused) -> bytes:
    if len(content) > limit:
        raise error(f"{label}: larger than {limit // MIB} MiB, the bound for a {kind} file")
    return content


def text_of(content: bytes, label: str, error: type[Exception] = InputRefused) -> str:
    """UTF-8 text (a byte-order mark dropped), or `error` naming the first bad byte and its line."""
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = content.count(b"\n", 0, exc.start) + 1
        raise error(f"{label}: not valid UTF-8 at byte {exc.start} (line {line}: {exc.reason})") from None


def require_final_line_break(text: str, label: str, error: type[Exception] = InputRefused) -> None:
    """A text with no end mark of its own is whole only when its last line ends with a line break."""
    if text.strip() and not text.endswith(("\n", "\r")):
        last = text.rsplit("\n", 1)[-1]
        shown = last if len(last) <= 40 else "..." + last[-37:]
        raise error(f"{label}: the last line ({escape_control(shown)!r}) has no line break: the file was cut "
                    "short, or saved without one (end the file with a line break)")


def complete_text(content: bytes, label: str, error: type[Exception] = InputRefused) -> str:
    """UTF-8 text that ends with a line break: the rule for CSV, TOML and SQL files."""
    text = text_of(content, label, error)
    require_final_line_break(text, label, error)
    return text


def csv_header(text: str, label: str, error: type[Exception] = InputRefused) -> list[str]:
    """The CSV's column names (stripped); a name given twice (compared case-folded) is refused."""
    first = next(csv.reader(io.StringIO(text, newline="")), [])
    names = [name.strip() for name in first]
    seen: dict[str, int] = {}
    for number, name in enumerate(names, start=1):
        key = name.casefold()
        if key in seen:
            raise error(f"{label}: the header names column {name!r} twice (columns {seen[key]} and {number}); "
                        "a reader would keep one of the two silently: rename or remove one")
        seen[key] = number
    return names


# --- JSON, bounded --------------------------------------------------------------------------------

class _OutOfBounds(ValueError):
    pass


def _bounded_int(digits: str, integers: range = INT64) -> int:
    most = len(str(integers[-1]))
    if len(digits.lstrip("-")) > most:
        raise _OutOfBounds(f"an integer of {len(digits.lstrip('-'))} digits, beyond the bound of 64-bit integers")
    value = int(digits)
    if value not in integers:
        raise _OutOfBounds(f"the integer {digits}, beyond the bound of 64-bit integers")
    return value


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    """An object whose keys are given once, or again with the same value (published files do that:
    a v4.1 system description gives "network_speed_mbit": "" twice); two values for one key are
    refused, since a reader would keep one of them silently."""
    found = dict(pairs)
    if len(found) != len(pairs):
        for key, value in pairs:
            if found[key] != value:
                raise _OutOfBounds(f"the key {key!r} twice in one object, with two values "
                                   "(a reader would keep one of the two silently)")
    return found


JsonOutOfBounds = _OutOfBounds  # what a bounded_decoder raises (a ValueError), for callers that decode pieces


@dataclass(frozen=True)
class RepeatedKey:
    """A key given twice in one object with two values, read as json.load reads it (the last wins)."""
    key: str
    values: tuple          # every value given, in file order
    top_level: bool        # in the document's own object, not in one nested in it

    def shown_values(self) -> str:
        return ", then ".join(json.dumps(v, ensure_ascii=False)[:80] for v in self.values)

    def describe(self) -> str:
        return f"{self.key}: {self.shown_values()} (the last is read)"


def load_json_keeping_last(text: str, label: str, error: type[Exception] = InputRefused, finite: bool = False,
                           integers: range = INT64) -> tuple[object, list[RepeatedKey]]:
    """JSON within load_json's bounds, except that a key given twice with two values is read as
    json.load reads it (the last value wins) and returned beside the value, for a caller to record
    (MLCommons' submission checker reads a system description with json.load)."""
    repeats: list[tuple[int, str, tuple]] = []

    def keep_last(pairs: list[tuple[str, object]]) -> dict:
        found = dict(pairs)
        if len(found) != len(pairs):
            for key in found:
                values = tuple(v for k, v in pairs if k == key)
                if any(v != values[0] for v in values):
                    repeats.append((id(found), key, values))
        return found

    value = load_json(text, label, error, finite, integers, pairs_hook=keep_last)
    return value, [RepeatedKey(key, values, owner == id(value)) for owner, key, values in repeats]


def _refuse_constant(name: str):
    raise _OutOfBounds(f"the non-finite number {name}")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        shown = text if len(text) <= 24 else f"{text[:12]}...{text[-8:]} ({len(text)} characters)"
        raise _OutOfBounds(f"the number {shown}, beyond the range of a 64-bit float")
    return value


def bounded_decoder(finite: bool = False, integers: range = INT64, pairs_hook=_unique_keys) -> json.JSONDecoder:
    """A decoder with the bounds of load_json (integers in `integers`, each key once per object, or
    as `pairs_hook` reads an object); with `finite`, NaN, Infinity and numbers past a 64-bit float
    (1e999999) are refused too (a rate or a time that is not a number is a broken file, not a value).
    Depth: check_depth afterwards."""
    extra = {"parse_constant": _refuse_constant, "parse_float": _finite_float} if finite else {}
    return json.JSONDecoder(parse_int=lambda digits: _bounded_int(digits, integers),
                            object_pairs_hook=pairs_hook, **extra)


def json_error(exc: json.JSONDecodeError) -> str:
    """Where and why a text is not JSON, in one phrase: 'invalid JSON at line 7545 column 5: Unterminated
    string' (json's "... starting at" is the place already given)."""
    return f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg.removesuffix(' starting at')}"


def load_json(text: str, label: str, error: type[Exception] = InputRefused, finite: bool = False,
              integers: range = INT64, pairs_hook=_unique_keys):
    """JSON within the bounds (MAX_DEPTH, integers in `integers`, each key once per object; with
    `finite`, finite numbers only). json.JSONDecodeError when it is not JSON."""
    try:
        value = bounded_decoder(finite, integers, pairs_hook).decode(text)
    except RecursionError:
        raise error(f"{label}: JSON nested too deeply (more than {MAX_DEPTH} levels)") from None
    except _OutOfBounds as exc:
        raise error(f"{label}: JSON holding {exc}") from None
    check_depth(value, label, error)
    return value


def check_depth(value, label: str, error: type[Exception] = InputRefused, limit: int = MAX_DEPTH) -> None:
    """Lists and objects (dicts) nested no deeper than `limit`: walked with a stack, not recursion."""
    pending = [(value, 1)] if isinstance(value, (dict, list)) else []
    while pending:
        node, depth = pending.pop()
        if depth > limit:
            raise error(f"{label}: nested too deeply (more than {limit} levels)")
        children = node.values() if isinstance(node, dict) else node
        pending.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))


# --- ids ----------------------------------------------------------------------------------------

def normalised_id(value: str, what: str) -> str:
    """An id as the warehouse compares and stores it: trimmed, case-folded; ValueError when it holds
    a control or bidi character (the same id would read otherwise), or nothing."""
    normal = value.strip().lower()  # lower(), not casefold(): what DuckDB's lower() does to stored ids
    if escape_control(normal) != normal or any(c in normal for c in "\t\n\r"):
        raise ValueError(f"{what} {value!r} holds a control or bidi character")
    if not normal:
        raise ValueError(f"{what} is empty")
    return normal


def input_names(kind: str) -> dict[str, str]:
    """{old name: the marts' name} for the fields of an input you write (`claims`, `decisions`,
    `prices`, `measurements_csv`): sql/marts/_naming.toml, [inputs.KIND]. An old name is still read."""
    return dict(_naming_contract()["inputs"][kind])


def marts_names(fields: dict, kind: str, label: str) -> tuple[dict, list[str]]:
    """`fields` (an entry, a CSV row) with each old name given its marts' name, and the old names it
    used; an entry giving both names of one field is refused (ValueError naming both)."""
    renamed, used = dict(fields), []
    for old, new in input_names(kind).items():
        if old not in renamed:
            continue
        if new in renamed:
            raise ValueError(f"{label}: {old!r} and {new!r} name one field: keep {new!r}")
        renamed[new] = renamed.pop(old)
        used.append(old)
    return renamed, used


def old_name_notes(used: list[str], kind: str, label: str, what: str) -> list[str]:
    """One note per old name an input used (`used`: once per entry or row that used it)."""
    names = input_names(kind)
    return [f"{label}: {old!r} ({used.count(old)} {what if used.count(old) != 1 else what[:-1]}) is read as {names[old]!r}, the marts' name: "
            f"write {names[old]!r}" for old in dict.fromkeys(used)]


@cache
def _naming_contract() -> dict:
    import tomllib
    from importlib.resources import files
    return tomllib.loads((files("sql") / "marts" / "_naming.toml").read_text(encoding="utf-8"))
