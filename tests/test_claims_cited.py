"""Claims audited as cited, and against the best verified baseline of the round (claim_audit).

Every expected number was read by hand from
../shared/mlcommons/mirror/inference_results_vX.Y/main/summary_results.json; comments name the result
IDs and raw values, the arithmetic is written out, and `published()` re-reads the raw values from the
JSON so a typo in a literal fails loudly.
"""
from __future__ import annotations

import csv
import io
import json
import shutil

import pytest

from tests.cli_tables import table_rows
from tests.shared_rows import audit, ledger_warehouse, one, published
from tests.test_claims import COMPARABLE, DIRECTIONAL, UNCLASSIFIED, claim, decision
from warehouse.ledger.claims import LedgerError, claims_frame

# v6.0 whisper Offline, 8 accelerators (closed, available, verified):
#   6.0-0098 Supermicro B300 50562.2 samples/s   (the best B300 x8)
#   6.0-0099 Supermicro B200 42389.7             (Supermicro's own older generation)
#   6.0-0040 Google     B200 49327.2             (the best verified B200 x8 of the round)
B300_SUPERMICRO, B200_SUPERMICRO, B200_GOOGLE = 50562.2, 42389.7, 49327.2
WHISPER_B300_VS_B200 = dict(vendor="Supermicro", submitter="Supermicro", model="whisper", scenario="Offline",
                            accelerator="B300", baseline_accelerator="B200", total_accelerators=8)
# v6.0 deepseek-r1 Offline, NVIDIA GB300: 6.0-0078 at 72 GPUs 647076 tokens/s, 6.0-0076 at 288 GPUs
# 2494310; the best verified GB300 x72 Offline is Nebius's 6.0-0081, 673936.
GB300_72, GB300_288, GB300_72_NEBIUS = 647076, 2494310, 673936
GB300_DSR1_72_TO_288 = dict(submitter="NVIDIA", accelerator="GB300", scenario="Offline",
                            baseline_total_accelerators=72, total_accelerators=288)
# v6.0 wan-2.2-t2v-a14b, NVIDIA, one node of 4: GB300 6.0-0077, GB200 6.0-0074.
WAN_GB300_S, WAN_GB200_S = 30.910508163, 40.243719116      # SingleStream, Latency (s)
WAN_GB300_OFF, WAN_GB200_OFF = 0.036622, 0.0269817         # Offline, Samples/s
WAN_GB300_VS_GB200 = dict(model="wan-2.2-t2v-a14b", accelerator="GB300", baseline_accelerator="GB200",
                          total_accelerators=4)

