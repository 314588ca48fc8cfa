"""The yardstick of `mlperf-wh sql`: one query through DuckDB's Python API in a plain script, its rows
printed (bench/query_bench.py). Usage: plain_query.py WAREHOUSE_FILE QUERY"""
import sys

import duckdb

con = duckdb.connect(sys.argv[1], read_only=True)
con.execute("SET search_path = 'main,marts,intermediate,staging,base'")  # as every project connection
for row in con.execute(sys.argv[2]).fetchall():
    print(row)
