"""Vendor claims and capacity decision records, as analysts write them in TOML files."""
from __future__ import annotations

import pandera.polars as pa
import polars as pl

from schemas import ROUND, ROUND_NAME
from schemas.results import SCENARIOS

KINDS = ["generation_speedup", "software_gain", "scaling_efficiency", "scale_speedup", "absolute"]
STAGES = ["mlcommons_verified", "preview", "post_submission_unverified", "vendor_self_test"]
BASES = ["same_scale", "per_accelerator"]
DIRECTIONS = ["throughput", "latency"]


class Claim(pa.DataFrameModel):
    """One `[[claim]]`: a vendor's multiplier, bound to a workload, with the stage of its evidence."""

    id: str = pa.Field(description="the claim's id in its claims file (unique across files)", unique=True, str_length={"min_value": 1})
    vendor: str = pa.Field(description="who makes the claim", str_length={"min_value": 1})
    source: str = pa.Field(str_matches=r"^https?://", description="URL of the statement")
    published_on: pl.Date = pa.Field(description="the day the statement was published")
    statement: str = pa.Field(str_length={"min_value": 1}, description="the quoted words")
    round: str = pa.Field(description="the MLPerf round the claim is about", str_matches=ROUND)
    model: str = pa.Field(str_length={"min_value": 1}, description="a benchmark, MLPerf or not")
    benchmark: str = pa.Field(description="canonical MLPerf benchmark, or the model as written")
    scenario: str = pa.Field(nullable=True, isin=SCENARIOS, description="absent: 'up to' across scenarios")
    kind: str = pa.Field(description="generation_speedup, software_gain, scaling_efficiency, scale_speedup or absolute", isin=KINDS)
    accelerator: str = pa.Field(nullable=True, description="canonical accelerator")
    baseline_accelerator: str = pa.Field(description="canonical accelerator of the baseline side (generation speedups)", nullable=True)
    total_accelerators: pl.Int64 = pa.Field(description="system size of the new side, accelerators", nullable=True, ge=1)
    baseline_total_accelerators: pl.Int64 = pa.Field(description="system size of the baseline side, accelerators", nullable=True, ge=1)
    round_from: str = pa.Field(description="the earlier round a software gain is measured from", nullable=True, str_matches=ROUND)
    submitter: str = pa.Field(description="the submitter whose results the claim rests on; absent: any", nullable=True)
    basis: str = pa.Field(nullable=True, isin=BASES, description="absent: the largest available")
    multiplier: float = pa.Field(nullable=True, gt=0,
                                 description="the claimed number: a multiplier, or an absolute claim's result "
                                             "(claim_audit.result_claimed); absent only when the vendor gave none")
    direction: str = pa.Field(isin=DIRECTIONS, description="throughput (higher wins: new over base) or "
                              "latency (lower wins: base over new); absent in the file: throughput")
    stage: str = pa.Field(description="the evidence's stage: mlcommons_verified, preview, post_submission_unverified or vendor_self_test", isin=STAGES)
    cited_result_ids: pl.List(pl.String) = pa.Field(nullable=True, description="the result entries the "
                                                    "vendor cites (e.g. 6.1-0106); audited as cited")

    @pa.dataframe_check(error="a generation_speedup needs accelerator and baseline_accelerator")
    def generation_pair_named(cls, data) -> pl.LazyFrame:
        return data.lazyframe.select((pl.col("kind") != "generation_speedup")
                                     | (pl.col("accelerator").is_not_null()
                                        & pl.col("baseline_accelerator").is_not_null()))

    @pa.dataframe_check(error="a scaling_efficiency needs accelerator_count > baseline_accelerator_count")
    def scaling_sizes_named(cls, data) -> pl.LazyFrame:
        return data.lazyframe.select((pl.col("kind") != "scaling_efficiency")
                                     | (pl.col("total_accelerators") > pl.col("baseline_total_accelerators"))
                                     .fill_null(False))

    @pa.dataframe_check(error="a scale_speedup needs accelerator_count > baseline_accelerator_count")
    def scale_speedup_sizes_named(cls, data) -> pl.LazyFrame:
        return data.lazyframe.select((pl.col("kind") != "scale_speedup")
                                     | (pl.col("total_accelerators") > pl.col("baseline_total_accelerators"))
                                     .fill_null(False))

    @pa.dataframe_check(error="a scaling_efficiency is a throughput ratio: direction must be throughput")
    def scaling_is_throughput(cls, data) -> pl.LazyFrame:
        return data.lazyframe.select((pl.col("kind") != "scaling_efficiency")
                                     | (pl.col("direction") == "throughput"))

    @pa.dataframe_check(error="a software_gain needs an accelerator")
    def software_gain_named(cls, data) -> pl.LazyFrame:
        return data.lazyframe.select((pl.col("kind") != "software_gain")
                                     | pl.col("accelerator").is_not_null())


class Decision(pa.DataFrameModel):
    """One `[[decision]]`: a capacity decision with the claims it used and excluded, and its review."""

    id: str = pa.Field(description="the decision's id in its decisions file (unique across files)", unique=True, str_length={"min_value": 1})
    title: str = pa.Field(description="what was decided, in a line", str_length={"min_value": 1})
    workload: str = pa.Field(description="the workload the decision is for, as written")
    metric: str = pa.Field(description="the figure the decision was taken on, as written")
    measured_by: str = pa.Field(description="as written; a list is joined with '; '")
    measured_by_items: pl.List(pl.String) = pa.Field(description="each item of measured_by: an own run's "
                                                     "label or run id links it (own_runs)")
    claims_used: pl.List(pl.String) = pa.Field(description="ids of the claims the decision rests on")
    claims_excluded: pl.List(pl.String) = pa.Field(description="ids of the claims considered and left out")
    decision: str = pa.Field(description="the decision, as written", str_length={"min_value": 1})
    decided_on: pl.Date = pa.Field(description="the day it was decided")
    review_due: str = pa.Field(str_matches=rf"^({ROUND_NAME}|next|[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}})$",
                               description="a round (v6.2), 'next', or a date")
    review_round: str = pa.Field(description="the round whose publication makes the review due (review_due a round)", nullable=True, str_matches=ROUND)
    review_date: pl.Date = pa.Field(description="the date that makes the review due (review_due a date)", nullable=True)
