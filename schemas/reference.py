"""Reference tables shipped as data files in warehouse/identity/reference/ and edited by hand."""
from __future__ import annotations

import duckdb
import pandera.polars as pa
import polars as pl

from schemas import ROUND
from schemas.results import SCENARIOS

# What a throughput or latency result counts, as the round's submission checker reads it from LoadGen.
# samples_per_query: MultiStream before v2.0 (the streams a system sustained within the latency bound).
COUNTS = ["tokens", "samples", "latency", "samples_per_query"]
# Who a part is sold to, and how it is built into a system: a generation speedup compares a part only
# with its predecessors of the same line, segment and form factor.
SEGMENTS = ["datacenter", "workstation", "edge", "client"]
FORM_FACTORS = ["rack-scale NVLink domain", "8-GPU baseboard", "superchip module", "PCIe card", "OAM module",
                "SoC module", "mobile GPU", "integrated GPU", "integrated NPU", "TPU board", "M.2 module",
                "USB accelerator"]


class AcceleratorAlias(pa.DataFrameModel):
    """accelerators.csv: alias regex -> canonical accelerator. First matching row wins."""

    pattern: str = pa.Field(unique=True, description="regular expression searched in the raw name")
    accelerator: str = pa.Field(str_length={"min_value": 1},
                                description="canonical name: the part as it was sold (its variant: memory, form "
                                            "factor, TDP, edition or tier, core count)")
    product: str = pa.Field(str_length={"min_value": 1},
                            description="the product its variants roll up to ('A100' for every A100), for the "
                                        "questions that ask about a product in any form")
    vendor: str = pa.Field(description="who makes the accelerator")
    family: str = pa.Field(description="architecture, e.g. Blackwell Ultra")
    generation: pl.Int64 = pa.Field(ge=1, description="order within the vendor, newer is larger")
    memory_gb: float = pa.Field(description="accelerator memory, GB", nullable=True, gt=0)
    tdp_watts: float = pa.Field(nullable=True, gt=0, description="design power, where publicly stated")
    segment: str = pa.Field(isin=SEGMENTS, description="who it is sold to")
    form_factor: str = pa.Field(isin=FORM_FACTORS, description="how it is built into a system")
    line: str = pa.Field(str_length={"min_value": 1}, description="product line, e.g. NVIDIA HGX")
    predecessor: str = pa.Field(nullable=True, description="the part of the same line it succeeds")
    accepts: str = pa.Field(nullable=True,
                            description="the variant words (variant_markers.csv: tier, edition, cores, thermal) a "
                                        "name of this part may carry, a regular expression each word must match "
                                        "whole; its memory, TDP and form-factor words are accepted by those columns")
    tdp_source: str = pa.Field(nullable=True, str_startswith="https://",
                               description="where the part's facts (its variant, memory_gb, tdp_watts) are stated")

    @pa.check("pattern", error="pattern is not a valid RE2 regular expression")
    def compiles(cls, series) -> pl.LazyFrame:
        return patterns_compile(series)

    @pa.check("accepts", error="accepts is not a valid RE2 regular expression")
    def accepts_compile(cls, series) -> pl.LazyFrame:
        return patterns_compile(series, "accepts")

    @pa.dataframe_check(error="one canonical accelerator has conflicting attributes (vendor, generation, TDP, line...)")
    def consistent_attributes(cls, data) -> pl.LazyFrame:
        attrs = ["product", "vendor", "family", "generation", "memory_gb", "tdp_watts", "segment", "form_factor", "line",
                 "predecessor", "tdp_source"]
        distinct = pl.struct(attrs).n_unique().over("accelerator")
        return data.lazyframe.select(distinct == 1)

    @pa.dataframe_check(error="predecessor is not an accelerator of the same line (or the line runs in a cycle)")
    def predecessor_in_line(cls, data) -> pl.LazyFrame:
        return succession_holds(data.lazyframe, "accelerator")


