"""`python -m warehouse.views`: write sql/_reads.json, what each model of sql/ reads (after editing a
model; tests/test_sql_layers.py fails while it is out of date)."""
from warehouse.views import write_recorded_reads

if __name__ == "__main__":
    print(f"wrote {write_recorded_reads()}")
