"""prices.csv: what an accelerator-hour costs you. Written by the user; never shipped as fact."""
import pandera.polars as pa
import polars as pl


class Price(pa.DataFrameModel):
    accelerator: str = pa.Field(unique=True, str_length={"min_value": 1}, description="canonical name")
    dollars_per_accelerator_hour: float = pa.Field(gt=0, description="row number counts the header as 1")
    note: str = pa.Field(description="the user's note on the price", nullable=True)
    source: str = pa.Field(description="where the price comes from: a quote, a list price, a URL (the report "
                           "prints it beside every cost)", nullable=True)
    priced_on: pl.Date = pa.Field(description="the day the price was quoted or read (YYYY-MM-DD)", nullable=True)

    @pa.check("dollars_per_accelerator_hour", name="finite")
    def finite(cls, data) -> pl.LazyFrame:
        return data.lazyframe.select(pl.col(data.key).is_finite())