class BenchmarkAlias(pa.DataFrameModel):
    """benchmarks.csv: raw benchmark name -> canonical benchmark (or a category, e.g. VLM)."""

    alias: str = pa.Field(description="a benchmark name as published (matched case-insensitively)", unique=True)
    benchmark: str = pa.Field(nullable=True, description="null for categories")
    kind: str = pa.Field(description="benchmark, or category for a name that names a family (e.g. VLM)", isin=["benchmark", "category"])
    output_unit: str = pa.Field(description="what the benchmark produces (tokens, samples...)", nullable=True)

    @pa.dataframe_check(error="alias repeated (aliases match case-insensitively)")
    def alias_unique_ignoring_case(cls, data) -> pl.LazyFrame:
        return data.lazyframe.select(pl.col("alias").str.to_lowercase().is_unique())

    @pa.dataframe_check(error="a benchmark alias needs a canonical benchmark")
    def benchmark_named(cls, data) -> pl.LazyFrame:
        return data.lazyframe.select((pl.col("kind") == "category") | pl.col("benchmark").is_not_null())


class RackCapacity(pa.DataFrameModel):
    """rack_capacity.csv: how many accelerators a rack holds; the assumption is stated."""

    accelerator: str = pa.Field(description="canonical accelerator (accelerators.csv)", unique=True)
    accelerators_per_rack: pl.Int64 = pa.Field(description="accelerators one rack holds, by the assumption", ge=1)
    accelerators_per_server: pl.Int64 = pa.Field(
        description="accelerators one server of the rack holds (an NVL72 compute tray: 4; an HGX or OAM "
                    "baseboard: 8): a per-rack figure extrapolated from fewer is never ranked with racks", ge=1)
    assumption: str = pa.Field(description="the rack the figure assumes (e.g. one NVL72 rack)")

    @pa.dataframe_check(error="accelerators_per_server is more than accelerators_per_rack")
    def server_fits_rack(cls, data) -> pl.LazyFrame:
        return data.lazyframe.select(pl.col("accelerators_per_server") <= pl.col("accelerators_per_rack"))


class SystemPower(pa.DataFrameModel):
    """system_power.csv: the power a whole system or rack built around an accelerator draws, as a
    cited source states it, and what that figure includes. Per-kW estimates scale it by accelerator
    count (system_watts / accelerators_per_system each); never mixed with measured power."""

    accelerator: str = pa.Field(unique=True, description="canonical accelerator (accelerators.csv)")
    system: str = pa.Field(str_length={"min_value": 1}, description="the system the figure is for")
    accelerators_per_system: pl.Int64 = pa.Field(description="accelerators in the system the figure is for", ge=1)
    system_watts: float = pa.Field(gt=0, description="the whole system's power, in watts")
    includes: str = pa.Field(str_length={"min_value": 1}, description="what the figure covers, and how good its source is")
    source_url: str = pa.Field(description="where the figure is stated", str_startswith="https://")
    checked_on: pl.Date = pa.Field(description="the day the figure was read from the source")


class ProcessorAlias(pa.DataFrameModel):
    """processors.csv: alias regex -> canonical processor of a CPU-only system (no accelerator), so
    Xeon and EPYC generations and their software gains are compared as accelerators are. First
    matching row wins."""

    pattern: str = pa.Field(unique=True, description="regular expression searched in the published name")
    processor: str = pa.Field(str_length={"min_value": 1}, description="canonical name")
    vendor: str = pa.Field(description="who makes the processor")
    family: str = pa.Field(description="microarchitecture, e.g. Granite Rapids")
    line: str = pa.Field(str_length={"min_value": 1}, description="product line, e.g. Intel Xeon")
    segment: str = pa.Field(description="who it is sold to", isin=SEGMENTS)
    predecessor: str = pa.Field(nullable=True, description="the part of the same line it succeeds")
    source: str = pa.Field(str_startswith="https://", description=(
        "where the part is stated as it ran: the system description of a round that names it (the raw "
        "file of the round repository), or a page that names the part and its family"))

    @pa.check("pattern", error="pattern is not a valid RE2 regular expression")
    def compiles(cls, series) -> pl.LazyFrame:
        return patterns_compile(series)

    @pa.dataframe_check(error="one canonical processor has conflicting attributes (vendor, family, line, source...)")
    def consistent_attributes(cls, data) -> pl.LazyFrame:
        distinct = pl.struct(["vendor", "family", "line", "segment", "predecessor", "source"]).n_unique().over("processor")
        return data.lazyframe.select(distinct == 1)

    @pa.dataframe_check(error="predecessor is not a processor of the same line (or the line runs in a cycle)")
    def predecessor_in_line(cls, data) -> pl.LazyFrame:
        return succession_holds(data.lazyframe, "processor")


