"""Tree-file fuzz: hostile shapes of the files the tree readers take from strangers' commits.

Each example takes a real tree file (the endpoint harness's result_summary.json and report.txt, the
endpoint client's results.json, LoadGen's mlperf_log_summary.txt, a system description) and makes
it hostile: a field replaced by any JSON value (null, a list, a string, NaN, Infinity, 1e999999, an
integer past 64 bits, nesting), a field removed, a key given twice with two values, the whole
document another JSON value, the bytes cut or made invalid UTF-8, a text line's figure replaced.
It then runs what `trees` runs for one file (parse, bounds, validation) and checks: the file is
loaded or quarantined with one-line reasons, never an exception (an exception aborted the round,
exit 70); what loads is finite and within its column's bounds.
"""
from __future__ import annotations

import json
import math
import re

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.trees_layout import TREES, V61_FIXTURES
from warehouse.ingest.fetch import Fetched
from warehouse.trees.fetching import TreeFile, _parsed
from warehouse.trees.loading import check
from warehouse.inputs import INT64

RUN = "closed/NVIDIA/results/VR-NVL72_VR-288GB_aarch64x72_TRT/qwen3-vl-235b-a22b/Server"
KRAI_RUN = "closed/Krai/results/h200_n1-kissv/wan-2.2-t2v-a14b/offline/performance/run_1"
# name -> (the real file, its path in a round repository, kind)
FILES = {
    "result_summary.json": (V61_FIXTURES / "vr_qwen3vl_server.result_summary.json",
                            f"{RUN}/performance/result_summary.json", "summary"),
    "results.json": (V61_FIXTURES / "lambda_b200_qwen3vl_server.results.json",
                     f"{RUN}/performance/run_1/results.json", "summary"),
    "report.txt": (V61_FIXTURES / "vr_qwen3vl_server.report.txt", f"{RUN}/report.txt", "summary"),
    "mlperf_log_summary.txt": (TREES / "inference_results_v6.0" / KRAI_RUN / "mlperf_log_summary.txt",
                               f"{KRAI_RUN}/mlperf_log_summary.txt", "summary"),
    "system.json": (V61_FIXTURES / "vr_nvl72.system.json", "closed/NVIDIA/systems/VR-NVL72.json", "system"),
}

SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-2**70, max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12),
    st.sampled_from(["", "1e999999", "NaN", "-0", "9" * 400, "\u202e", "\x00"]))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                      max_leaves=10)
# JSON number tokens json.dumps never writes, spliced in as text
NUMBER_TOKENS = ["NaN", "Infinity", "-Infinity", "1e999999", "-1e999999", "9" * 400, "1" + "0" * 25, "18446744073709551616"]


def paths_of(value, prefix=()) -> list[tuple]:
    """Every path to a value inside a decoded JSON document (the histograms among them)."""
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, child in value.items():
            found += paths_of(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value[:3]):
            found += paths_of(child, (*prefix, index))
    return found


def set_at(document, path: tuple, value) -> None:
    for part in path[:-1]:
        document = document[part]
    document[path[-1]] = value


def delete_at(document, path: tuple) -> None:
    for part in path[:-1]:
        document = document[part]
    del document[path[-1]]


def with_histograms(document: dict) -> dict:
    """The fixtures were trimmed of the harness's histograms (tests/fixtures/trees_v6.1/README.md):
    each statistics block gets one back, in the harness's shape, for the fuzz to break."""
    for block in ("ttft", "tpot", "latency"):
        if isinstance(document.get(block), dict):
            document[block].setdefault("histogram", {"buckets": [0, 1000, 2000], "counts": [3, 4]})
    return document


CHANGES = st.sampled_from([1, 1, 1, 2, 3])  # mostly one change: a file otherwise good reaches every check
HOW = st.sampled_from(["replace", "histogram", "histogram", "delete", "number token", "twice", "whole"])


