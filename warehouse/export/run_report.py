"""What a run changed, for people: per round rows read / loaded / quarantined, drift, results new or
changed since the previous load, the largest new software gains and generation speedups of the rows
the run changed, claims
whose verdict changed, and decisions that became due. Published as Prefect artifacts (markdown and
table) and printed, short, by the CLI."""
from __future__ import annotations

from dataclasses import dataclass, field

import duckdb
import polars as pl

from warehouse.ingest.changes import LATEST_LOAD_CHANGES
from warehouse.ingest.outcome import RoundOutcome
from warehouse.ingest.source_urls import redact
from warehouse.store import db

# A headline row is known by what it compares and the rows it pairs (a result ID, or for a row rebuilt
# from a submission tree its round and run folder): one hardware, size and benchmark has one pair per era.
GAIN_KEY = ["basis", "part", "benchmark", "scenario", "units", "scale_to", "round_from", "round_to", "from_row",
            "to_row"]
SPEEDUP_KEY = ["round", "benchmark", "scenario", "result_unit", "part_count", "part_new",
               "part_base", "submitter_new", "submitter_base", "result_id_new", "result_id_base"]
# The sides of a headline that a row the run changed may be: (the headline's columns, the changed
# row's columns) each.
GAIN_SIDES = ((["source_id_from", "record_no_from"], ["source_id", "record_no"]),
              (["source_id_to", "record_no_to"], ["source_id", "record_no"]))
SPEEDUP_SIDES = ((["result_id_new", "benchmark", "scenario"], ["result_id", "benchmark", "scenario"]),
                 (["result_id_base", "benchmark", "scenario"], ["result_id", "benchmark", "scenario"]))
TOP = 3
SCREEN_COLUMNS = ["round", "status", "rows_read", "rows_loaded", "rows_quarantined", "new", "changed", "note"]
UNREACHABLE_HINT = (
    "The source {source} cannot be reached from this machine.\n"
    "Point MLPERF_SOURCE (or --source) at a mirror or a local directory laid out as "
    "inference_results_vX.Y/main/summary_results.json, e.g.\n"
    "  MLPERF_SOURCE=../shared/mlcommons/mirror make run"
)


@dataclass
class Snapshot:
    """The analyst-facing answers before a run, to say afterwards what the run changed."""
    verdicts: dict[str, str]
    due: set[str]
    gains: pl.DataFrame
    speedups: pl.DataFrame


def _frame_or_empty(con, sql: str) -> pl.DataFrame:
    try:
        return db.query_frame(con, sql)
    except duckdb.CatalogException:  # views never built
        return pl.DataFrame()


def take_snapshot(con: duckdb.DuckDBPyConnection) -> Snapshot:
    verdicts = _frame_or_empty(con, "SELECT id, verdict FROM claim_audit")
    from warehouse.ledger.claims import due_decision_ids  # Pandera: only for a run that loads
    return Snapshot(dict(verdicts.iter_rows()) if verdicts.height else {}, due_decision_ids(con),
                    _frame_or_empty(con, HEADLINE_GAINS), _frame_or_empty(con, HEADLINE_SPEEDUPS))


