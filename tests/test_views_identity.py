"""Hardware and benchmark identity behind the views, and the column interface each view promises."""
from __future__ import annotations

import json
import shutil

import pandera.errors as pa_errors
import polars as pl
import pytest

from tests.conftest import SHARED_ROUNDS
from tests.shared_rows import checker_rows, records, rows
from warehouse.identity.reference import VALIDATED_FILE, default_reference, load_reference, shipped_checksums
from warehouse.views.identities import resolve_identities
from warehouse.identity.rounds import REFERENCE_DIR


def identities(frame: pl.DataFrame) -> pl.DataFrame:
    """The views' identity SQL (stg_results) on these names."""
    return resolve_identities(frame, load_reference())


# ---------------------------------------------------------------------------------------------
# hardware identity


def test_every_published_accelerator_name_has_a_canonical_accelerator(shared_con):
    # the final tables' Accelerator, and v6.1's checker table's accelerator_model_name where it counts
    # accelerators (its 33 CPU-only rows say 'N/A' with 0 per node)
    names = {str(r["Accelerator"]).strip() for name in SHARED_ROUNDS if name != "v6.1" for r in records(name)
             if r.get("Accelerator") and str(r["Accelerator"]).strip()}
    names |= {r["accelerator_model_name"].strip() for r in checker_rows("v6.1") if r["accelerators_per_node"] != "0"}
    names = sorted(names)
    assert len(names) > 40 and "NVIDIA Vera Rubin" in names
    frame = pl.DataFrame({"accelerator_raw": names, "model": ["resnet"] * len(names),
                          "used_model": ["resnet"] * len(names)})
    mapped = identities(frame)
    assert mapped.height == len(names)
    unmatched = mapped.filter(pl.col("accelerator").is_null())["accelerator_raw"].to_list()
    assert unmatched == []
    # ...and in the warehouse: zero rows with a raw name but no canonical accelerator.
    assert shared_con.execute("SELECT count(*) FROM stg_results WHERE accelerator_raw IS NOT NULL "
                              "AND accelerator IS NULL").fetchone()[0] == 0


def test_a_claims_accelerator_resolves_as_stg_results_resolves_the_same_published_name(shared_con):
    """canonical_accelerators (claims, decisions) runs base_accelerator_names alone; stg_results takes
    `accelerator` from it. Every published name of the shared rounds, and a name that matches nothing,
    get exactly what the loaded rows show, but for a system its own name marks as virtualized (a leading
    v: Broadcom_Supermicro's v5.1 vSYS-422GA B200), whose part is '<part> (virtualized)'."""
    from warehouse.views.identities import canonical_accelerators
    shown = dict(shared_con.execute("SELECT DISTINCT accelerator_raw, accelerator FROM stg_results "
                                    "WHERE accelerator_raw IS NOT NULL AND NOT virtualized_system(platform)").fetchall())
    assert len(shown) > 40
    assert canonical_accelerators([*shown, "no such accelerator"]) == shown | {"no such accelerator": None}
    by_system = shared_con.execute("SELECT DISTINCT accelerator_raw, accelerator FROM stg_results "
                                   "WHERE virtualized_system(platform)").fetchall()
    assert ("NVIDIA B200-SXM-180GB", "B200 (virtualized)") in by_system
    assert all(accelerator.endswith(" (virtualized)") for _, accelerator in by_system)


RAW_NAMES = [
    # as published: v5.1 5.1-0065 MangoBoost (48 accelerators), 5.1-0091 Supermicro_MangoBoost,
    # v6.0 6.0-0031 Dell_MangoBoost
    ("AMD Instinct MI300X 192GB HBM3 (x32), AMD Instinct MI325X 256GB HBM3e (x16)", "MI300X + MI325X"),
    ("AMD Instinct MI325X 256GB HBM3E (x16), AMD Instinct MI300X 192GB HBM3 (x8)", "MI300X + MI325X"),
    ("NVIDIA GB300", "GB300"),
    ("NVIDIA B300-SXM-270GB", "B300"),
    ("NVIDIA L4-PCIe-24GB", "L4"),
    ("AMD Instinct MI355X 288GB HBM3e (Power Cap 1000 W)", "MI355X"),
    ("[MAXSUN] MS-Intel Arc Pro B60 Dual 48G Turbo", "Arc Pro B60 Dual"),
    # drift a new round may bring: trademark marks, doubled or non-breaking spaces, other casing
    ("NVIDIA® GB300™", "GB300"),
    ("Intel® Arc™ Pro B60  Dual", "Arc Pro B60 Dual"),
    ("Intel(R) Arc(TM) Pro B50", "Arc Pro B50"),
    ("amd instinct\u00a0mi355x", "MI355X"),
    ("NVIDIA  h200-sxm-141gb", "H200 SXM"),
    ("NVIDIA H200-SXM-141GB-CTS", "H200 SXM CTS"),                 # a 1000 W part (the description: "H200 TGP 1000W")
    ("NVIDIA B200 and NVIDIA GB200", "B200 + GB200"),
    ("Frobnicator 9000", None),
    ("NVIDIA B200, Frobnicator 9000", None),
]


