"""One row is "the best" in every answer: accelerator_history, the hardware_best software gains and the
claim audit's figures take, for each hardware and size, the row the leaderboard ranks first (the one
eligibility rule, int_best_eligible), on the shared rounds."""
from __future__ import annotations

import pytest

from tests.shared_rows import published, rows
from tests.test_claims import audit, claim
from tests.test_claims import load as load_claims_text

# The figures a best-of answer states, each with the hardware, size, benchmark, scenario and round it is the
# best of: accelerator_history's rows and both sides of every hardware_best gain.
BEST_OF_FIGURES = """
    SELECT 'accelerator_history' AS answer, round, accelerator, accelerator_count, benchmark, scenario, result_unit,
           result_id, result, procurement_grade
    FROM accelerator_history
    UNION ALL
    SELECT 'software_gains to', round_to, accelerator, accelerator_count, benchmark, scenario, result_unit,
           result_id_to, result_to, procurement_grade
    FROM software_gains WHERE basis = 'hardware_best' AND hardware_kind = 'accelerator'
    UNION ALL
    SELECT 'software_gains from', round_from, accelerator, accelerator_count, benchmark, scenario, result_unit,
           result_id_from, result_from, procurement_grade
    FROM software_gains WHERE basis = 'hardware_best' AND hardware_kind = 'accelerator'
"""

# The leaderboard's best ranked figure of each hardware and size (ranks are per suite, so the figure is
# compared, not the rank): highest throughput, lowest latency.
LEADERS = """
    SELECT round, accelerator, accelerator_count, benchmark, scenario, result_unit,
           CASE WHEN result_unit LIKE 'Latency%' THEN min(result) ELSE max(result) END AS leader
    FROM leaderboard
    WHERE rank_system IS NOT NULL AND NOT mixed_cluster
    GROUP BY round, accelerator, accelerator_count, benchmark, scenario, result_unit
"""


def disagreements(con, figures_sql: str) -> list[dict]:
    """The figures that are not the leaderboard's best ranked figure of their hardware and size, and the
    procurement-grade figures of a hardware and size the leaderboard ranks no row of."""
    return rows(con, f"""
        WITH figures AS ({figures_sql}), leaders AS ({LEADERS})
        SELECT f.*, l.leader
        FROM figures AS f
        LEFT JOIN leaders AS l USING (round, accelerator, accelerator_count, benchmark, scenario, result_unit)
        WHERE f.result_id IS NOT NULL
          AND (f.result IS DISTINCT FROM l.leader AND l.leader IS NOT NULL
               OR l.leader IS NULL AND f.procurement_grade)
        ORDER BY ALL""")


def test_the_best_of_answers_state_the_figure_the_leaderboard_ranks_first(shared_con):
    figures = rows(shared_con, f"SELECT answer, count(*) AS n FROM ({BEST_OF_FIGURES}) GROUP BY ALL ORDER BY ALL")
    assert {f["answer"] for f in figures} == {"accelerator_history", "software_gains from", "software_gains to"}
    assert disagreements(shared_con, BEST_OF_FIGURES) == []


def test_a_figure_other_than_the_ranked_leader_is_a_disagreement(shared_con):
    # the check above sees a figure that is not the ranked leader: RTX PRO 6000 Blackwell Server Edition x8
    # llama2-70b-99 Offline v6.0, ASUSTeK's 6.0-0004 (27812.9) below HPE's 6.0-0047 (29908.4), which the
    # leaderboard ranks (a superlinear scaling pair questions it; while the pair blamed it, 6.0-0004 led)
    asus = published("v6.0", "6.0-0004", "llama2-70b-99", "Offline")
    stale = f"""
        SELECT 'stale' AS answer, 'v6.0' AS round, 'RTX PRO 6000 Blackwell Server Edition' AS accelerator, 8::BIGINT AS accelerator_count,
               'llama2-70b-99' AS benchmark, 'Offline' AS scenario, 'Tokens/s' AS result_unit,
               '6.0-0004' AS result_id, {asus}::DOUBLE AS result, true AS procurement_grade"""
    assert [(d["result_id"], d["result"], d["leader"]) for d in disagreements(shared_con, stale)] == [
        ("6.0-0004", 27812.9, published("v6.0", "6.0-0047", "llama2-70b-99", "Offline"))]


def test_the_claim_audit_takes_the_same_best_rows(private_con, tmp_path):
    # A generation claim whose baseline is the RTX PRO 6000 x8 on llama2-70b-99 Offline in v6.0 (B200 x8 over
    # it): the baseline is HPE's 6.0-0047, the row the leaderboard ranks (a pair questions it; nothing of
    # its own contradicts it).
    load_claims_text(private_con, tmp_path, claim(
        "b200-over-rtx-pro", model="llama2-70b-99", scenario="Offline", accelerator="B200",
        baseline_accelerator="RTX PRO 6000 Blackwell Server Edition", total_accelerators=8, multiplier=3.0))
    row = audit(private_con, "b200-over-rtx-pro")
    base = [r for r in row["rows_used"] if r["role"] == "base"]
    assert [(r["result_id"], r["result"]) for r in base] == [("6.0-0047", 29908.4)]
    assert row["findings_used"] == []
    figures = f"""
        SELECT 'claim_audit' AS answer, u.round, u.accelerator, u.accelerator_count,
               c.benchmark, u.scenario, u.result_unit, u.result_id, u.result,
               len(c.findings_used) = 0 AS procurement_grade
        FROM claim_audit AS c, unnest(c.rows_used) AS t(u)
        WHERE c.id = 'b200-over-rtx-pro'"""
    assert disagreements(private_con, figures) == []
    new = [r for r in row["rows_used"] if r["role"] == "new"][0]
    assert row["recomputed"] == pytest.approx(new["result"] / 29908.4, rel=1e-12)