# What the run's headlines may name: what a piece of hardware gained (its best verified result at one
# size against its best before at that size, both sides procurement grade, not implausible; the
# submitter's own gain beside it) and generation speedups of like-for-like pairs (one
# serving stack, a baseline that serves near its own ceiling), procurement grade.
# part: the accelerator, or the processor of a CPU-only system (the marts name them apart)
# Read from int_software_gains_graded, the rows of the mart software_gains before it drops each side's
# row key: the key says which rows the run changed, and a row rebuilt from a tree (no result ID) is
# named by its round and run folder ('v2.0 closed/NVIDIA/results/.../performance/run_1', its Location).
HEADLINE_GAINS = """
WITH folders AS (  -- a record with a power figure is two rows of one record_no
    SELECT source_id, record_no, round || ' ' || location AS folder
    FROM results WHERE metric = 'performance' AND result_id IS NULL
)
SELECT h.*, coalesce(h.accelerator, h.cpu) AS part, {from_row} AS from_row, {to_row} AS to_row,
       o.gain AS own_gain, {own_from_row} AS own_from_row
FROM int_software_gains_graded AS h
LEFT JOIN folders AS f ON f.source_id = h.source_id_from AND f.record_no = h.record_no_from
LEFT JOIN folders AS t ON t.source_id = h.source_id_to AND t.record_no = h.record_no_to
LEFT JOIN int_software_gains_graded AS o
  ON o.basis = 'same_scale' AND o.source_id_to = h.source_id_to AND o.record_no_to = h.record_no_to
LEFT JOIN folders AS w ON w.source_id = o.source_id_from AND w.record_no = o.record_no_from
WHERE h.basis = 'hardware_best' AND h.procurement_grade
""".format(**{name: f"coalesce({pair}.result_id_{side}, {row}.folder, "
                    f"{pair}.source_id_{side} || ' record ' || {pair}.record_no_{side})"
              for name, pair, side, row in (("from_row", "h", "from", "f"), ("to_row", "h", "to", "t"),
                                            ("own_from_row", "o", "from", "w"))})
HEADLINE_SPEEDUPS = ("SELECT *, coalesce(accelerator_new, cpu_new) AS part_new, coalesce(accelerator_base, cpu_base) "
                     "AS part_base, coalesce(accelerator_count, cpu_count) AS part_count FROM generation_speedups "
                     "WHERE procurement_grade AND like_for_like")


GAINS_TITLE = ("Largest new gains of the same hardware (its best at one size against its best before, "
               "whoever ran them, verified: software and system together; software_gains.software_alone)")


def _gain_line(g: dict) -> str:
    """What the hardware gained (its best against its best), then its submitter's own gain when that
    is another pair; each side by its result ID, or the run folder of a row rebuilt from a tree."""
    line = (f"{g['gain']:.2f}x {g['part']} x{g['scale_to']} {g['benchmark']} {g['scenario']}: "
            f"{g['from_row']} ({g['submitter_from']}) -> {g['to_row']} ({g['submitter']})")
    if g.get("own_gain") is not None and g.get("own_from_row") != g["from_row"]:
        line += f"; {g['submitter']}'s own gain {g['own_gain']:.2f}x from {g['own_from_row']}"
    return line


# The performance rows this run's loads added, changed or brought back: their key and what they are
# of, the benchmark read from the published name as stg_results reads it (base_benchmark_names).
CHANGED_ROWS = f"""
    SELECT DISTINCT r.source_id, r.record_no, r.result_id, coalesce(b.benchmark, r.model) AS benchmark, r.scenario
    FROM ({LATEST_LOAD_CHANGES}) AS c
    JOIN results AS r
      ON r.source_id = c.source_id AND r.entry_id = c.entry_id AND r.model = c.model
     AND r.used_model IS NOT DISTINCT FROM c.used_model AND r.scenario = c.scenario AND r.metric = c.metric
     AND r.units IS NOT DISTINCT FROM c.units
    LEFT JOIN base_benchmark_names AS b
      ON b.model IS NOT DISTINCT FROM r.model AND b.used_model IS NOT DISTINCT FROM r.used_model
    WHERE c.change IN ('added', 'changed', 'restored') AND c.metric = 'performance'"""


def changed_rows(con: duckdb.DuckDBPyConnection, source_ids: list[str]) -> pl.DataFrame:
    """The rows the loads of `source_ids` (this run's) added, changed or restored."""
    if not source_ids:
        return pl.DataFrame()
    try:
        return db.query_frame(con, CHANGED_ROWS, [source_ids])
    except duckdb.CatalogException:  # views never built
        return pl.DataFrame()


