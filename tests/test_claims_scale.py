"""A "software alone" claim is audited at equal system size (claim_audit: scale_changed,
recomputed_cross_scale, rows_cross_scale).

Both cases are real v5.1 -> v6.0 rows; `published()` re-reads every value from the mirror.
"""
from __future__ import annotations

import pytest

from tests.shared_rows import published
from tests.test_claims import COMPARABLE, DIRECTIONAL, audit, claim, load, warehouse  # noqa: F401 (a fixture)

GB200_INTERACTIVE = dict(vendor="NVIDIA", kind="software_gain", round_from="v5.1", submitter="NVIDIA",
                         accelerator="GB200", model="llama2-70b-99", scenario="Interactive", multiplier=1.4)
HPE_RTX_PRO = dict(vendor="HPE", kind="software_gain", round_from="v5.1", submitter="HPE",
                   accelerator="RTX PRO 6000 Blackwell", model="llama3.1-8b", scenario="Offline", multiplier=1.067)


def ids(rows_of_figure) -> list[tuple[str, int]]:
    return [(r["result_id"], r["total_accelerators"]) for r in rows_of_figure]


def test_a_gain_across_sizes_with_no_equal_size_figure_is_directional(warehouse, tmp_path):
    # NVIDIA GB200 llama2-70b-99 Interactive: v5.1 5.1-0070 on 4 GPUs, v6.0 6.0-0075 on a 72-GPU
    # NVL72. Per GPU: (6.0-0075 / 72) / (5.1-0070 / 4) = 1.4098, a "1.4x from software" that moves from
    # a tray to a rack. NVIDIA ran no 4-GPU GB200 llama2 in v6.0 and nobody a 72-GPU one in v5.1:
    # no equal-size figure exists, so the claim stays directional whatever its stage.
    old = published("v5.1", "5.1-0070", "llama2-70b-99", "Interactive")
    new = published("v6.0", "6.0-0075", "llama2-70b-99", "Interactive")
    load(warehouse, tmp_path, claim("gb200-sw", **GB200_INTERACTIVE, cited_result_ids=["5.1-0070", "6.0-0075"]))
    row = audit(warehouse, "gb200-sw")
    assert row["recomputed"] == row["recomputed_as_cited"] == pytest.approx((new / 72) / (old / 4), rel=1e-12)
    assert row["recomputed"] == pytest.approx(1.4098, abs=5e-5)
    assert row["scale_changed"] is True
    assert ids(row["rows_used"]) == [("6.0-0075", 72), ("5.1-0070", 4)]
    assert row["recomputed_cross_scale"] == row["recomputed"]
    assert (row["verdict"], row["procurement_grade"]) == (DIRECTIONAL, False)
    assert row["verdict_reason"].startswith("the gain compares a 4-accelerator system with a 72-accelerator one")


def test_the_same_scale_figure_is_audited_and_the_claims_own_figure_shown_beside_it(warehouse, tmp_path):
    # HPE RTX PRO 6000 llama3.1-8b Offline. The claim cites 5.1-0051 (8 GPUs, 46841.8 tokens/s) and
    # 6.0-0052 (2 GPUs, 12495.2): per GPU (12495.2 / 2) / (46841.8 / 8) = 1.06701, across sizes.
    # At equal size: HPE's v6.0 8-GPU 6.0-0047 49580.2 over the best verified v5.1 8-GPU, HPE's own
    # 5.1-0051: 49580.2 / 46841.8 = 1.05846, 0.8% from the claimed 1.067: within 5%, so the claim is
    # comparable, on the equal-size figure; the cross-size figure and its rows stay beside it.
    assert published("v5.1", "5.1-0051", "llama3.1-8b", "Offline") == 46841.8
    assert published("v6.0", "6.0-0052", "llama3.1-8b", "Offline") == 12495.2
    assert published("v6.0", "6.0-0047", "llama3.1-8b", "Offline") == 49580.2
    load(warehouse, tmp_path, claim("hpe-sw", **HPE_RTX_PRO, cited_result_ids=["5.1-0051", "6.0-0052"])
         + claim("hpe-sw-uncited", **HPE_RTX_PRO))
    for claim_id in ("hpe-sw", "hpe-sw-uncited"):
        row = audit(warehouse, claim_id)
        assert row["recomputed"] == pytest.approx(49580.2 / 46841.8, rel=1e-12)
        assert row["scale_changed"] is False
        assert ids(row["rows_used"]) == [("6.0-0047", 8), ("5.1-0051", 8)]
        assert row["recomputed_cross_scale"] == pytest.approx((12495.2 / 2) / (46841.8 / 8), rel=1e-12)
        assert ids(row["rows_cross_scale"]) == [("6.0-0052", 2), ("5.1-0051", 8)]
        assert row["grade"] == "holds"
        # 6.0-0047 is blamed by a pair finding: HPE's 4-GPU 6.0-0054 (23556.7) to its 8-GPU 6.0-0047
        # (49580.2) scales (49580.2 / 23556.7) / (8 / 4) = 1.0524, above 1.05. The finding follows the row
        # into the claim: the figure holds, the verdict is directional.
        assert (49580.2 / published("v6.0", "6.0-0054", "llama3.1-8b", "Offline")) / 2 == pytest.approx(1.0524, abs=5e-5)
        assert row["findings_used"] == ["scaling_superlinear"]
        assert row["verdict"] == DIRECTIONAL
        assert row["verdict_reason"] == "a row it rests on breaks an anomaly rule (scaling_superlinear; see anomalies)"
    assert audit(warehouse, "hpe-sw")["recomputed_as_cited"] == pytest.approx((12495.2 / 2) / (46841.8 / 8))


def test_a_claim_far_from_its_equal_size_figure_says_both(warehouse, tmp_path):
    # The same HPE entries, claimed as 1.15x: at equal size 1.05846 is 8.0% below it.
    load(warehouse, tmp_path, claim("hpe-sw-high", **{**HPE_RTX_PRO, "multiplier": 1.15},
                                    cited_result_ids=["5.1-0051", "6.0-0052"]))
    row = audit(warehouse, "hpe-sw-high")
    assert row["verdict"] == DIRECTIONAL
    # 1.15 is (1.15 / 1.0585 - 1) = 8.6% above the equal-size figure and 1.15 / 1.06701 = 7.8% above the
    # per-GPU figure across sizes: overstated, and the grade says both figures
    assert row["grade"] == "overstated"
    assert "at equal size (8 accelerators, Offline) 1.0585" in row["grade_reason"]
    assert "across sizes 1.067" in row["grade_reason"]
