"""The user's own accelerator prices (a CSV they edit). No price ships with the project."""
from __future__ import annotations

import io
from pathlib import Path

import duckdb
import polars as pl

from schemas.failures import Failure, validated
from schemas.prices import Price
from warehouse.errors import ExpectedFailure
from warehouse.inputs import complete_text, csv_header, read_bounded
from warehouse.store import db


class PriceError(ExpectedFailure, ValueError):
    pass


def prices_frame(path: Path, allow_empty: bool = False) -> pl.DataFrame:
    text = complete_text(read_bounded(path, "ledger", PriceError), str(path), PriceError)
    csv_header(text, str(path), PriceError)
    try:
        raw = pl.read_csv(io.StringIO(text), infer_schema_length=0)
    except pl.exceptions.PolarsError as exc:
        raise PriceError(f"{path}: cannot read the CSV ({exc})") from exc
    missing = {"accelerator", "dollars_per_accelerator_hour"} - set(raw.columns)
    if missing:
        raise PriceError(f"{path}: missing column(s) {', '.join(sorted(missing))}")
    if raw.height == 0 and not allow_empty:
        raise PriceError(f"{path}: a header and no price (an empty file would remove every price "
                         "loaded before: --allow-empty to load it anyway)")
    frame = raw.select(
        pl.col("accelerator").str.strip_chars(),
        pl.col("dollars_per_accelerator_hour").str.strip_chars().cast(pl.Float64, strict=False),
        *(_optional(raw, column) for column in ("note", "source")),
        _optional(raw, "priced_on").str.to_date("%Y-%m-%d", strict=False),
    )
    if "priced_on" in raw.columns:
        written = raw["priced_on"].str.strip_chars().replace("", None)
        bad = [i for i, (cell, day) in enumerate(zip(written, frame["priced_on"])) if cell is not None and day is None]
        if bad:
            raise PriceError(f"{path}: row {bad[0] + 2}: priced_on {written[bad[0]]!r} is not a date (YYYY-MM-DD)")
    checked, failures = validated(Price, frame)
    if failures:
        raise PriceError(f"{path}: " + "; ".join(
            f"row {f.index + 2 if f.index is not None else '?'}: {f.message(_as_written(raw, f))}" for f in failures))
    return checked


def _optional(raw: pl.DataFrame, column: str) -> pl.Expr:
    """An optional text column, trimmed (empty: null); null throughout when the file has none."""
    if column not in raw.columns:
        return pl.lit(None, dtype=pl.String).alias(column)
    return pl.col(column).str.strip_chars().replace("", None)


def _as_written(raw: pl.DataFrame, failure: Failure):
    """The cell as the file has it (a price that is not a number is null once cast)."""
    if failure.index is None or failure.column not in raw.columns:
        return failure.got
    return raw[failure.column][failure.index]


def unknown_accelerators(frame: pl.DataFrame) -> list[tuple[int, str]]:
    """(row of the file, name) of each price naming no accelerator of accelerators.csv."""
    known = set(known_accelerators())
    return [(i + 2, name) for i, name in enumerate(frame["accelerator"].to_list()) if name not in known]


def known_accelerators() -> list[str]:
    from warehouse.identity.reference import default_reference
    return default_reference().accelerators["accelerator"].to_list()


def unknown_lines(path: Path, unknown: list[tuple[int, str]]) -> list[str]:
    """One line per price naming no accelerator, with the nearest names."""
    from warehouse.nearest import did_you_mean
    known = known_accelerators()
    return [f"{path}: row {row}: {name!r} is no accelerator of warehouse/identity/reference/accelerators.csv: "
            f"its price would match no result{did_you_mean(name, known)}" for row, name in unknown]


def load_prices(con: duckdb.DuckDBPyConnection, path: Path, warn=None, allow_empty: bool = False,
                allow_unknown: bool = False) -> int:
    """Replace the price table. A file naming an accelerator the warehouse does not know is refused
    whole (PriceError, a line per name with its nearest): replacing the table with it would drop
    every price a typo replaced. `allow_unknown`: loaded anyway, `warn(message)` hearing of each."""
    frame = prices_frame(path, allow_empty)
    unknown = unknown_accelerators(frame)
    if unknown and not allow_unknown:
        raise PriceError(f"{path}: {len(unknown)} of its {frame.height} prices name no accelerator the warehouse "
                         "knows (below), so the file is refused whole: correct the names, or load it anyway with "
                         "--allow-unknown", details=unknown_lines(path, unknown))
    for line in unknown_lines(path, unknown) if warn is not None else ():
        warn(line)
    from warehouse.identity.resolve import load_reference_tables
    load_reference_tables(con)
    with db.registered(con, _prices=frame), db.transaction(con):
        con.execute("DELETE FROM prices")
        con.execute("INSERT INTO prices BY NAME SELECT * FROM _prices")
    return frame.height