def _touching(frame: pl.DataFrame, changed: pl.DataFrame, sides) -> pl.DataFrame:
    """The rows of `frame` one of whose sides is a changed row."""
    if frame.height == 0 or changed.height == 0:
        return frame.clear()
    numbered = frame.with_row_index("_row")
    hits = [numbered.join(changed.select(theirs).unique(), left_on=ours, right_on=theirs, how="semi")["_row"]
            for ours, theirs in sides]
    return numbered.filter(pl.col("_row").is_in(pl.concat(hits).implode())).drop("_row")


def _new_rows(before: pl.DataFrame, after: pl.DataFrame, key: list[str], value: str) -> pl.DataFrame:
    """Rows of `after` whose key is new, or whose value moved, largest value first; a gain or speedup
    of 1x or less is no headline (a re-published older side moves its pair to a newer round down)."""
    after = after.filter(pl.col(value) > 1)
    if after.height == 0:
        return after
    if before.height:
        after = after.join(before.select(*key, pl.col(value).alias("_before")), on=key, how="left",
                           nulls_equal=True).filter(pl.col("_before").is_null() | (pl.col("_before") != pl.col(value))
                                                    ).drop("_before")
    return after.sort(value, descending=True)


@dataclass
class RunReport:
    kind: str
    flow_run_id: str | None
    outcomes: list[RoundOutcome]
    rounds: list[dict] = field(default_factory=list)
    new_gains: list[dict] = field(default_factory=list)
    new_speedups: list[dict] = field(default_factory=list)
    verdict_changes: list[dict] = field(default_factory=list)
    newly_due: list[dict] = field(default_factory=list)
    waited: str | None = None
    due: list[dict] = field(default_factory=list)            # every decision due now (a file ingest)
    drift_lines: list[str] = field(default_factory=list)    # one per round with drift, loaded or not
    drifted_rounds: list[str] = field(default_factory=list)  # rounds whose load in this run brought drift
    flagged: list[str] = field(default_factory=list)         # corrected units and anomalies of the loaded rounds
    warnings: list[str] = field(default_factory=list)        # what went wrong beside the rounds (a notification not delivered)
    trees: list[str] = field(default_factory=list)           # one per loaded round whose tree the run read (the watch)

    @property
    def failed(self) -> list[str]:
        return [o.round for o in self.outcomes if o.failed]

    @property
    def changed_anything(self) -> bool:
        return any(o.status in ("loaded", "failed") for o in self.outcomes)

    def headline(self) -> str:
        counts: dict[str, int] = {}
        for o in self.outcomes:
            counts[o.status] = counts.get(o.status, 0) + 1
        tally = ", ".join(f"{n} {status.replace('_', ' ')}" for status, n in counts.items())
        if not self.changed_anything:
            return f"{self.kind}: nothing new; the warehouse is unchanged ({tally or 'no rounds'})"
        return f"{self.kind}: {tally}"

    def table(self) -> list[dict]:
        return self.rounds

    def screen_table(self) -> pl.DataFrame:
        """The per-round table of `--format csv` (every value as text, empty for none)."""
        if not self.rounds:
            return pl.DataFrame()
        return pl.DataFrame(self.rounds).select(pl.col(SCREEN_COLUMNS).cast(pl.String).fill_null(""))

    def terminal_table(self) -> pl.DataFrame:
        """The per-round table a person reads, within 80 columns: rows loaded (read = loaded +
        quarantined), rows quarantined only when a round has any, what was new or changed, the note."""
        if not self.rounds:
            return pl.DataFrame()
        frame = pl.DataFrame(self.rounds, infer_schema_length=None)
        columns = ["round", "status", pl.col("rows_loaded").alias("loaded")]
        if frame["rows_quarantined"].fill_null(0).sum():
            columns.append(pl.col("rows_quarantined").alias("quarantined"))
        return frame.select(*columns, "new", "changed", "note")

    def screen_sections(self) -> list[tuple[str, list[str]]]:
        """What the CLI prints after the table: drift, then the sections of the report."""
        drift = [("Drift (loaded, not failed)", self.drift_lines)] if self.drift_lines else []
        return drift + self.sections()

    def as_dict(self) -> dict:
        """The report for a program: per-round rows, drift lines and the sections' items."""
        return {"kind": self.kind, "flow_run_id": self.flow_run_id, "headline": self.headline(),
                "waited": self.waited, "rounds": self.rounds, "drift": self.drift_lines,
                "sections": dict(self.sections()), "warnings": self.warnings}

    def closing(self, source: str, strict: bool = False) -> Closing:
        """How the run ends for the one who started it: an error line per failed round, a hint when
        the source could not be reached at all, and --strict's drift."""
        failed = [o for o in self.outcomes if o.failed]
        errors = failure_lines(failed)
        hint = None
        if failed and all(o.unreachable for o in failed) \
                and not any(o.status in ("loaded", "unchanged") for o in self.outcomes):
            hint = UNREACHABLE_HINT.format(source=redact(source))
        if strict and self.drifted_rounds:
            errors.append(f"--strict: drift in {', '.join(self.drifted_rounds)}")
        return Closing(errors, hint)

    def markdown(self) -> str:
        lines = [f"# {self.headline()}", ""]
        if self.waited:
            lines += [f"Waited for the warehouse: {self.waited}", ""]
        if self.rounds:
            header = list(self.rounds[0])
            lines += ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
            lines += ["| " + " | ".join(_cell(r[c]) for c in header) + " |" for r in self.rounds]
            lines.append("")
        for title, items in self.sections():
            lines += [f"## {title}", ""] + [f"- {item}" for item in items] + [""]
        return "\n".join(lines)

    def sections(self) -> list[tuple[str, list[str]]]:
        found = [
            (GAINS_TITLE, [_gain_line(g) for g in self.new_gains]),
            ("Largest new generation speedups (same stack, equal size, verified)", [
                f"{s['speedup']:.2f}x {s['part_new']} over {s['part_base']} x{s['part_count']} "
                f"{s['benchmark']} {s['scenario']}, {s['stack_new']}: {s['result_id_base']} -> {s['result_id_new']}"
                for s in self.new_speedups]),
            ("Corrected units and anomalies (out of procurement-grade comparisons)",
             self.flagged),
            ("Claims whose verdict changed", [
                f"{c['id']}: {c['before'] or '(new claim)'} -> {c['after'] or '(gone)'}" for c in self.verdict_changes]),
            ("Decisions that became due", [
                f"{d['id']}: {d['due_because']} (mlperf-wh decisions show {d['id']})" for d in self.newly_due]),
            ("Decisions due for review", [
                f"{d['id']}: {d['title']} ({d['due_because']})" for d in self.due]),
            (TREES_TITLE, self.trees),
        ]
        return [(title, items) for title, items in found if items]