LEDGER = "".join([
    claim("gen-cited", **WHISPER_B300_VS_B200, multiplier=1.19, cited_result_ids=["6.0-0099", "6.0-0098"]),
    claim("gen-uncited", **WHISPER_B300_VS_B200, multiplier=1.19),
    # NVIDIA GB300 vs GB200 deepseek-r1 Server at 72, citing its own entries; its GB200 6.0-0075 is
    # the round's best verified GB200 x72 Server.
    claim("gen-cited-best-base", scenario="Server", accelerator="GB300", baseline_accelerator="GB200",
          total_accelerators=72, multiplier=1.19, cited_result_ids=["6.0-0078", "6.0-0075"]),
    claim("cite-missing", **WHISPER_B300_VS_B200, multiplier=1.19, stage="preview",
          cited_result_ids=["6.0-0098", "6.0-9999"]),
    claim("cite-other-accelerator", **WHISPER_B300_VS_B200, multiplier=1.19,
          cited_result_ids=["6.0-0098", "6.0-0078"]),
    claim("cite-other-round", **WHISPER_B300_VS_B200, multiplier=1.19, stage="post_submission_unverified",
          cited_result_ids=["6.0-0098", "5.1-0069"]),
    claim("cite-other-benchmark", model="whisper", scenario="Offline", accelerator="GB300",
          baseline_accelerator="GB200", multiplier=1.19, cited_result_ids=["6.0-0078", "6.0-0075"]),
    claim("cite-two-new", **{**WHISPER_B300_VS_B200, "submitter": None}, multiplier=1.19,
          cited_result_ids=["6.0-0098", "6.0-0039"]),  # two B300 entries, Supermicro's and GigaComputing's
    claim("cite-partner-rack", kind="scale_speedup", **GB300_DSR1_72_TO_288, multiplier=3.7,
          cited_result_ids=["6.0-0076", "6.0-0081"]),   # Nebius's 72-GPU rack under NVIDIA's claim
    claim("cite-other-size", kind="scale_speedup", **GB300_DSR1_72_TO_288, multiplier=3.7,
          cited_result_ids=["6.0-0076", "6.0-0082"]),   # Nebius's GB300 x8
    claim("absolute-cited", kind="absolute", submitter="NVIDIA", accelerator="GB300", scenario="Offline",
          total_accelerators=72, multiplier=650000.0, cited_result_ids=["6.0-0078"]),
    claim("scale-cited", kind="scale_speedup", **GB300_DSR1_72_TO_288, multiplier=3.85,
          cited_result_ids=["6.0-0078", "6.0-0076"]),
    claim("scaling-cited", kind="scaling_efficiency", **GB300_DSR1_72_TO_288, multiplier=0.99,
          cited_result_ids=["6.0-0076", "6.0-0078"]),
    claim("wan-latency", **WAN_GB300_VS_GB200, direction="latency", multiplier=1.3,
          cited_result_ids=["6.0-0077", "6.0-0074"]),
    claim("wan-throughput", **WAN_GB300_VS_GB200, multiplier=1.3, cited_result_ids=["6.0-0077", "6.0-0074"]),
    claim("untether-latency-scale", vendor="UntetherAI", round="v4.1", model="resnet", kind="scale_speedup",
          direction="latency", submitter="UntetherAI", accelerator="speedAI240 Slim",
          baseline_total_accelerators=1, total_accelerators=4, multiplier=1.7,
          cited_result_ids=["v4.1-0067", "v4.1-0069"]),
    claim("untether-latency-scale-uncited", vendor="UntetherAI", round="v4.1", model="resnet",
          kind="scale_speedup", direction="latency", submitter="UntetherAI", accelerator="speedAI240 Slim",
          baseline_total_accelerators=1, total_accelerators=4, multiplier=1.7),
    claim("sw-cited", vendor="Google", kind="software_gain", round_from="v5.1", submitter="Google",
          accelerator="B200", scenario="Server", total_accelerators=8, multiplier=2.8,
          cited_result_ids=["5.1-0047", "6.0-0040"]),
])


@pytest.fixture(scope="module")
def audited(shared_warehouse, tmp_path_factory):
    """One private warehouse with the ledger above loaded, the views materialized once."""
    directory = tmp_path_factory.mktemp("cited")
    (directory / "claims.toml").write_text(LEDGER, encoding="utf-8")
    (directory / "decisions.toml").write_text(decision("buy-b300", ["gen-cited", "gen-cited-best-base"]),
                                              encoding="utf-8")
    with ledger_warehouse(shared_warehouse, directory, [directory / "claims.toml"],
                          [directory / "decisions.toml"]) as con:
        yield con


def ids(rows_used) -> list[tuple[str, str]]:
    return [(r["role"], r["result_id"]) for r in rows_used]


def test_the_numbers_below_are_the_published_ones():
    assert published("v6.0", "6.0-0098", "whisper", "Offline") == B300_SUPERMICRO
    assert published("v6.0", "6.0-0099", "whisper", "Offline") == B200_SUPERMICRO
    assert published("v6.0", "6.0-0040", "whisper", "Offline") == B200_GOOGLE
    assert published("v6.0", "6.0-0078", "deepseek-r1", "Offline") == GB300_72
    assert published("v6.0", "6.0-0076", "deepseek-r1", "Offline") == GB300_288
    assert published("v6.0", "6.0-0081", "deepseek-r1", "Offline") == GB300_72_NEBIUS
    assert published("v6.0", "6.0-0077", "wan-2.2-t2v-a14b", "SingleStream") == WAN_GB300_S
    assert published("v6.0", "6.0-0074", "wan-2.2-t2v-a14b", "SingleStream") == WAN_GB200_S
    assert published("v6.0", "6.0-0077", "wan-2.2-t2v-a14b", "Offline") == WAN_GB300_OFF
    assert published("v6.0", "6.0-0074", "wan-2.2-t2v-a14b", "Offline") == WAN_GB200_OFF


