"""Fault suite, issue 31 (inputs): one completeness rule and one set of bounds for every text input.

A warehouse holding an operator's ledger (the example claims, decisions, prices and own
measurements, over the session's three rounds) is built once per module; each case loads a hostile
file into a copy of it through the real CLI and asserts the exit code, the one `error:` line, and
the digest of the rows and the ledger, unchanged. Cases: a ledger or measurements file cut
mid-line (no final line break), a header naming a column twice, ids that differ by case, a space or
a bidi character, JSON past its bounds (a 5,000-digit integer, 100,000-deep nesting, a key twice),
numbers past 64 bits, SQL files that are not UTF-8 or never end, hostile settings, `history --round
../x`, and one bad system description in a submission tree (quarantined; the rest of the round
loads).
"""
from __future__ import annotations

import json
import shutil
import tracemalloc
from pathlib import Path

import pytest

from tests.conftest import MIRROR, ROOT
from tests.faults import DIGEST_TABLES, LEDGER_TABLES, copy_of, digest, one_error_line, query, run  # noqa: F401
from warehouse.inputs import InputRefused, load_json, normalised_id

EXAMPLES = ROOT / "examples"
CLAIMS = EXAMPLES / "claims_v6.1_nvidia.example.toml"


@pytest.fixture(scope="module")
def ledger_warehouse(shared_warehouse, tmp_path_factory) -> str:
    """The session's rounds with a ledger in them, loaded as the examples README says."""
    from warehouse.cli import main
    path = str(tmp_path_factory.mktemp("ledger") / "warehouse.duckdb")
    shutil.copyfile(shared_warehouse, path)
    for args in (["claims", "load", CLAIMS], ["decisions", "load", EXAMPLES / "decisions.example.toml"],
                 ["prices", "load", EXAMPLES / "prices.example.csv"],
                 ["measurements", "load", EXAMPLES / "own_measurements.example.csv"]):
        assert main(["-q", "--db", path, *map(str, args)]) == 0, args
    return path


@pytest.fixture
def warehouse(ledger_warehouse, tmp_path) -> str:
    return copy_of(ledger_warehouse, tmp_path)


def state(db: str) -> dict[str, str]:
    return digest(db, tables=DIGEST_TABLES + LEDGER_TABLES)


def refused(run, warehouse, *args, said: str, code: int = 1) -> str:
    """Run a command that must be refused: its exit code, its one line, nothing changed."""
    before = state(warehouse)
    got, out, err = run("--db", warehouse, *args)
    assert got == code, err
    line = one_error_line(err)
    assert said in line, line
    assert state(warehouse) == before
    return line


# --- a file cut mid-line, or with a column twice, loads nothing ------------------------------------

def test_a_prices_csv_cut_mid_line_leaves_every_price(run, warehouse, tmp_path):
    """The cut file replaced the price table: two prices gone, one truncated (4.00 -> 4)."""
    text = (EXAMPLES / "prices.example.csv").read_text()
    cut = tmp_path / "prices.csv"
    cut.write_text(text[:text.index("B200,4") + len("B200,4")])
    line = refused(run, warehouse, "prices", "load", cut, said="has no line break: the file was cut short")
    assert "'B200,4'" in line


def test_a_measurements_csv_cut_mid_number_loads_no_run(run, warehouse, tmp_path):
    """`...,19` of `...,19840`: a run at 19 tokens/s."""
    text = (EXAMPLES / "own_measurements.example.csv").read_text()
    cut = tmp_path / "runs.csv"
    cut.write_text(text[:text.index(",19840,") + len(",19")])
    refused(run, warehouse, "measurements", "load", cut, said="has no line break: the file was cut short")


def test_a_claims_file_cut_mid_value_loads_no_claim(run, warehouse, tmp_path):
    text = CLAIMS.read_text()
    cut = tmp_path / "claims.toml"
    cut.write_text(text[:text.rindex("multiplier = ") + len("multiplier = 1")])
    refused(run, warehouse, "claims", "load", cut, said="has no line break: the file was cut short")