TREES_TITLE = "Submission trees read (run summaries and system descriptions of the rounds loaded)"


@dataclass
class Closing:
    errors: list[str]           # one line each
    hint: str | None = None     # what to do about an unreachable source

    @property
    def failed(self) -> bool:
        return bool(self.errors)


def failure_lines(failed: list[RoundOutcome]) -> list[str]:
    """One line per distinct failure: rounds that failed the same way (the same message but for the
    round's own name and path) share one line, "v4.1, v5.1, v6.0 failed: .../inference_results_v*/...".
    """
    by_message: dict[tuple[str, str], list[str]] = {}
    for o in failed:
        shape = o.message.replace(f"inference_results_{o.round}", "inference_results_v*").replace(o.round, "v*")
        by_message.setdefault((o.status, shape), []).append(o.round)
    return [f"{rounds[0]} {status}: {next(o.message for o in failed if o.round == rounds[0])}" if len(rounds) == 1
            else f"{', '.join(rounds)} {status}: {shape}" for (status, shape), rounds in by_message.items()]


def _cell(value) -> str:
    return "" if value is None else str(value).replace("|", "/")


def _note(outcome: RoundOutcome) -> str:
    if outcome.status != "loaded":
        return outcome.message
    unknown = f"unknown columns: {', '.join(outcome.unknown_columns)}" if outcome.unknown_columns else ""
    return "; ".join(part for part in (outcome.change_summary, unknown) if part)