class ModelId(pa.DataFrameModel):
    """model_ids.csv: the model id a serving benchmark reports (a Hugging Face id, a local name) ->
    the MLPerf benchmark family it is, and that family's benchmarks. First matching row wins; a row
    whose `exclude` pattern also matches does not (a distilled model is another model)."""

    pattern: str = pa.Field(unique=True, description="regular expression searched in the model id")
    exclude: str = pa.Field(nullable=True, description="ids this pattern matches that are other models")
    family: str = pa.Field(str_length={"min_value": 1}, description="the model, as MLPerf names it")
    benchmarks: str = pa.Field(str_matches=r"^\S+( \S+)*$",
                               description="the canonical benchmarks (benchmarks.csv) running it, space-separated")
    note: str = pa.Field(description="why the pattern maps to the family")

    @pa.check("pattern", error="pattern is not a valid RE2 regular expression")
    def compiles(cls, series) -> pl.LazyFrame:
        return patterns_compile(series)

    @pa.check("exclude", error="exclude is not a valid RE2 regular expression")
    def exclude_compiles(cls, series) -> pl.LazyFrame:
        return patterns_compile(series, "exclude")

    @pa.dataframe_check(error="one family lists different benchmarks on different rows")
    def family_benchmarks_agree(cls, data) -> pl.LazyFrame:
        return data.lazyframe.select(pl.col("benchmarks").n_unique().over("family") == 1)


class ScenarioConstraint(pa.DataFrameModel):
    """scenario_constraints.csv: the latency a Server or Interactive run of an LLM benchmark must keep
    at the 99th percentile (LoadGen's mlperf.conf); Offline has none."""

    benchmark: str = pa.Field(description="canonical benchmark (benchmarks.csv)")
    scenario: str = pa.Field(description="Server or Interactive", isin=["Server", "Interactive"])
    ttft_p99_ms: float = pa.Field(gt=0, description="time to first token, ms")
    tpot_p99_ms: float = pa.Field(gt=0, description="time per output token, ms")
    source: str = pa.Field(description="where the constraint is stated (LoadGen's mlperf.conf)", str_startswith="https://")

    @pa.dataframe_check(error="(benchmark, scenario) repeated")
    def one_row_each(cls, data) -> pl.LazyFrame:
        return data.lazyframe.select(pl.struct("benchmark", "scenario").is_unique())


def patterns_compile(series, column: str = "pattern") -> pl.LazyFrame:
    """Per row: the column's pattern compiles as RE2 (DuckDB's dialect); an empty cell passes."""
    patterns = series.lazyframe.select(column).collect().to_series().to_list()
    written = [p for p in patterns if p is not None]
    with duckdb.default_connection().cursor() as con:  # the process's in-memory database: no new one
        compiled = {p: True for p in written} if _all_compile(con, written) else {p: _compiles(con, p) for p in written}
    return pl.LazyFrame({column: [p is None or compiled[p] for p in patterns]})


