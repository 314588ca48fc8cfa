"""Pandera (polars) models: the schema is the documentation of every table we accept."""
from functools import lru_cache

# A round name, e.g. v6.0: ASCII digits only (not "v6.0\n", not other scripts' digits). The one
# definition, here so that warehouse.identity.rounds can use it without importing Pandera: the schemas match
# ROUND, warehouse.identity.rounds compiles ROUND_NAME for the CLI, paths and URLs.
ROUND_NAME = r"v([0-9]{1,2})\.([0-9]{1,2})"
ROUND = f"^{ROUND_NAME}$"


@lru_cache(maxsize=None)
def polars_types(model) -> dict:
    """column -> polars type of a Pandera DataFrameModel, in schema order (the model is a class:
    its schema is built once)."""
    return {name: column.dtype.type for name, column in model.to_schema().columns.items()}