def build(con: duckdb.DuckDBPyConnection, kind: str, flow_run_id: str | None,
          outcomes: list[RoundOutcome], before: Snapshot | None, waited: str | None = None) -> RunReport:
    """`before`: the answers before the run's first load (None when nothing loaded)."""
    from warehouse.views.drift import drift_rows, of_run, one_line

    report = RunReport(kind, flow_run_id, outcomes, waited=waited)
    drift = drift_rows(con, [o.source_id for o in outcomes if o.source_id])
    report.drift_lines, report.drifted_rounds = of_run(drift, outcomes)
    for o in outcomes:
        terms = drift.filter(pl.col("source_id") == o.source_id) if o.source_id else drift.clear()
        report.rounds.append({
            "round": o.round, "status": o.status, "rows_read": o.rows_read, "rows_loaded": o.rows_loaded,
            "rows_quarantined": o.rows_quarantined,
            "new": o.results_new, "changed": o.results_changed,
            "drift": one_line(o.round, terms).split(": ", 1)[1].split(";")[0] if terms.height else "",
            "note": _note(o),
        })
    report.flagged = flagged_lines(con, [o.round for o in outcomes if o.status == "loaded"])
    if before is None:
        return report
    after = take_snapshot(con)
    # Headlines only from rows this run changed: a pair of old rows is no news, whatever else moved.
    changed = changed_rows(con, [o.source_id for o in outcomes if o.status == "loaded" and o.source_id])
    report.new_gains = _new_rows(before.gains, _touching(after.gains, changed, GAIN_SIDES), GAIN_KEY,
                                 "gain").head(TOP).to_dicts()
    report.new_speedups = _new_rows(before.speedups, _touching(after.speedups, changed, SPEEDUP_SIDES), SPEEDUP_KEY,
                                    "speedup").head(TOP).to_dicts()
    report.verdict_changes = [{"id": i, "before": before.verdicts.get(i), "after": after.verdicts.get(i)}
                              for i in sorted(set(before.verdicts) | set(after.verdicts))
                              if before.verdicts.get(i) != after.verdicts.get(i)]
    due = _frame_or_empty(con, "SELECT id, due_because FROM decisions_due ORDER BY id")
    report.newly_due = [d for d in due.to_dicts() if d["id"] not in before.due] if due.height else []
    return report


FLAGGED = """
    SELECT round, 'units corrected' AS what, count(*) AS n,
           string_agg(DISTINCT benchmark || ' ' || scenario || ' (' || published_units || ' -> ' || units || ')', ', '
                      ORDER BY benchmark || ' ' || scenario || ' (' || published_units || ' -> ' || units || ')') AS which
    FROM stg_results
    WHERE metric = 'performance' AND unit_verdict = 'corrected' AND list_contains(?, round)
    GROUP BY round
    UNION ALL
    SELECT round, rule, count(*), string_agg(DISTINCT result_id, ', ' ORDER BY result_id)
    FROM anomalies WHERE list_contains(?, round)
    GROUP BY round, rule
    ORDER BY round, what"""


def flagged_lines(con: duckdb.DuckDBPyConnection, rounds: list[str]) -> list[str]:
    """Per loaded round: how many units were corrected, and every anomaly rule with its results."""
    if not rounds:
        return []
    try:
        found = db.query_frame(con, FLAGGED, [rounds, rounds])
    except duckdb.CatalogException:  # views never built
        return []
    return [f"{r['round']}: {r['n']} {r['what']} ({r['which']})" for r in found.to_dicts()]


def of_file_ingest(db_file: str, outcomes: list[RoundOutcome]) -> RunReport:
    """The report of `ingest --file` (a flow of its own, without a snapshot before the load): its
    rounds and drift, and every decision due now."""
    with db.connect(db_file, read_only=True) as con:
        report = build(con, "ingest", None, outcomes, before=None)
        due = _frame_or_empty(con, "SELECT id, title, due_because FROM decisions_due ORDER BY id")
    report.due = due.to_dicts() if due.height else []
    return report