DUPLICATE_HEADERS = {
    "prices": ("accelerator,dollars_per_accelerator_hour,Accelerator\nB200,4.00,GB200\n", ("prices", "load")),
    "measurements": ("model_id,output_tokens_per_second,model_id\nm,5,n\n", ("measurements", "load")),
}


@pytest.mark.parametrize("kind", DUPLICATE_HEADERS)
def test_a_header_naming_a_column_twice_is_refused(run, warehouse, tmp_path, kind):
    text, command = DUPLICATE_HEADERS[kind]
    (tmp_path / "twice.csv").write_text(text)
    refused(run, warehouse, *command, tmp_path / "twice.csv", said="names column")


def test_a_round_table_csv_with_a_column_twice_is_refused():
    """The checker's summary.csv with a column named twice loaded silently (one of the two kept)."""
    from tests.test_faults import CSV
    from warehouse.ingest.parse import MalformedFile
    from warehouse.ingest.pipeline import prepare
    lines = CSV.read_text().splitlines(keepends=True)
    header = lines[0].rstrip("\n").split(",")
    twice = ",".join(header + [header[1]]) + "\n" + "".join(line.rstrip("\n") + ",x\n" for line in lines[1:])
    with pytest.raises(MalformedFile, match=f"the header names column {header[1].strip()!r} twice"):
        prepare(twice.encode(), "summary.csv", "v5.0", "unofficial", "summary.csv")


# --- ids: one id, however it is written ------------------------------------------------------------

def _one_claim_as(tmp_path: Path, claim_id: str) -> Path:
    """The first example claim alone, under `claim_id`, in a file of its own."""
    first = "[[claim]]" + CLAIMS.read_text().split("[[claim]]")[1]
    name = first.split('id = "', 1)[1].split('"', 1)[0]
    path = tmp_path / "other-claims.toml"
    path.write_text(first.replace(f'id = "{name}"', f'id = "{claim_id}"'), encoding="utf-8")
    return path


def _first_claim_id() -> str:
    return CLAIMS.read_text().split("[[claim]]")[1].split('id = "', 1)[1].split('"', 1)[0]


@pytest.mark.parametrize("spelling", [str.upper, lambda i: i + " ", lambda i: "\t" + i.title()],
                         ids=["upper-case", "trailing-space", "tab-and-title-case"])
def test_an_id_written_otherwise_is_still_owned_by_its_file(run, warehouse, tmp_path, spelling):
    other = _one_claim_as(tmp_path, spelling(_first_claim_id()))
    refused(run, warehouse, "claims", "load", other, said=f"claim {_first_claim_id()!r} is owned by")


@pytest.mark.parametrize("character", ["\u202e", "\u2066", "\x1b", "\x00"], ids=["RLO", "LRI", "ESC", "NUL"])
def test_an_id_holding_a_control_or_bidi_character_is_refused(run, warehouse, tmp_path, character):
    escaped = json.dumps(character)[1:-1]  # TOML's own \uXXXX escape
    other = _one_claim_as(tmp_path, f"{_first_claim_id()}{escaped}")
    refused(run, warehouse, "claims", "load", other, said="holds a control or bidi character")


