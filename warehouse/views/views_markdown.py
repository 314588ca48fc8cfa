"""docs/views.md: the marts and their columns, rendered from a warehouse with no rows (types do not
depend on the data), so `make docs` needs no loaded round."""
from __future__ import annotations

from warehouse.store import db
from warehouse.views.column_docs import VIEWS_MD, render_markdown
from warehouse.views.materialize import materialize

__all__ = ["VIEWS_MD", "empty_warehouse_markdown"]


def empty_warehouse_markdown() -> str:
    """docs/views.md rendered from a warehouse with no rows."""
    with db.connect(":memory:") as con:
        materialize(con)
        return render_markdown(con)