def succession_holds(frame: pl.LazyFrame, part: str) -> pl.LazyFrame:
    """Per row: its predecessor (if any) is a part of the table in the same line, and following
    predecessors from it never comes back to it."""
    rows = frame.select(part, "line", "predecessor").collect()
    line_of = dict(zip(rows[part], rows["line"]))
    before = {name: pred for name, pred in zip(rows[part], rows["predecessor"]) if pred}
    ok = []
    for name, pred in zip(rows[part], rows["predecessor"]):
        seen, step = {name}, pred
        holds = pred is None or line_of.get(pred) == line_of[name]
        while holds and step is not None:
            holds = step not in seen
            seen.add(step)
            step = before.get(step)
        ok.append(holds)
    return pl.LazyFrame({"ok": ok})


class SoftwareStack(pa.DataFrameModel):
    """software_stacks.csv: the published software string -> the serving stack family it names
    (TensorRT, vLLM, SGLang...), so a generation speedup can say whether both sides ran the same
    stack. A string naming several takes its first-named engine (the match that starts earliest; file
    order breaks a tie); a framework (PyTorch, TensorFlow, JAX) only when it names no engine. NVIDIA's
    v6.0 string names TensorRT-LLM, Dynamo and a vLLM build, and is TensorRT; its v6.1 Vera Rubin
    string "TRTLLM-rubin, vLLM-CentML..., Dynamo" is TensorRT too; "PyTorch 2.7.0, vLLM 0.9" is vLLM."""

    pattern: str = pa.Field(unique=True, description="regular expression searched in the published software string")
    stack: str = pa.Field(str_length={"min_value": 1}, description="the stack family")
    role: str = pa.Field(isin=["engine", "framework"],
                         description="engine (serves the model: TensorRT, vLLM, SGLang...) or framework (PyTorch, "
                                     "TensorFlow, JAX: taken only when the string names no engine)")
    note: str = pa.Field(description="what the pattern catches, with a published string it was written for")

    @pa.check("pattern", error="pattern is not a valid RE2 regular expression")
    def compiles(cls, series) -> pl.LazyFrame:
        return patterns_compile(series)


class PlausibilityCeiling(pa.DataFrameModel):
    """plausibility_ceilings.csv: how large a software gain or a generation speedup may be before it
    needs corroboration to be believed. A pair above its ceiling that is not corroborated (same
    submitter and system on both sides, notes that agree) is an `implausible_gain` finding and leaves
    procurement grade. The ceilings are set from the largest corroborated pairs of the loaded rounds
    (derivation says which); tests/test_golden_answers.py fails when a corroborated pair passes one."""

    comparison: str = pa.Field(unique=True, isin=["software_gain", "generation_speedup"],
                               description="software_gains (per step between rounds) or generation_speedups")
    ceiling: float = pa.Field(gt=1, description="the largest gain (times) believed without corroboration")
    derivation: str = pa.Field(str_length={"min_value": 1},
                               description="the corroborated pairs the ceiling was set from, and the margin")


class ResultField(pa.DataFrameModel):
    """result_fields.csv: which LoadGen field each round's submission checker reads as the result of a
    benchmark and scenario, and so what the published number counts. The final table's unit label
    comes from a separate dictionary of the final-report tool and is sometimes wrong (whisper
    Offline: "Samples/s" for the checker's tokens per second); this table is what the label is
    checked against. A row holds from `round_from` until a later row of the same benchmark and
    scenario; benchmark '*' is the round's default for every benchmark without a row of its own."""

    benchmark: str = pa.Field(str_length={"min_value": 1},
                              description="canonical benchmark (benchmarks.csv), or * for every other")
    scenario: str = pa.Field(isin=SCENARIOS, description="Interactive runs are LoadGen Server runs")
    round_from: str = pa.Field(str_matches=ROUND, description="the first round the checker read this field")
    loadgen_field: str = pa.Field(str_length={"min_value": 1}, description="the key of mlperf_log_detail.txt")
    counts: str = pa.Field(isin=COUNTS, description="what the result counts per second (or its latency)")
    source: str = pa.Field(str_startswith="https://", description="the checker's source where it is read")

    @pa.dataframe_check(error="(benchmark, scenario, round_from) repeated")
    def one_rule_per_round(cls, data) -> pl.LazyFrame:
        return data.lazyframe.select(pl.struct("benchmark", "scenario", "round_from").is_unique())