@pytest.fixture(scope="module")
def resolved_names() -> dict[str, list]:
    """Each raw name above -> the accelerators the views' SQL gives its row: one run of the models for
    every name (a run costs about a second, whatever the rows)."""
    names = [raw for raw, _ in RAW_NAMES]
    mapped = identities(pl.DataFrame({"accelerator_raw": names, "model": ["resnet"] * len(names),
                                      "used_model": ["resnet"] * len(names)}))
    return {raw: mapped.filter(pl.col("accelerator_raw") == raw)["accelerator"].to_list() for raw in names}


@pytest.mark.parametrize("raw, canonical", RAW_NAMES)
def test_raw_accelerator_names_map_to_canonical_ones(resolved_names, raw, canonical):
    assert resolved_names[raw] == [canonical]


def test_mixed_accelerator_systems_get_a_combined_name_and_no_generation(shared_con):
    raw = "AMD Instinct MI300X 192GB HBM3 (x32), AMD Instinct MI325X 256GB HBM3e (x16)"
    assert any(r["Accelerator"] == raw and r["ID"] == "5.1-0065" for r in records("v5.1"))
    found = rows(shared_con, "SELECT DISTINCT result_id, accelerator, total_accelerators, generation, vendor "
                             "FROM stg_results WHERE metric = 'performance' AND accelerator_raw = ?", [raw])
    # 5.1-0065 MangoBoost: 32 MI300X + 16 MI325X -> "MI300X + MI325X", 48 accelerators
    assert found == [{"result_id": "5.1-0065", "accelerator": "MI300X + MI325X", "total_accelerators": 48,
                      "generation": None, "vendor": None}]
    mixed = {a for (a,) in shared_con.execute(
        "SELECT DISTINCT accelerator FROM int_best_results WHERE best_of_submitter AND accelerator LIKE '%+%'").fetchall()}
    # and v6.1's (summary.csv): Cisco's H200-SXM-141GB + MI350X and Dell_MangoBoost's MI300X and MI355X
    # (test_mixed_clusters.py names their rows)
    assert mixed == {"MI300X + MI325X", "MI300X + MI325X + MI355X", "H200 SXM + MI350X", "MI300X + MI355X"}
    assert shared_con.execute("SELECT count(*) FROM generation_speedups WHERE accelerator_new IN "
                              "(SELECT unnest(?)) OR accelerator_base IN (SELECT unnest(?))",
                              [sorted(mixed), sorted(mixed)]).fetchone()[0] == 0


# ---------------------------------------------------------------------------------------------
# benchmark identity


def test_llama3_1_8b_used_model_is_the_llama3_1_8b_benchmark(shared_con):
    # v5.1 and v6.0 closed entries publish UsedModel 'llama3_1-8b' (Model 'llama3.1-8b'):
    # 14 records in v5.1, 20 in v6.0; v6.1's checker table, Model 'llama3_1-8b' (MlperfModel
    # 'llama3.1-8b') in 24 closed rows.
    expected = {name: sum(r["Category"] == "closed" and r.get("UsedModel") == "llama3_1-8b"
                          for r in records(name))
                for name in ("v5.1", "v6.0")}
    expected["v6.1"] = sum(r["Division"] == "closed" and r["Model"] == "llama3_1-8b" for r in checker_rows("v6.1"))
    assert expected == {"v5.1": 14, "v6.0": 20, "v6.1": 24}
    found = dict(shared_con.execute(
        "SELECT round, count(*) FROM stg_results WHERE division = 'closed' AND used_model = 'llama3_1-8b' "
        "AND metric = 'performance' AND benchmark = 'llama3.1-8b' GROUP BY round").fetchall())
    assert found == expected
    # ...so they match across rounds: Intel "1-node-4x-BMG-Pro-B60-Dual" (UsedModel llama3_1-8b on both
    # sides) Server 5.1-0056 5348.45 -> 6.0-0060 6293.89 Tokens/s, gain 6293.89 / 5348.45 = 1.17677.
    gain = rows(shared_con, "SELECT * FROM software_gains WHERE basis = 'same_scale' AND submitter = 'Intel' "
                            "AND accelerator = 'Arc Pro B60 Dual' AND benchmark = 'llama3.1-8b' "
                            "AND scenario = 'Server'")
    assert len(gain) == 1
    assert (gain[0]["result_id_from"], gain[0]["result_id_to"]) == ("5.1-0056", "6.0-0060")
    assert gain[0]["gain"] == pytest.approx(6293.89 / 5348.45, rel=1e-9)