def test_generation_claim_recomputes_from_exactly_the_cited_entries(audited):
    # As cited: Supermicro B300 6.0-0098 over Supermicro B200 6.0-0099: 50562.2 / 42389.7 = 1.1928;
    # a claim of 1.19 is 0.2% below: the verdict uses this figure, every row verified.
    row = audit(audited, "gen-cited")
    assert row["recomputed_as_cited"] == pytest.approx(B300_SUPERMICRO / B200_SUPERMICRO, rel=1e-12)
    assert row["recomputed"] == row["recomputed_as_cited"]
    assert row["relative_difference"] == pytest.approx((B300_SUPERMICRO / B200_SUPERMICRO - 1.19) / 1.19)
    assert ids(row["rows_used"]) == ids(row["rows_as_cited"]) == [("new", "6.0-0098"), ("base", "6.0-0099")]
    assert row["recomputed_scenario"] == "Offline"
    assert row["verdict"] == COMPARABLE and row["procurement_grade"] is True


def test_the_same_claim_against_the_best_verified_baseline_gives_the_other_figure(audited):
    # Best-vs-best: the cited B300 (50562.2) over the round's best verified B200 x8 whisper Offline,
    # Google's 6.0-0040 (49327.2): 50562.2 / 49327.2 = 1.0250 -- not 1.19.
    row = audit(audited, "gen-cited")
    assert row["recomputed_best"] == pytest.approx(B300_SUPERMICRO / B200_GOOGLE, rel=1e-12)
    assert ids(row["rows_best"]) == [("new", "6.0-0098"), ("base", "6.0-0040")]
    assert (row["best_baseline_result_id"], row["best_baseline_submitter"]) == ("6.0-0040", "Google")
    # Uncited, the verdict uses that figure: (1.0250 - 1.19) / 1.19 = -13.9%, not reproduced.
    uncited = audit(audited, "gen-uncited")
    assert uncited["recomputed_as_cited"] is None and uncited["rows_as_cited"] == []
    assert uncited["recomputed"] == uncited["recomputed_best"] == pytest.approx(B300_SUPERMICRO / B200_GOOGLE)
    assert uncited["relative_difference"] == pytest.approx((B300_SUPERMICRO / B200_GOOGLE - 1.19) / 1.19)
    assert uncited["verdict"] == DIRECTIONAL
    assert uncited["weak_baseline"] is None  # no cited baseline to judge


def test_weak_baseline_when_a_partner_beats_the_cited_baseline(audited):
    # Google's verified B200 x8 (49327.2) beats the cited Supermicro B200 (42389.7) by more than 2%:
    # 42389.7 / 49327.2 = 0.859 < 0.98.
    assert B200_SUPERMICRO / B200_GOOGLE < 0.98
    assert audit(audited, "gen-cited")["weak_baseline"] is True
    # NVIDIA's GB200 x72 deepseek-r1 Server 6.0-0075 (336106) is the round's best verified GB200 x72:
    # as cited 400437 / 336106 = 1.1914, and the baseline is not weak. Best against best reads the data
    # alone, whatever is cited: Nebius' GB300 x72 6.0-0081 (575580) over it, 575580 / 336106 = 1.7125.
    assert published("v6.0", "6.0-0078", "deepseek-r1", "Server") == 400437
    assert published("v6.0", "6.0-0075", "deepseek-r1", "Server") == 336106
    assert published("v6.0", "6.0-0081", "deepseek-r1", "Server") == 575580
    strong = audit(audited, "gen-cited-best-base")
    assert strong["recomputed_as_cited"] == pytest.approx(400437 / 336106)
    assert strong["recomputed_best"] == pytest.approx(575580 / 336106)
    assert strong["weak_baseline"] is False and strong["best_baseline_result_id"] == "6.0-0075"


