"""CLI commands for people outside SQL: BI exports, the static report, the column documentation."""
from __future__ import annotations

import sys
from pathlib import Path


def cmd_docs(args) -> int:
    from warehouse.column_docs import VIEWS_MD, empty_warehouse_markdown
    out = Path(args.out) if args.out else VIEWS_MD
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(empty_warehouse_markdown(), encoding="utf-8")
    print(out)
    return 0


def register(sub, common) -> None:
    p = sub.add_parser("docs", help="write docs/views.md: every mart and its column descriptions")
    p.add_argument("--out", default=None, help="default: docs/views.md of the checkout")
    p.set_defaults(handler=cmd_docs)


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 1
