"""manifest.json of an export: one row per file (per sheet for the workbook). Every manifest the
export writes, in each format, is checked against it by tests/test_export.py; the export itself does
not import Pandera (about 0.1 s of a 1 s export)."""
import pandera.polars as pa
import polars as pl


class ManifestFile(pa.DataFrameModel):
    path: str = pa.Field(str_length={"min_value": 1}, description="relative to the export directory")
    view: str = pa.Field(description="the mart (or table) the file holds rows of")
    sheet: str = pa.Field(nullable=True, description="worksheet of the workbook, xlsx only")
    format: str = pa.Field(isin=["parquet", "csv", "xlsx"])
    rows: pl.Int64 = pa.Field(ge=0, description="rows of the view in this file")
    bytes: pl.Int64 = pa.Field(gt=0)
    sha256: str = pa.Field(str_matches=r"^[0-9a-f]{64}$")

    @pa.dataframe_check(error="one file (or sheet) listed twice")
    def one_entry_per_file(cls, data) -> pl.LazyFrame:
        return data.lazyframe.select(pl.struct("path", "sheet").is_unique())

    class Config:
        strict = False  # rounds, loads, columns and partition are nested; they are checked by tests
