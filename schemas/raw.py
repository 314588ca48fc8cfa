"""Raw file formats: which columns each must carry. Every raw field is read as text.

A file missing a required column is rejected whole; an extra column nobody knows is accepted and
reported, since MLCommons adds fields from round to round.
"""
from __future__ import annotations

import pandera.polars as pa
import polars as pl

from schemas.failures import failures_of


class FinalResultsFile(pa.DataFrameModel):
    """summary_results.json: MLCommons' final table, one object per (entry, model, scenario)."""

    ID: str = pa.Field(nullable=True, description="result id, e.g. 6.0-0078; shared by an entry's rows")
    Submitter: str = pa.Field(nullable=True)
    Availability: str = pa.Field(nullable=True, description="available | preview | rdi")
    Category: str = pa.Field(nullable=True, description="division: closed | open | network")
    Suite: str = pa.Field(nullable=True, description="datacenter, edge or both comma-joined")
    System: str = pa.Field(nullable=True)
    Platform: str = pa.Field(nullable=True)
    Model: str = pa.Field(nullable=True, description="the benchmark")
    Scenario: str = pa.Field(nullable=True)
    Performance_Result: str = pa.Field(nullable=True)
    Performance_Units: str = pa.Field(nullable=True)

    class Config:
        strict = False


# The checker's column names -> the final table's, as generate_final_report.py renames them.
CHECKER_TO_FINAL = {
    "Organization": "Submitter",
    "Division": "Category",
    "SystemType": "Suite",
    "SystemName": "System",
    "number_of_nodes": "Nodes",
    "host_processor_model_name": "Processor",
    "accelerator_model_name": "Accelerator",
    "accelerators_per_node": "a#",
    "notes": "Notes",
    "framework": "Software",
}

# Columns the checker's ResultExporter writes from v6.1 on (mlcommons/inference
# tools/submission/submission_checker/results.py): the accelerator total in the checker's own name
# (nodes x accelerators per node, read where "Total Accelerators" is absent), an ID private to
# MLCommons' review, and the design power of a power submission (checks/system_check.py
# nameplate_power_check: the system's power capacity, or its nameplate PSUs; null without power).
# Known, kept in the row's `extra` as published.
V61_COLUMNS = {"total_accelerators", "PrivateID", "design_power_watts"}

FINAL_OPTIONAL = {
    "UsedModel", "Power_Result", "Power_Units", "Nodes", "a#", "Total Accelerators", "Accelerator",
    "Processor", "Software", "weight_data_types", "Accuracy", "inferred", "has_power", "version",
    "Details", "Code", "Location", "Notes", "compliance", "errors", "p#", "host_processors_per_node",
    "host_processor_core_count", "operating_system", "Unique ID (e.g. for Audit)", "ColorKey",
    *sorted(V61_COLUMNS),
}
CHECKER_OPTIONAL = set(CHECKER_TO_FINAL) | {
    "Accuracy", "host_processors_per_node", "host_processor_core_count", "Location",
    "operating_system", "compliance", "errors", "version", "inferred", "has_power",
    "weight_data_types", "Total Accelerators", *sorted(V61_COLUMNS),
}

# The fields the parser reads into canonical columns; every other field of a record is kept, as
# published, in the row's `extra` JSON (nothing a file says is dropped).
MAPPED_FINAL = {
    "ID", "Submitter", "Availability", "Category", "Suite", "System", "Platform", "Model", "UsedModel",
    "Scenario", "Performance_Result", "Performance_Units", "Power_Result", "Power_Units", "Nodes", "a#",
    "Total Accelerators", "Accelerator", "Processor", "Software", "weight_data_types", "Accuracy",
    "inferred", "Unique ID (e.g. for Audit)", "Location", "Notes", "host_processors_per_node", "p#",
}
MAPPED_CHECKER = (
    (MAPPED_FINAL - {"Performance_Result", "Performance_Units", "Power_Result", "Power_Units"})
    | {"Result", "Units", "MlperfModel"}
    | {checker for checker, final in CHECKER_TO_FINAL.items() if final in MAPPED_FINAL}
) - {final for checker, final in CHECKER_TO_FINAL.items()} - {"ID"}

REQUIRED_FINAL = set(FinalResultsFile.to_schema().columns)
# The checker's file is the final table under the checker's own names: without the ID (the final-report
# tool numbers the rows), with the model actually run (`Model`) beside the benchmark (`MlperfModel`).
CHECKER_RESULTS_FILE = (
    FinalResultsFile.to_schema()
    .remove_columns(["ID"])
    .rename_columns({"Model": "MlperfModel", "Performance_Result": "Result", "Performance_Units": "Units"}
                    | {final: checker for checker, final in CHECKER_TO_FINAL.items() if final in REQUIRED_FINAL})
    .add_columns({"Model": pa.Column(str, nullable=True, description="the model actually run (final: UsedModel)")})
)
CHECKER_RESULTS_FILE.name = "CheckerResultsFile"
CHECKER_RESULTS_FILE.description = "summary.csv / summary.json: the submission checker's output, one row per result."

MODELS = {"final": FinalResultsFile.to_schema(), "checker_json": CHECKER_RESULTS_FILE,
          "checker_csv": CHECKER_RESULTS_FILE}
OPTIONAL = {"final": FINAL_OPTIONAL, "checker_json": CHECKER_OPTIONAL, "checker_csv": CHECKER_OPTIONAL}
MAPPED = {"final": MAPPED_FINAL, "checker_json": MAPPED_CHECKER, "checker_csv": MAPPED_CHECKER}


def missing_columns(raw: pl.DataFrame, fmt: str) -> list[str]:
    """Required columns of the format that the raw frame lacks (validated by the format's model; on
    the columns alone, no rows: a column's presence is all this asks)."""
    return [f.got for f in failures_of(MODELS[fmt], raw.clear()) if f.check == "column_in_dataframe"]


def unknown_columns(raw: pl.DataFrame, fmt: str, bookkeeping: set[str]) -> list[str]:
    """Columns neither required nor known as optional: accepted, and reported."""
    known = set(MODELS[fmt].columns) | OPTIONAL[fmt] | bookkeeping
    return sorted(c for c in raw.columns if c not in known)