def test_ids_stored_before_normalising_are_normalised_with_their_references(run, warehouse):
    """A warehouse whose ledger was loaded before ids were case-folded: the next load folds them,
    and the decision still cites its claims (decisions show expands them to verdicts)."""
    cited = query(warehouse, "SELECT claims_used FROM decisions")[0][0]
    from tests.readers import connect_file
    with connect_file(warehouse) as con:
        con.execute("UPDATE claims SET id = upper(id) WHERE list_contains(?, id)", [cited])
        con.execute("UPDATE decisions SET claims_used = list_transform(claims_used, lambda x: upper(x)), "
                    "id = upper(id)")
    code, _, err = run("--db", warehouse, "claims", "load", CLAIMS)
    assert code == 0, err
    assert query(warehouse, "SELECT count(*) FROM claims WHERE id <> lower(id)")[0][0] == 0
    assert query(warehouse, "SELECT claims_used FROM decisions")[0][0] == cited
    decision = query(warehouse, "SELECT id FROM decisions")[0][0]
    code, out, err = run("--db", warehouse, "decisions", "show", decision.upper() + " ", "--format", "json")
    assert code == 0, err
    used = json.loads(out)["capacity_decision_record"]["vendor_claims_used"]
    assert [c["id"] for c in used] == cited and all(c["verdict"] != "claim no longer in the ledger" for c in used)


@pytest.mark.unit
@pytest.mark.parametrize(("written", "stored"), [("Claim-1", "claim-1"), ("  claim-1\n".strip(), "claim-1"),
                                                  ("CLAIM-1 ", "claim-1"), ("ÉTÉ-2026", "été-2026")])
def test_ids_are_trimmed_and_case_folded(written, stored):
    assert normalised_id(written, "id") == stored


# --- bounds: numbers, nesting, size -----------------------------------------------------------------

