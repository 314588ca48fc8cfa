"""What a run moved in the answers: the best result of every loaded round per accelerator and per rack
(for each benchmark, scenario and unit), each claim's grade, and the decisions due: taken before the
run's first load and after its rebuild, compared, and recorded in `answer_changes`."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone

import duckdb

from warehouse.figures import human_number

# The best of every loaded round: the rank-1 rows of each round, the highest figure among them (ties:
# the earlier round keeps the lead). Per accelerator from the leaderboard (verified, no finding);
# per rack from rack_throughput (measured racks and estimates apart, as it ranks them).
LEADERS = {
    "leader_per_accelerator": """
        SELECT benchmark || ' ' || scenario || ' ' || result_unit AS subject, result_id, round, accelerator,
               submitter, result_per_accelerator AS figure, 'per accelerator' AS per, benchmark, scenario
        FROM leaderboard WHERE rank_per_accelerator = 1
        QUALIFY row_number() OVER (PARTITION BY benchmark, scenario, result_unit
                                   ORDER BY result_per_accelerator DESC, round, result_id) = 1""",
    "leader_per_rack": """
        SELECT benchmark || ' ' || scenario || ' ' || throughput_unit
               || CASE WHEN measured_rack THEN ' (measured rack)' ELSE ' (estimated rack)' END AS subject,
               result_id, round, accelerator, submitter, throughput_per_rack AS figure, 'per rack' AS per,
               benchmark, scenario
        FROM rack_throughput WHERE rank_per_rack = 1
        QUALIFY row_number() OVER (PARTITION BY benchmark, scenario, throughput_unit, measured_rack
                                   ORDER BY throughput_per_rack DESC, round, result_id) = 1""",
}


@dataclass
class Answers:
    leaders: dict[str, dict[str, dict]] = field(default_factory=dict)  # kind -> subject -> leader row
    grades: dict[str, str | None] = field(default_factory=dict)        # claim id -> grade
    due: dict[str, str] = field(default_factory=dict)                  # decision id -> due_because


@dataclass(frozen=True)
class Move:
    kind: str           # leader_per_accelerator | leader_per_rack | claim_grade | decision_due
    subject: str
    after: str
    before: str | None = None
    result_id: str | None = None
    round: str | None = None
    gap: float | None = None
    previous: tuple[str, str, str] | None = None  # a leader that lost its place: its result ID, benchmark, scenario
    because: str | None = None                     # what became of it (notify/fates.py), in words


def _rows(con: duckdb.DuckDBPyConnection, sql: str) -> list[dict]:
    try:
        cursor = con.execute(sql)
    except duckdb.CatalogException:  # the views were never built: no answers yet
        return []
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


def take(con: duckdb.DuckDBPyConnection) -> Answers:
    leaders = {kind: {r["subject"]: r for r in _rows(con, sql)} for kind, sql in LEADERS.items()}
    grades = {r["id"]: r["grade"] for r in _rows(con, "SELECT id, grade FROM claim_audit")}
    due = {r["id"]: r["due_because"] for r in _rows(con, "SELECT id, due_because FROM decisions_due")}
    return Answers(leaders, grades, due)


def _leader_words(row: dict) -> str:
    return (f"{row['result_id']} ({row['round']}, {row['accelerator']}, {row['submitter']}): "
            f"{human_number(row['figure'])} {row['per']}")


def leader_moves(before: Answers, after: Answers) -> list[Move]:
    """A subject whose best is another result, or the same result with another figure (a correction);
    the largest gains first, then subjects that had no leader before."""
    moves = []
    for kind, leaders in after.leaders.items():
        for subject, now in leaders.items():
            was = before.leaders.get(kind, {}).get(subject)
            if was is not None and (was["result_id"], was["figure"]) == (now["result_id"], now["figure"]):
                continue
            gap = now["figure"] / was["figure"] if was is not None and was["figure"] else None
            previous = (was["result_id"], was["benchmark"], was["scenario"]) \
                if was is not None and was["result_id"] != now["result_id"] else None
            moves.append(Move(kind, subject, _leader_words(now), _leader_words(was) if was else None,
                              now["result_id"], now["round"], gap, previous))
    return sorted(moves, key=lambda m: (m.gap is None, -(m.gap or 0), m.kind, m.subject))


def grade_moves(before: Answers, after: Answers) -> list[Move]:
    return [Move("claim_grade", claim, after.grades.get(claim) or "(gone)",
                 before.grades.get(claim) or ("(new claim)" if claim not in before.grades else "(no grade)"))
            for claim in sorted(set(before.grades) | set(after.grades))
            if before.grades.get(claim) != after.grades.get(claim)]


def moves_between(before: Answers, after: Answers) -> list[Move]:
    return leader_moves(before, after) + grade_moves(before, after)


def due_moves(due: dict[str, str]) -> list[Move]:
    return [Move("decision_due", decision, because) for decision, because in sorted(due.items())]


def record(con: duckdb.DuckDBPyConnection, moves: list[Move], run_kind: str, flow_run_id: str | None) -> None:
    if not moves:
        return
    # One statement, the moves as lists side by side: executemany is a statement per row, and a first
    # backfill records every answer (0.3 s of its run for a few hundred rows).
    columns = ("kind", "subject", "result_id", "round", "before", "after", "because")
    con.execute(
        "INSERT INTO answer_changes (changed_at, flow_run_id, run_kind, kind, subject, result_id, round, "
        "before, after, because, gap) SELECT ?, ?, ?, " + ", ".join(["unnest(?::VARCHAR[])"] * len(columns))
        + ", unnest(?::DOUBLE[])",
        [datetime.now(timezone.utc), flow_run_id, run_kind,
         *([getattr(m, c) for m in moves] for c in columns), [m.gap for m in moves]])