@pytest.mark.parametrize("claim_id, reason", [
    ("cite-missing", "cited entry 6.0-9999 is in no loaded round"),
    ("cite-other-accelerator", "cited entry 6.0-0078 is on GB300, the claim compares B300 with B200"),
    ("cite-other-round", "cited entry 5.1-0069 is from round v5.1, the claim is about v6.0"),
    ("cite-other-benchmark", "cited entry 6.0-0078 has no whisper Offline throughput result; "
                             "cited entry 6.0-0075 has no whisper Offline throughput result"),
    ("cite-two-new", "cited entries 6.0-0098, 6.0-0039 all stand for the new side"),
    ("cite-partner-rack", "cited entry 6.0-0081 was submitted by Nebius, the claim names NVIDIA"),
    ("cite-other-size", "cited entry 6.0-0082 has 8 accelerators, the claim compares 72 with 288"),
])
def test_cited_entries_that_do_not_match_make_the_claim_unclassified(audited, claim_id, reason):
    # Whatever the stage (preview, post-submission, verified), and with no fallback to other rows.
    row = audit(audited, claim_id)
    assert row["verdict"] == UNCLASSIFIED and row["procurement_grade"] is False
    assert row["citation_problem"] == reason
    assert row["verdict_reason"] == "as cited: " + reason
    assert row["recomputed"] is None and row["recomputed_as_cited"] is None
    assert row["rows_used"] == [] and row["weak_baseline"] is None


def test_a_citation_that_does_not_match_never_falls_back_to_the_best_rows(audited):
    # The best-vs-best figure is still shown (Supermicro's best B300 x8 over Google's B200 x8,
    # 50562.2 / 49327.2), but the verdict does not use it: the claim is unclassified.
    row = audit(audited, "cite-other-accelerator")
    assert row["recomputed_best"] == pytest.approx(B300_SUPERMICRO / B200_GOOGLE, rel=1e-12)
    assert row["recomputed"] is None and row["verdict"] == UNCLASSIFIED


def test_absolute_claim_as_cited(audited):
    # NVIDIA GB300 x72 deepseek-r1 Offline, 6.0-0078: 647076 tokens/s; claimed 650000 (+0.45%).
    row = audit(audited, "absolute-cited")
    assert row["recomputed"] == row["recomputed_as_cited"] == GB300_72
    assert ids(row["rows_used"]) == [("new", "6.0-0078")] and row["weak_baseline"] is None
    assert row["verdict"] == COMPARABLE


def test_cited_entries_may_be_listed_in_any_order(audited):
    # gen-cited lists the baseline first, scaling-cited the large system first: roles come from the
    # entries' accelerator and size, not from their position.
    assert ids(audit(audited, "scaling-cited")["rows_as_cited"]) == [("new", "6.0-0076"), ("base", "6.0-0078")]


def test_scale_speedup_and_scaling_efficiency_as_cited_and_against_the_best_rack(audited):
    # scale_speedup as cited: 2494310 / 647076 = 3.8547 (claim 3.85: +0.1%).
    # Against the best verified GB300 x72 Offline (Nebius 6.0-0081): 2494310 / 673936 = 3.7011;
    # 647076 / 673936 = 0.960 < 0.98: weak baseline.
    speedup = audit(audited, "scale-cited")
    assert speedup["recomputed"] == pytest.approx(GB300_288 / GB300_72, rel=1e-12)
    assert speedup["recomputed_best"] == pytest.approx(GB300_288 / GB300_72_NEBIUS, rel=1e-12)
    assert speedup["weak_baseline"] is True and speedup["best_baseline_submitter"] == "Nebius"
    assert speedup["verdict"] == COMPARABLE
    # scaling_efficiency: (2494310 / 647076) / (288 / 72) = 0.9637 as cited (-2.7% from 0.99);
    # (2494310 / 673936) / 4 = 0.9253 against Nebius's rack.
    efficiency = audit(audited, "scaling-cited")
    assert efficiency["recomputed"] == pytest.approx((GB300_288 / GB300_72) / (288 / 72), rel=1e-12)
    assert efficiency["recomputed_best"] == pytest.approx((GB300_288 / GB300_72_NEBIUS) / (288 / 72))
    assert efficiency["weak_baseline"] is True and efficiency["verdict"] == COMPARABLE