HOSTILE_JSON = {
    "5000-digit-integer": ('{"model_id": "m", "output_throughput": ' + "7" * 5000 + "}", "an integer of 5000 digits"),
    "25-digit-integer": ('{"model_id": "m", "output_throughput": ' + "7" * 25 + "}", "an integer of 25 digits"),
    "100k-deep": ('{"model_id": "m", "x": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
    "900-deep": ('{"model_id": "m", "x": ' + "[" * 900 + "]" * 900 + "}", "nested too deeply"),
    "key-twice": ('{"model_id": "m", "output_throughput": 5, "output_throughput": 50000}', "twice in one object"),
}


@pytest.mark.parametrize("case", HOSTILE_JSON)
def test_a_measurements_json_past_its_bounds_is_one_line(run, warehouse, tmp_path, case):
    text, said = HOSTILE_JSON[case]
    (tmp_path / "result.json").write_text(text)
    refused(run, warehouse, "measurements", "load", tmp_path / "result.json", "--accelerator", "H200",
            "--accelerators", "8", said=said)


def hostile_round_table(case: str) -> bytes:
    text = (MIRROR / "inference_results_v6.0/main/summary_results.json").read_text()
    return {"5000-digit-integer": text.replace('"Nodes": 1', '"Nodes": ' + "1" * 5000, 1),
            "100k-deep": text.rstrip()[:-1] + ", " + "[" * 100_000 + "]" * 100_000 + "]",
            "key-twice": text.replace('"Nodes": 1', '"Nodes": 1, "Nodes": 2', 1)}[case].encode()


@pytest.mark.parametrize(("case", "said"), [("5000-digit-integer", "digits, beyond the bound of 64-bit integers"),
                                            ("100k-deep", "nested too deeply"), ("key-twice", "'Nodes' twice")])
def test_a_round_table_past_its_bounds_is_refused_whole(case, said):
    from warehouse.ingest.parse import MalformedFile
    from warehouse.ingest.pipeline import prepare
    assert b'"Nodes": 1' in hostile_round_table("key-twice")
    with pytest.raises(MalformedFile, match=said):
        prepare(hostile_round_table(case), "summary_results.json", "v6.0", "official", "label")


def test_a_round_table_past_its_bounds_is_one_line(cli, warehouse, tmp_path):
    (tmp_path / "summary_results.json").write_bytes(hostile_round_table("5000-digit-integer"))
    refused(cli, warehouse, "ingest", "v6.0", "--file", tmp_path / "summary_results.json",
            said="digits, beyond the bound of 64-bit integers")


@pytest.mark.parametrize(("cell", "said"), [("100000000000000000000000000000", "out of range"),
                                            ("1e30", "out of range")])
def test_a_count_past_64_bits_quarantines_its_run(run, warehouse, tmp_path, cell, said):
    (tmp_path / "runs.csv").write_text(f"model_id,output_tokens_per_second,accelerator,accelerators\nm,5,H200,{cell}\n")
    refused(run, warehouse, "measurements", "load", tmp_path / "runs.csv", said=said)


def test_an_accelerator_count_past_its_bound_is_a_usage_error(run, warehouse):
    refused(run, warehouse, "measurements", "load", EXAMPLES / "own_measurements.example.csv",
            "--accelerators", "1" + "0" * 29, said="--accelerators", code=2)


@pytest.mark.unit
def test_a_vllm_file_is_read_in_memory_proportional_to_it():
    """Per-request arrays become columns, not a dict per request: a 20,000-request file (0.6 MB) is
    read with under 20 times its size (15 x measured; a dict per request took 35 x), by tracemalloc."""
    from warehouse.ledger.measurements import RunOptions, prepare
    n = 20_000
    document = {"model_id": "m", "output_throughput": 7000.0, "completed": n, "mean_tpot_ms": 20.0,
                "input_lens": [1000] * n, "output_lens": [700] * n, "ttfts": [0.125] * n,
                "latencies": [14.5] * n, "errors": [""] * n}
    content = json.dumps(document).encode()
    tracemalloc.start()
    try:
        prepared = prepare("r.json", content, "vllm", RunOptions("H200", 8))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert prepared.requests.height == n and prepared.runs.height == 1
    assert peak < 20 * len(content), f"{peak / len(content):.1f} x the file's {len(content):,} bytes"


# --- SQL files, settings, round names ---------------------------------------------------------------

@pytest.mark.parametrize(("content", "said"), [(b"\xff\xfeSELECT 1\n", "not valid UTF-8 at byte 0"),
                                               (b"SELECT 1", "has no line break"),
                                               (None, "larger than 1 MiB")],
                         ids=["not-utf8", "no-final-line-break", "never-ends"])
def test_a_sql_file_is_bounded_and_whole(run, warehouse, tmp_path, content, said):
    query_file = Path("/dev/zero") if content is None else tmp_path / "q.sql"
    if content is not None:
        query_file.write_bytes(content)
    refused(run, warehouse, "sql", "-f", query_file, said=said)


HOSTILE_SETTINGS = {
    "MLPERF_SQL_TIMEOUT=inf": ("sql", "SELECT 1"),
    "MLPERF_SQL_TIMEOUT=1e308": ("sql", "SELECT 1"),
    "MLPERF_FETCH_BACKOFF=1e308": ("sql", "SELECT 1"),
    "MLPERF_WRITER_WAIT=nan": ("prices", "load", EXAMPLES / "prices.example.csv"),
    "MLPERF_FETCH_RETRIES=1000000000": ("sql", "SELECT 1"),
    "MLPERF_SOURCE=http://[::1": ("sql", "SELECT 1"),
    "MLPERF_SOURCE=http://host:99999": ("sql", "SELECT 1"),
    "MLPERF_REFERENCE_DIR=/nonexistent": ("prices", "load", EXAMPLES / "prices.example.csv"),
    "MLPERF_SQL_MEMORY_LIMIT=99999999999999999999999GB": ("sql", "SELECT 1"),
    "MLPERF_PUBLISHED_STORAGE=v0.0.1": ("prices", "load", EXAMPLES / "prices.example.csv"),
}


@pytest.mark.parametrize("setting", HOSTILE_SETTINGS)
def test_a_hostile_setting_is_a_usage_error_naming_it(run, warehouse, monkeypatch, setting):
    name, value = setting.split("=", 1)
    monkeypatch.setenv(name, value)
    line = refused(run, warehouse, *HOSTILE_SETTINGS[setting], said=f"{name}={value!r}", code=2)
    assert line.startswith(f"error: {name}=")


def test_a_source_url_that_does_not_parse_is_a_usage_error(cli, warehouse):
    refused(cli, warehouse, "backfill", "--source", "http://[::1", "--rounds", "v6.0",
            said="--source http://[::1: not a valid URL", code=2)


def test_history_of_a_round_that_cannot_exist_is_a_usage_error(run, warehouse):
    refused(run, warehouse, "loads", "--round", "../x", said="invalid round name '../x'", code=2)


# --- one bad file in a submission tree is quarantined; the round loads --------------------------------

KRAI_SYSTEM = "closed/Krai/systems/h200_n1-kissv.json"
BAD_SYSTEMS = {
    "5000-digit-integer": lambda good: good.replace(b'"number_of_nodes": 1', b'"number_of_nodes": ' + b"1" * 5000, 1),
    "4000-digit-integer": lambda good: good.replace(b'"number_of_nodes": 1', b'"number_of_nodes": ' + b"1" * 4000, 1),
    "100k-deep": lambda good: good[:-2] + b', "deep": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n",
}


@pytest.mark.parametrize("case", BAD_SYSTEMS)
def test_one_bad_system_description_is_quarantined_and_the_round_loads(warehouse, tmp_path, case):
    """It aborted `trees` for the whole round (exit 70, no run summary loaded). Krai's v6.0 entry:
    two run summaries and this system description; the summaries load, the system is quarantined."""
    from tests.conftest import serve
    from tests.readers import connect_file
    from tests.trees_layout import TREES, replace_file, round_repositories
    from warehouse.identity.rounds import load_registry
    from warehouse.ingest.fetch import FetchSettings
    from warehouse.trees.fetching import fetch_chunk
    from warehouse.trees.loading import check, load
    from warehouse.trees.fetching import chunks
    from warehouse.trees.planning import plan
    from warehouse.store import db
    with connect_file(warehouse) as con:
        con.execute("DELETE FROM results WHERE NOT (round = 'v6.0' AND submitter = 'Krai' AND division = 'closed')")
    good = (TREES / "inference_results_v6.0" / KRAI_SYSTEM).read_bytes()
    root = round_repositories(tmp_path / "repos", rounds=("v6.0",))
    replace_file(root, "v6.0", KRAI_SYSTEM, BAD_SYSTEMS[case](good))
    before = state(warehouse)
    with serve(root) as server, db.connect(warehouse) as con:
        files, _ = plan(con, [load_registry()["v6.0"]], server.url)
        outcome = load(con, check([o for c in chunks(files) for o in fetch_chunk(c, FetchSettings.from_env())]))
    assert outcome.counts == {"loaded": 2, "quarantined": 1}, outcome.problems
    [problem] = outcome.problems
    assert KRAI_SYSTEM in problem and ("64-bit" in problem or "nested too deeply" in problem), problem
    after = state(warehouse)
    assert {k: v for k, v in after.items() if k != "quarantine"} == {k: v for k, v in before.items() if k != "quarantine"}
    assert query(warehouse, "SELECT count(*) FROM run_summaries WHERE round = 'v6.0'")[0][0] == 2
    assert query(warehouse, f"SELECT count(*) FROM quarantine WHERE source_id = 'tree/v6.0/{KRAI_SYSTEM}'") == [(1,)]


@pytest.mark.unit
def test_json_within_bounds_reads_as_json_does():
    text = '{"a": [1, -9223372036854775808, 9223372036854775807, 1.5e300, "x"], "b": {"c": null}}'
    assert load_json(text, "t") == json.loads(text)
    assert load_json('{"a": "", "b": 1, "a": ""}', "t") == {"a": "", "b": 1}  # as a v4.1 system description has it
    with pytest.raises(InputRefused, match="9223372036854775808, beyond the bound"):
        load_json('{"a": 9223372036854775808}', "t")


@pytest.fixture
def cli(plain_cli):
    """Runs without a Prefect API: what a run refuses and says is the same code under a flow run."""
    return plain_cli