def test_a_checker_vlm_row_takes_its_benchmark_from_the_model_run():
    # The submission checker's MlperfModel may hold the category 'VLM'; the model run names the benchmark.
    frame = pl.DataFrame({"accelerator_raw": ["NVIDIA B200-SXM-180GB"], "model": ["VLM"],
                          "used_model": ["qwen3-vl-235b-a22b"]})
    out = identities(frame)
    assert out.height == 1  # one row in, one row out (benchmarks.csv once listed 'VLM' and 'vlm')
    assert out.row(0, named=True)["benchmark"] == "qwen3-vl-235b-a22b"
    assert out.row(0, named=True)["benchmark_matched"] is True
    assert out.row(0, named=True)["accelerator"] == "B200"
    assert out.select("accelerator_raw", "model", "used_model").equals(frame)


def test_the_recorded_checksums_are_the_shipped_reference_tables_which_validate():
    # A run does not validate a file whose bytes are these again (reference/_validated.json).
    assert json.loads(VALIDATED_FILE.read_text(encoding="utf-8")) == shipped_checksums(), \
        "warehouse/identity/reference/_validated.json is out of date: run `.venv/bin/python -m warehouse.identity`"


def test_an_edited_copy_of_the_reference_tables_is_validated(tmp_path):
    shutil.copytree(REFERENCE_DIR, tmp_path, dirs_exist_ok=True)
    accelerators = tmp_path / "accelerators.csv"
    accelerators.write_text(accelerators.read_text(encoding="utf-8") + "(?i)broken(,Broken,X,Y,1,,\n",
                            encoding="utf-8")
    with pytest.raises(pa_errors.SchemaError, match="not a valid RE2 regular expression"):
        load_reference(tmp_path)


def test_benchmark_aliases_are_unique_ignoring_case():
    # stg_results matches aliases case-insensitively, so two aliases that differ only in case
    # would duplicate every row they match.
    aliases = default_reference().benchmarks["alias"].str.to_lowercase()
    assert aliases.is_duplicated().sum() == 0


# ---------------------------------------------------------------------------------------------
# the interface each view promises


INTERFACE = {
    "software_gains": ["basis", "submitter", "accelerator", "accelerator_count", "benchmark", "scenario",
                       "round_from", "round_to", "result_from", "result_to", "gain", "software_from",
                       "software_to", "result_id_from", "result_id_to"],
    "software_gain_summary": ["submitter", "accelerator", "benchmark", "basis", "round_from", "round_to",
                              "gain", "scenario"],
    "generation_speedups": ["round", "benchmark", "scenario", "accelerator_count", "accelerator_new",
                            "accelerator_base", "result_new", "result_base", "speedup", "submitter_new",
                            "submitter_base", "result_id_new", "result_id_base", "verification_new",
                            "verification_base", "procurement_grade"],
    "scaling_efficiency": ["round", "submitter", "accelerator", "benchmark", "scenario", "accelerator_count_small",
                           "accelerator_count_large", "throughput_small", "throughput_large", "efficiency", "result_id_small",
                           "result_id_large"],
    "token_economics": ["round", "submitter", "system", "accelerator", "accelerator_count", "benchmark",
                        "scenario", "throughput", "throughput_unit", "throughput_per_rack", "tokens_per_second",
                        "tokens_derived", "tokens_per_second_per_accelerator", "accelerators_per_rack",
                        "tokens_per_second_per_rack", "measured_watts", "system_estimate_watts",
                        "accelerators_only_watts", "tokens_per_joule_measured", "tokens_per_joule_system_estimate",
                        "tokens_per_joule_accelerators_only", "tokens_per_dollar", "dollars_per_million_tokens",
                        "verification", "procurement_grade"],
    "verified_results": ["round", "suite", "submitter", "system", "result_id", "benchmark", "scenario", "result",
                         "result_unit", "accelerator", "accelerator_count", "result_per_accelerator", "verification"],
    "leaderboard": ["round", "suite", "benchmark", "scenario", "result_unit", "rank_system", "rank_per_accelerator",
                    "submitter", "system", "result_id", "accelerator", "accelerator_count", "result",
                    "result_per_accelerator"],
}


@pytest.mark.parametrize("view", sorted(INTERFACE))
def test_view_has_the_promised_columns(shared_con, view):
    columns = [d[0] for d in shared_con.execute(f"SELECT * FROM {view} LIMIT 0").description]
    missing = [c for c in INTERFACE[view] if c not in columns]
    assert missing == []
    assert shared_con.execute(f"SELECT count(*) FROM {view}").fetchone()[0] > 0