def test_latency_claims_recompute_as_base_latency_over_new_latency(audited):
    # WAN 2.2 SingleStream, 4 GPUs: GB200 6.0-0074 40.2437 s, GB300 6.0-0077 30.9105 s:
    # "1.3x lower latency" = 40.2437 / 30.9105 = 1.3019 (the inverse, 0.768, would be wrong).
    latency = audit(audited, "wan-latency")
    assert latency["direction"] == "latency" and latency["recomputed_scenario"] == "SingleStream"
    assert latency["recomputed"] == pytest.approx(WAN_GB200_S / WAN_GB300_S, rel=1e-12)
    assert latency["recomputed_best"] == pytest.approx(WAN_GB200_S / WAN_GB300_S, rel=1e-12)
    assert latency["weak_baseline"] is False and latency["verdict"] == COMPARABLE
    # The same entries as a throughput claim (direction absent): Offline 0.036622 / 0.0269817 = 1.3573.
    throughput = audit(audited, "wan-throughput")
    assert throughput["direction"] == "throughput" and throughput["recomputed_scenario"] == "Offline"
    assert throughput["recomputed"] == pytest.approx(WAN_GB300_OFF / WAN_GB200_OFF, rel=1e-12)


def test_latency_scale_speedup_takes_the_largest_scenario(audited):
    # v4.1 UntetherAI speedAI240 Slim resnet, 1 accelerator (v4.1-0067) -> 4 (v4.1-0069), no scenario
    # named ("up to"): MultiStream 0.285447 / 0.169333 = 1.6857 ms/ms; SingleStream 0.121029 / 0.124016
    # = 0.9759. The larger, MultiStream, is the figure; claim 1.7 is 0.8% above it.
    assert published("v4.1", "v4.1-0067", "resnet", "MultiStream") == 0.285447
    assert published("v4.1", "v4.1-0069", "resnet", "MultiStream") == 0.169333
    assert published("v4.1", "v4.1-0067", "resnet", "SingleStream") == 0.121029
    assert published("v4.1", "v4.1-0069", "resnet", "SingleStream") == 0.124016
    row = audit(audited, "untether-latency-scale")
    assert row["recomputed_scenario"] == "MultiStream"
    assert row["recomputed"] == pytest.approx(0.285447 / 0.169333, rel=1e-12)
    assert row["verdict"] == COMPARABLE
    # Uncited, best-vs-best: the best speedAI240 Slim x4 MultiStream (v4.1-0069) over the best
    # verified x1 (v4.1-0067, the only one): the same 1.6857, in the same direction.
    uncited = audit(audited, "untether-latency-scale-uncited")
    assert uncited["recomputed"] == uncited["recomputed_best"] == pytest.approx(0.285447 / 0.169333, rel=1e-12)
    assert ids(uncited["rows_best"]) == [("new", "v4.1-0069"), ("base", "v4.1-0067")]


def test_software_gain_as_cited_and_against_the_best_previous_round(audited):
    # Google B200 x8 deepseek-r1 Server: cited 5.1-0047 (14630.7) -> 6.0-0040 (41027.9) = 2.8042;
    # the best verified v5.1 B200 x8 Server is NVIDIA's 5.1-0069 (18592.2): 41027.9 / 18592.2 = 2.2067,
    # and 14630.7 / 18592.2 = 0.787 < 0.98: weak baseline.
    assert published("v5.1", "5.1-0047", "deepseek-r1", "Server") == 14630.7
    assert published("v5.1", "5.1-0069", "deepseek-r1", "Server") == 18592.2
    assert published("v6.0", "6.0-0040", "deepseek-r1", "Server") == 41027.9
    row = audit(audited, "sw-cited")
    assert row["recomputed"] == pytest.approx(41027.9 / 14630.7, rel=1e-12)
    assert row["recomputed_best"] == pytest.approx(41027.9 / 18592.2, rel=1e-12)
    assert (row["best_baseline_result_id"], row["best_baseline_submitter"]) == ("5.1-0069", "NVIDIA")
    assert row["weak_baseline"] is True and row["verdict"] == COMPARABLE


