"""The rebuild proven: rows rebuilt from a round's tree against MLCommons' own table of the round.

Every closed-division performance row of the published table is looked up among the rebuilt rows by
its run folder (the table's Location) and scenario, and classed (docs/ingest-reference.md explains each):

  match              the rebuilt value is the table's within REL_TOLERANCE (relative); a table in
                     seconds (wan-2.2's Latency (s)) is compared in ms, the checker's unit
  summary_precision  within half a unit of the summary's last printed digit (LoadGen prints rates to
                     two decimals; the table carries mlperf_log_detail.txt's full figure, which the
                     excerpt does not hold): 5.37 for 5.3739 queries/s. Not within 0.01 %, and the
                     same figure as far as the summary can say
  value_differs      found, another value
  not_in_excerpt     the table's run folder has no run summary in the tree we hold (the shared trees
                     are excerpts: the denominator of the share is the rows whose folder is there)
  quarantined        the folder's summary is there and the rebuild quarantined it (reasons kept)
  no_location        the table row names no run folder
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import polars as pl

from warehouse.ingest.parse import parse
from warehouse.trees.rebuilding import SUMMARY_FILE, Rebuilt
from warehouse.trees.parsing import run_folder

REL_TOLERANCE = 1e-4   # 0.01 %
PRINTED_HALF_UNIT = 0.005 + 1e-9   # LoadGen's summary prints rates with two decimals


@dataclass
class Reconstruction:
    round: str
    classes: pl.DataFrame          # one row per closed table row: location, scenario, value, rebuilt, class

    def counts(self) -> dict[str, int]:
        return dict(self.classes.group_by("class").len().iter_rows())

    @property
    def comparable(self) -> int:
        """Table rows whose run summary is in the tree: the denominator."""
        return self.classes.filter(~pl.col("class").is_in(["not_in_excerpt", "no_location"])).height

    @property
    def share(self) -> float:
        """Matches within 0.01 % among the rows whose summary is in the tree."""
        return self.counts().get("match", 0) / max(self.comparable, 1)

    @property
    def share_of_printed_precision(self) -> float:
        """The same among the rows whose value the summary prints to 0.01 % or finer (a rate of at least
        50/s: half a unit of its second decimal is 0.01 % of 50)."""
        carried = self.classes.filter(~pl.col("class").is_in(["not_in_excerpt", "no_location"])
                                      & (PRINTED_HALF_UNIT <= REL_TOLERANCE * pl.col("value").abs())
                                      | pl.col("units").str.starts_with("Latency"))
        return carried.filter(pl.col("class") == "match").height / max(carried.height, 1)


def published_rows(table: Path, round_name: str) -> pl.DataFrame:
    """The table's closed-division performance rows: run folder, scenario, value."""
    _, canonical, _ = parse(table.read_bytes(), table.name, round_name, "official", f"official/{round_name}")
    rows = canonical.filter((pl.col("division") == "closed") & (pl.col("metric") == "performance"))
    folders = [run_folder(location) for location in rows["location"].to_list()]
    in_ms = pl.when(pl.col("units") == "Latency (s)").then(pl.col("value") * 1000).otherwise(pl.col("value"))
    return rows.select("scenario", in_ms.alias("value"), "units").with_columns(
        pl.Series("run_path", [f.path if f else None for f in folders], dtype=pl.String))


def compare(rebuilt: Rebuilt, table: Path) -> Reconstruction:
    published = published_rows(table, rebuilt.round)
    ours = pl.DataFrame([{"run_path": r["location"], "scenario": r["scenario"], "rebuilt": r["value"]}
                         for r in rebuilt.rows],
                        schema={"run_path": pl.String, "scenario": pl.String, "rebuilt": pl.Float64})
    quarantined = {q["path"].removesuffix(f"/{SUMMARY_FILE}") for q in rebuilt.quarantined}
    present = {r["location"] for r in rebuilt.rows} | quarantined
    joined = published.join(ours, on=["run_path", "scenario"], how="left")
    classes = joined.with_columns(
        pl.when(pl.col("run_path").is_null()).then(pl.lit("no_location"))
        .when(pl.col("rebuilt").is_not_null()
              & ((pl.col("rebuilt") - pl.col("value")).abs() <= REL_TOLERANCE * pl.col("value").abs()))
        .then(pl.lit("match"))
        .when(pl.col("rebuilt").is_not_null() & ((pl.col("rebuilt") - pl.col("value")).abs() <= PRINTED_HALF_UNIT))
        .then(pl.lit("summary_precision"))
        .when(pl.col("rebuilt").is_not_null()).then(pl.lit("value_differs"))
        .when(pl.col("run_path").is_in(list(quarantined))).then(pl.lit("quarantined"))
        .when(pl.col("run_path").is_in(list(present))).then(pl.lit("value_differs"))
        .otherwise(pl.lit("not_in_excerpt")).alias("class"))
    return Reconstruction(rebuilt.round, classes)