class BenchmarkEra(pa.DataFrameModel):
    """benchmark_eras.csv: what a benchmark was called and what its result measured, round by round. A
    row opens an era from `round_from` for the benchmark (or '*': every benchmark) in the scenario (or
    '*': every scenario). Two results of one benchmark and scenario compare across rounds only when no
    row with comparable_with_previous = false begins after the earlier and by the later: a change of
    model, data set, accuracy target, latency bound or metric. A gain is never computed across one."""

    benchmark: str = pa.Field(str_length={"min_value": 1}, description="canonical benchmark (benchmarks.csv), or *")
    scenario: str = pa.Field(description="a scenario, or * for every scenario", isin=SCENARIOS + ["*"])
    round_from: str = pa.Field(str_matches=ROUND, description="the first round of the era")
    published_as: str = pa.Field(str_length={"min_value": 1}, description="the names the benchmark was published under")
    measures: str = pa.Field(str_length={"min_value": 1}, description="model, data set, target, bound or metric of the era")
    comparable_with_previous: bool = pa.Field(description="results of this era compare with the era before it")
    why: str = pa.Field(str_length={"min_value": 1}, description="what changed (or 'first round')")
    source: str = pa.Field(str_startswith="https://", description="where the era's definition is read")

    @pa.dataframe_check(error="(benchmark, scenario, round_from) repeated")
    def one_era_per_round(cls, data) -> pl.LazyFrame:
        return data.lazyframe.select(pl.struct("benchmark", "scenario", "round_from").is_unique())


MARKER_KINDS = ["memory", "power", "form", "tier", "edition", "cores", "thermal", "virtualization"]


class VariantMarker(pa.DataFrameModel):
    """variant_markers.csv: the words by which a published name says which variant of a part it is.
    A name is matched whole or not at all: every marker found in it must be accepted by the row of
    accelerators.csv it resolves to (memory by memory_gb, power by tdp_watts, form by form_factor, the
    other kinds by the row's `accepts`), else the next row is tried, and a name no row accepts is
    listed by `drift` rather than read as a part it is not (a 'Lite' card as the 'Pro'). A
    virtualization marker is accepted by every row and makes the part '<part> (virtualized)'; in a
    system name (`reads` = 'system name') it marks every result of that system."""

    kind: str = pa.Field(isin=MARKER_KINDS, description="what the word says of the part")
    pattern: str = pa.Field(unique=True, description="regular expression found in the name (RE2)")
    reads: str = pa.Field(isin=["accelerator name", "system name"], description="the published field it is read from")
    form_factor: str = pa.Field(nullable=True, isin=FORM_FACTORS, description="for kind form: the form factor it names")
    example: str = pa.Field(str_length={"min_value": 1}, description="a published name that carries it")
    why: str = pa.Field(str_length={"min_value": 1}, description="why the word changes performance or power")

    @pa.check("pattern", error="pattern is not a valid RE2 regular expression")
    def compiles(cls, series) -> pl.LazyFrame:
        return patterns_compile(series)

    @pa.dataframe_check(error="a form marker names a form factor; no other kind does")
    def form_names_its_factor(cls, data) -> pl.LazyFrame:
        return data.lazyframe.select((pl.col("kind") == "form") == pl.col("form_factor").is_not_null())


def _all_compile(con: duckdb.DuckDBPyConnection, patterns: list[str]) -> bool:
    """One query for the usual case; only a file with a bad pattern is checked one pattern at a time."""
    try:
        con.execute("SELECT count(*) FROM unnest(?) AS t(pattern) WHERE regexp_matches('', pattern)", [patterns])
    except duckdb.Error:
        return False
    return True


def _compiles(con: duckdb.DuckDBPyConnection, pattern: str) -> bool:
    """The patterns run in DuckDB's regular expression engine (RE2), at view time."""
    try:
        con.execute("SELECT regexp_matches('', ?)", [pattern])
    except duckdb.Error:
        return False
    return True
