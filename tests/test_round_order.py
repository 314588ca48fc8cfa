"""Round order exists once per language and both agree: Python's round_sort_key and SQL's round_order."""
import duckdb
import pytest

from warehouse.identity.rounds import ROUND_ORDER_MACRO, round_sort_key

pytestmark = pytest.mark.unit

NAMES = ["v10.0", "v4.1", "v9.1", "v6.0", "v5.1", "v0.5", "v6.10", "v6.2"]


def test_sql_round_order_sorts_as_round_sort_key():
    with duckdb.connect() as con:
        con.execute(ROUND_ORDER_MACRO)
        in_sql = [name for (name,) in con.execute(
            "SELECT name FROM (SELECT unnest(?) AS name) ORDER BY round_order(name)", [NAMES]).fetchall()]
    # by hand: v0.5 < v4.1 < v5.1 < v6.0 < v6.2 < v6.10 (minor 10 after 2) < v9.1 < v10.0 (major 10 after 9)
    assert in_sql == sorted(NAMES, key=round_sort_key) == ["v0.5", "v4.1", "v5.1", "v6.0", "v6.2", "v6.10",
                                                          "v9.1", "v10.0"]
