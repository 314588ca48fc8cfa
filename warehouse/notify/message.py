"""One message per run, for the analyst on call: the title names the round(s); then the answers that
moved (new leaders with their result IDs, the gap and what became of the previous leader, claims
whose grade changed, decisions due), then the published rows each load added, changed and withdrew
(the changed ones by result ID, old -> new), then where the report is. A failed run's message is its error line(s) first. A run that changed
nothing composes no message (None)."""
from __future__ import annotations

from dataclasses import dataclass, replace

import duckdb

from warehouse import settings
from warehouse.figures import human_number
from warehouse.ingest.changes import LATEST_LOAD_CHANGES
from warehouse.notify.answers import Move
from warehouse.notify.deliver import Message, capped
from warehouse.twins import merged_subject, twin_key

SHOWN = 8          # lines per section; the rest is counted, and in answer_changes / published_changes
CHANGED_SHOWN = 10
LINE_MAX = 500     # characters of one line (a published note may be megabytes); the rest is counted
KIND_WORDS = {"leader_per_accelerator": "per accelerator", "leader_per_rack": "per rack"}


@dataclass(frozen=True)
class RoundRows:
    round: str
    first_load: bool
    added: int
    changed: int
    withdrawn: int
    corrections: list[str]     # '5.1-0001 llama2-70b-99 Interactive performance: value 8840.42 -> 17680.84'
    quarantined: int = 0       # published in a record that failed: the last good value kept, stale
    restored: int = 0          # stale rows published good again

    @property
    def any(self) -> bool:
        return bool(self.added or self.changed or self.withdrawn or self.quarantined or self.restored)

    def line(self) -> str:
        stale = "".join(f", {n:,} {word}" for n, word in ((self.quarantined, "quarantined"), (self.restored, "restored"))
                        if n)
        counts = f"{self.added:,} added, {self.changed:,} changed, {self.withdrawn:,} withdrawn{stale} result rows"
        return f"{self.round}: {counts}" + (" (first load)" if self.first_load else "")


# A quarantine's reason quotes the published value whole (a 20 MB string, from a hostile table); a
# message line shows its start and how much more there was (the ledger keeps it whole).
REASON_SHOWN = 200
SHOWN_REASON = (f"CASE WHEN length(reason) <= {REASON_SHOWN} THEN coalesce(reason, '') "
                f"ELSE left(reason, {REASON_SHOWN}) || '... (' || (length(reason) - {REASON_SHOWN}) "
                "|| ' more characters)' END")


# Result rows per kind of change: a row counts once, however many of its fields changed (the key
# schemas.results.ROW_KEY; changes.changed_results counts the load's line alike).
RESULTS_PER_CHANGE = ", ".join(
    f"count(DISTINCT (entry_id, model, used_model, scenario, metric, units)) FILTER (WHERE change = '{change}')"
    for change in ("added", "changed", "withdrawn", "quarantined", "restored"))


def rows_of_loads(con: duckdb.DuckDBPyConnection, source_ids: list[str]) -> list[RoundRows]:
    if not source_ids:
        return []
    cursor = con.execute(f"""
        WITH c AS ({LATEST_LOAD_CHANGES})
        SELECT round, any_value(first), {RESULTS_PER_CHANGE},
               list({{'who': coalesce(result_id, entry_id) || ' ' || model || ' ' || scenario || ' ' || metric,
                     'change': change, 'field': field, 'before': published_before, 'after': published_after,
                     'reason': {SHOWN_REASON}}}
                    ORDER BY result_id, model, scenario, metric, field) FILTER (WHERE change <> 'added')
        FROM c GROUP BY round ORDER BY round""", [source_ids])
    return [RoundRows(r, bool(first), a, c, w, [correction_line(row) for row in corrections or []], q, s)
            for r, first, a, c, w, q, s, corrections in cursor.fetchall()]


def correction_line(row: dict) -> str:
    """'5.1-0001 llama2-70b-99 Interactive performance: value 8,840 -> 13,261', the figures as people
    read them (warehouse.figures), with every digit where the rounded two would read alike."""
    return f"{row['who']}: {change_words(row)}"


def change_words(row: dict) -> str:
    """What one result_changes row says: 'value 8,840 -> 13,261', 'quarantined, value 8,840 kept (...)'."""
    change, before, after = row["change"], row["before"], row["after"]
    if row["field"] == "value":
        before, after = figures_of(before, after)
    if change == "changed":
        return f"{row['field']} {before or '(none)'} -> {after or '(none)'}"
    if change == "quarantined":
        return f"quarantined, value {before} kept ({row['reason']})"
    if change == "restored":
        return f"restored, value {before} -> {after}"
    return f"{change} ({before or after})"