def test_decision_records_name_claims_resting_on_a_weak_baseline(audited):
    record = one(audited, "SELECT * FROM decision_records WHERE id = 'buy-b300'")
    assert record["flagged"] is False  # both claims are procurement grade as cited
    assert record["weak_baseline_claims"] == ["gen-cited"]
    assert {v["claim_id"]: v["weak_baseline"] for v in record["claim_verdicts"]} == {
        "gen-cited": True, "gen-cited-best-base": False}


@pytest.mark.parametrize("fields, expected", [
    (dict(direction="speed"), "claim 'x': field 'direction'"),
    (dict(kind="scale_speedup", total_accelerators=4), "a scale_speedup needs accelerator_count >"),
    (dict(kind="scaling_efficiency", direction="latency", baseline_total_accelerators=1,
          total_accelerators=4), "direction must be throughput"),
    (dict(cited_result_ids="6.0-0078"), "claim 'x': field 'cited_result_ids'"),
])
def test_invalid_direction_and_scale_claims_are_refused(tmp_path, fields, expected):
    path = tmp_path / "bad.toml"
    path.write_text(claim("x", **{"accelerator": "GB300", "baseline_accelerator": "GB200",
                                  "multiplier": 2.0, **fields}), encoding="utf-8")
    with pytest.raises(LedgerError, match=expected):
        claims_frame(path)


@pytest.mark.slow
def test_cli_audit_carries_both_figures_and_their_rows_for_every_claim(cli, tmp_path, shared_warehouse):
    from tests.conftest import ROOT
    path = tmp_path / "w.duckdb"
    shutil.copy(shared_warehouse, path)
    (tmp_path / "c.toml").write_text(LEDGER, encoding="utf-8")
    assert cli("claims", "load", ROOT / "examples" / "claims_v6.1_nvidia.example.toml", "--db", path)[0] == 0
    assert cli("claims", "load", tmp_path / "c.toml", "--db", path)[0] == 0
    code, out, _ = cli("claims", "audit", "--format", "json", "--db", path)
    assert code == 0
    entries = {e["id"]: e for e in json.loads(out)}
    assert len(entries) == 15 + LEDGER.count("[[claim]]")
    fields = {"recomputed", "recomputed_as_cited", "recomputed_best", "weak_baseline",
              "best_baseline_result_id", "best_baseline_submitter", "rows_used", "rows_as_cited",
              "rows_best", "citation_problem", "verdict", "verdict_reason", "direction"}
    for entry in entries.values():
        assert fields <= set(entry), entry["id"]
    cited = entries["gen-cited"]
    assert cited["recomputed"] == cited["recomputed_as_cited"] == pytest.approx(B300_SUPERMICRO / B200_SUPERMICRO)
    assert [r["result_id"] for r in cited["rows_best"]] == ["6.0-0098", "6.0-0040"]
    code, out, _ = cli("claims", "audit", "--format", "csv", "--db", path)
    by_id = {r["id"]: r for r in csv.DictReader(io.StringIO(out))}
    assert by_id["gen-cited"]["weak_baseline"] == "true"
    assert json.loads(by_id["gen-cited"]["rows_as_cited"])[1]["result_id"] == "6.0-0099"
    code, out, _ = cli("claims", "audit", "--db", path)
    table = {row["id"]: row for row in table_rows(out)}
    assert set(table["gen-cited"]) == {"id", "claimed", "grade", "supported", "verdict"}
    said = " ".join(out.split())  # the grade lines wrap at the terminal's width
    assert "gen-cited: " in said and "[6.0-0098 vs 6.0-0099]" in said
    assert "cite-missing: as cited: cited entry 6.0-9999 is in no loaded round" in out
