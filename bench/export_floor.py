"""The plain floor of `mlperf-wh export` (bench/export_bench.py): only the writing, every mart of the
published copy, as DuckDB and xlsxwriter do it with nothing around them. No manifest, no metadata, no
spreadsheet-safe text, no checks.

- parquet: `COPY (SELECT * FROM marts.X) TO 'OUT/X' (FORMAT parquet, PARTITION_BY (round))` for each
  mart with a round column, the others `TO 'OUT/X.parquet'`;
- csv: `COPY (SELECT * FROM marts.X) TO 'OUT/X.csv' (FORMAT csv, HEADER true)`;
- xlsx: every row of every mart written with xlsxwriter's constant-memory mode, a sheet per mart.

    python bench/export_floor.py FORMAT WAREHOUSE_FILE OUT_DIR"""
import sys
from pathlib import Path

import duckdb

ROUND_COLUMNS = ("round", "round_to", "round_from")


def marts(con) -> list[tuple[str, list[str]]]:
    rows = con.execute("SELECT table_name, list(column_name ORDER BY column_index) FROM duckdb_columns() "
                       "WHERE schema_name = 'marts' AND database_name = current_database() "
                       "GROUP BY table_name ORDER BY table_name").fetchall()
    return [(name, columns) for name, columns in rows]


def write_copy(con, fmt: str, out: Path) -> None:
    for name, columns in marts(con):
        key = next((c for c in ROUND_COLUMNS if c in columns), None)
        if fmt == "parquet" and key and not name.startswith("dim_"):
            con.execute(f"COPY (SELECT * FROM marts.\"{name}\") TO '{out / name}' "
                        f"(FORMAT parquet, PARTITION_BY (\"{key}\"))")
        else:
            options = "FORMAT parquet" if fmt == "parquet" else "FORMAT csv, HEADER true"
            con.execute(f"COPY (SELECT * FROM marts.\"{name}\") TO '{out / f'{name}.{fmt}'}' ({options})")


def write_xlsx(con, out: Path) -> None:
    import xlsxwriter
    with xlsxwriter.Workbook(str(out / "marts.xlsx"), {"constant_memory": True}) as workbook:
        for name, columns in marts(con):
            sheet = workbook.add_worksheet(name[:31])
            sheet.write_row(0, 0, columns)
            cursor = con.execute(f"SELECT * FROM marts.\"{name}\"")
            row = 1
            while batch := cursor.fetchmany(2048):
                for values in batch:
                    sheet.write_row(row, 0, [v if v is None or isinstance(v, (int, float, str, bool)) else str(v)
                                             for v in values])
                    row += 1


if __name__ == "__main__":
    fmt, warehouse, out = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    out.mkdir(parents=True)
    with duckdb.connect(warehouse, read_only=True) as con:
        write_xlsx(con, out) if fmt == "xlsx" else write_copy(con, fmt, out)