def figures_of(*published: str | None) -> list[str | None]:
    """Published numbers (as text) for people; as published when rounding would hide the difference."""
    numbers = [_number(text) for text in published]
    if any(n is None for n, text in zip(numbers, published) if text is not None):
        return list(published)
    shown = [human_number(n) if n is not None else None for n in numbers]
    if len({v for v in shown if v is not None}) < len({n for n in numbers if n is not None}):
        return [f"{n:,}" if n is not None else None for n in numbers]
    return shown


def _number(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        return float(text)
    except ValueError:
        return None


def _section(title: str, lines: list[str], shown: int = SHOWN, more: str = "") -> list[str]:
    if not lines:
        return []
    out = [f"{title}:"] + [f"- {capped(line, LINE_MAX)}" for line in lines[:shown]]
    if len(lines) > shown:
        out.append(f"- and {len(lines) - shown} more{more}")
    return out + [""]


def merged_twins(leaders: list[Move]) -> list[Move]:
    """One line for a benchmark's accuracy targets when one run leads both alike (llama2-70b-99 and
    -99.9 Offline, the same result and figure): 'llama2-70b-99 / -99.9 Offline Tokens/s'."""
    groups: dict[tuple, list[Move]] = {}
    for move in leaders:
        twin = twin_key(move.subject)
        key = (move.kind, *twin, move.after, move.before) if twin else (move.kind, move.subject)
        groups.setdefault(key, []).append(move)
    return [moves[0] if len(moves) == 1 else replace(moves[0], subject=merged_subject([m.subject for m in moves]))
            for moves in groups.values()]


def leader_line(move: Move) -> str:
    line = f"{KIND_WORDS[move.kind]}, {move.subject}: {move.after}"
    if move.before is None:
        return f"{line} (first leader)"
    because = f" ({move.because})" if move.because else ""
    if move.gap is not None and move.before.split(" ", 1)[0] != move.result_id:
        return f"{line}, {move.gap:.2f}x the previous leader {move.before}{because}"
    return f"{line}, was {move.before}{because}"


def report_pointer(flow_run_id: str | None) -> str:
    current = settings.current()
    if current.notify_link:
        return current.notify_link
    if current.report_dir:
        return f"{current.report_dir}/index.html"
    where = f" (Prefect flow run {flow_run_id})" if flow_run_id else ""
    return ("mlperf-wh sql \"SELECT * FROM published_changes WHERE NOT first_load ORDER BY loaded_at DESC\"; "
            f"mlperf-wh loads{where}")


def compose(kind: str, error_lines: list[str], failed_rounds: list[str], moves: list[Move], due: list[Move],
            rows: list[RoundRows], flow_run_id: str | None, trees: list[str] = ()) -> Message | None:
    """The run's message, or None when it changed nothing and nothing failed; `trees`: the lines of
    the loaded rounds' trees the run read (the watch)."""
    changed = [r for r in rows if r.any]
    leaders = merged_twins([m for m in moves if m.kind in KIND_WORDS])
    grades = [m for m in moves if m.kind == "claim_grade"]
    if not (error_lines or changed or leaders or grades or due):
        return None
    rounds = sorted({r.round for r in changed} | set(failed_rounds))
    body = []
    if error_lines:
        body += [f"error: {capped(line, LINE_MAX)}" for line in error_lines] + [""]
    body += _section("New leaders (the best of every loaded round)", [leader_line(m) for m in leaders],
                     more=' (mlperf-wh sql "SELECT * FROM answer_changes ORDER BY changed_at DESC")')
    body += _section("Claims whose grade changed", [f"{m.subject}: {m.before} -> {m.after}" for m in grades])
    body += _section("Decisions due for review", [f"{m.subject}: {m.after} (mlperf-wh decisions show {m.subject})"
                                                 for m in due])
    for r in changed:
        body += _section(f"Rows {r.line()}", r.corrections, CHANGED_SHOWN, " (published_changes)") or [
            f"Rows {r.line()}", ""]
    body += _section("Submission trees read", list(trees))
    body.append(f"Report: {report_pointer(flow_run_id)}")
    return Message(_title(kind, rounds, error_lines, changed, leaders, due), "\n".join(body), bool(error_lines))


def _title(kind: str, rounds: list[str], error_lines: list[str], changed: list[RoundRows], leaders: list[Move],
           due: list[Move]) -> str:
    which = ", ".join(rounds)
    if error_lines:
        return f"MLPerf {kind} failed: {which}" if which else f"MLPerf {kind} failed"
    if changed:
        firsts = [r.round for r in changed if r.first_load]
        verb = "loaded" if len(firsts) == len(changed) else "re-published" if not firsts else "loaded and re-published"
        tail = f", {len(leaders)} new leader{'s' if len(leaders) != 1 else ''}" if leaders else ""
        return f"MLPerf {which} {verb}{tail}"
    if due:
        return f"MLPerf: {len(due)} decision{'s' if len(due) != 1 else ''} due for review"
    return f"MLPerf {kind}: answers changed"