def hostile_json(content: bytes, data) -> bytes:
    document = with_histograms(json.loads(content))
    for _ in range(data.draw(CHANGES, label="changes")):
        how = data.draw(HOW, label="how")
        paths = paths_of(document) if isinstance(document, (dict, list)) else []
        if how == "whole" or not paths:
            document = data.draw(VALUES, label="document")
            continue
        path = data.draw(st.sampled_from(paths), label="path")
        if how == "replace":
            set_at(document, path, data.draw(VALUES, label="value"))
        elif how == "histogram":
            histograms = [p for p in paths if p[-1] == "histogram"]
            if histograms:
                set_at(document, data.draw(st.sampled_from(histograms), label="histogram"), data.draw(VALUES, label="value"))
        elif how == "delete":
            delete_at(document, path)
        elif how == "number token" or how == "twice":
            text = json.dumps(document)
            key = path[-1]
            if isinstance(key, str):
                token = data.draw(st.sampled_from(NUMBER_TOKENS), label="token")
                spliced = (f'"{key}": {token}, "{key}": ' if how == "twice" else f'"{key}": {token}, "{key}_x": ')
                text = text.replace(f"{json.dumps(key)}: ", spliced, 1)
            return text.encode("utf-8")
    return json.dumps(document).encode("utf-8")


def hostile_text(content: bytes, data) -> bytes:
    lines = content.decode("utf-8").splitlines()
    for _ in range(data.draw(CHANGES, label="changes")):
        at = data.draw(st.integers(0, len(lines) - 1), label="line")
        how = data.draw(st.sampled_from(["value", "twice", "drop", "garbage"]), label="how")
        key, sep, _ = lines[at].partition(":")
        if how == "value" and sep:
            value = data.draw(st.sampled_from(NUMBER_TOKENS + ["nan", "inf", "-1", "", "1.5.5", "Yes", "0x10"])
                              | st.text(max_size=8), label="value")
            lines[at] = f"{key}: {value}"
        elif how == "twice" and sep:
            lines.insert(at, f"{key}: {data.draw(st.sampled_from(NUMBER_TOKENS + ['1', '2.00']), label='again')}")
        elif how == "drop":
            del lines[at]
        else:
            lines[at] = data.draw(st.text(max_size=30), label="garbage")
    return "\n".join(lines).encode("utf-8", errors="surrogatepass")


def broken_bytes(content: bytes, data) -> bytes:
    how = data.draw(st.sampled_from(["cut", "bad utf-8", "bom"]), label="bytes")
    if how == "cut":
        return content[:data.draw(st.integers(0, len(content)), label="cut at")]
    if how == "bom":
        return b"\xef\xbb\xbf" + content
    at = data.draw(st.integers(0, len(content)), label="at")
    return content[:at] + b"\xff\xfe" + content[at:]


def tree_file(name: str) -> TreeFile:
    _, path, kind = FILES[name]
    run_path = path.rsplit("/", 1)[0] if kind == "summary" else None
    if run_path and not run_path.endswith("performance/run_1"):
        run_path = f"{RUN}/performance/run_1"
    return TreeFile("v6.1", path, kind, f"/fuzz/{path}", run_path=run_path, root="/fuzz")


@settings(max_examples=100, deadline=None, derandomize=True, phases=[Phase.explicit, Phase.generate],
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@pytest.mark.slow
@given(data=st.data(), name=st.sampled_from(list(FILES)))
def test_a_hostile_tree_file_is_loaded_or_quarantined_never_an_exception(data, name):
    real = FILES[name][0].read_bytes()
    mangle = hostile_json if name.endswith(".json") else hostile_text
    content = mangle(real, data)
    if data.draw(st.integers(0, 9), label="bytes too") == 0:
        content = broken_bytes(content, data)
    outcome = _parsed(tree_file(name), Fetched.of("/fuzz", name, content), force=True)
    assert outcome.status in ("parsed", "quarantined"), outcome
    if outcome.status == "parsed":
        for column, value in outcome.record.items():
            if isinstance(value, float):
                assert math.isfinite(value), (column, value)
            elif isinstance(value, int) and not isinstance(value, bool) and not column.endswith("_rng_seed"):
                assert value in INT64, (column, value)
        check([outcome])  # Pandera: every check of the row's model, at once
        assert outcome.status in ("loaded", "quarantined")
    if outcome.status == "quarantined":
        assert outcome.reasons and all(isinstance(r, str) and r and not re.search(r"[\r\n]", r)
                                       for r in outcome.reasons), outcome.reasons


def test_the_real_files_load_as_they_are():
    """The fuzz's starting points parse and validate untouched (else every example is quarantined)."""
    for name, (path, _, _) in FILES.items():
        outcome = _parsed(tree_file(name), Fetched.of("/fuzz", name, path.read_bytes()), force=True)
        assert outcome.status == "parsed", (name, outcome.reasons)
        check([outcome])
        assert outcome.status == "loaded", (name, outcome.reasons)
