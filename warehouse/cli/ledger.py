"""Commands over the ledger: `claims load|audit`, `decisions load|show`, `prices load`."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from warehouse.cli.build import existing_file
from warehouse.cli.console import Format, print_json, print_rows, print_wrapped, say, warn
from warehouse.cli.global_options import command, current, group, reading_file
from warehouse.errors import EXIT_OK, ExpectedFailure, escape_control
from warehouse.figures import plural

File = Annotated[Path, typer.Argument(metavar="FILE", show_default=False, help="the file to load")]
Fmt = Annotated[Format, typer.Option("--format", help="table, csv or json")]
AllowEmpty = Annotated[bool, typer.Option(
    "--allow-empty", help="load a file with no entries (it removes every entry it loaded before)")]

claims = group("claims", "The vendor claims ledger: load claims, audit them against verified results.",
               "mlperf-wh claims load examples/claims_v6.1_nvidia.example.toml", "mlperf-wh claims audit --format csv")
decisions = group("decisions", "Capacity decision records, each resting on claims.",
                  "mlperf-wh decisions load examples/decisions.example.toml",
                  "mlperf-wh decisions show agent-inference-capacity-2026h2 --format json")
prices = group("prices", "Your accelerator prices (for token_economics).",
               "mlperf-wh prices load my-prices.csv")


# A claims or a decisions load may fold the ids stored in both tables (ledger.claims.normalise_stored_ids).
LEDGER_IDS = {"claims", "decisions"}
def register(app: typer.Typer) -> None:
    for sub in (claims, decisions, prices):
        app.add_typer(sub)


def _load(loader, file: Path, noun: str, entry: str, writes: set[str], **options) -> int:
    """Load a ledger file (into the tables `writes`) and rebuild the views reading them, or change nothing.
    `noun`: what the file is ("claims ledger"); `entry`: what one of its entries is ("claim")."""
    from warehouse.ledger.claims import LedgerError
    from warehouse.ledger.prices import PriceError
    from warehouse.views import rebuild
    existing_file(file)
    try:
        count, _ = rebuild(current().db, f"mlperf-wh {noun} load", lambda con: loader(con, file, **options),
                           changed=writes)
    except (LedgerError, PriceError) as exc:
        raise ExpectedFailure(f"{exc}; nothing was loaded, the warehouse is as it was", details=exc.details) from None
    say(f"loaded {plural(count, entry)} from the {noun} {file}")
    return EXIT_OK


@command(claims, "load", "mlperf-wh claims load examples/claims_v6.1_nvidia.example.toml",
         "mlperf-wh claims load my-claims.toml --replace")
def claims_load(file: File, replace: Annotated[bool, typer.Option(
        "--replace", help="take over claim ids another claims file owns")] = False,
        allow_empty: AllowEmpty = False) -> int:
    """Load (or reload) a TOML claims file."""
    from warehouse.ledger.claims import load_claims
    return _load(load_claims, file, "claims ledger", "claim", LEDGER_IDS, replace=replace, allow_empty=allow_empty,
                 warn=warn)


@command(claims, "audit", "mlperf-wh claims audit", "mlperf-wh claims audit --format json")
def claims_audit(fmt: Fmt = Format.table) -> int:
    """Every claim recomputed, with its grade and verdict.

    Table: the number claimed, its grade, the most the data supports and the verdict's label, then
    what each label means, a line per graded claim with every figure and the result ids behind it
    (new vs base), and a line per claim whose citation or stated stage the rows contradict; csv: every
    column, the rows as JSON text; json: every column as it is."""
    from warehouse.ledger import audit
    from warehouse.store import db
    with db.connect(reading_file(), read_only=True) as con:
        frame = audit.audit(con)
    if fmt is Format.table:
        print_rows(audit.for_screen(frame))
        for line in (audit.verdict_legend(frame) + audit.grade_lines(frame) + audit.citation_problems(frame)
                     + audit.stage_contradictions(frame)):
            print_wrapped(line)
    elif fmt is Format.csv:
        print_rows(audit.flat(frame), fmt)
    else:
        print_json(frame.to_dicts())
    return EXIT_OK


@command(decisions, "load", "mlperf-wh decisions load examples/decisions.example.toml")
def decisions_load(file: File, replace: Annotated[bool, typer.Option(
        "--replace", help="take over decision ids another decisions file owns")] = False,
        allow_empty: AllowEmpty = False) -> int:
    """Load (or reload) a TOML decisions file."""
    from warehouse.ledger.claims import load_decisions
    return _load(load_decisions, file, "decision records", "decision record", LEDGER_IDS, replace=replace, allow_empty=allow_empty)


@command(decisions, "show", "mlperf-wh decisions show agent-inference-capacity-2026h2",
         "mlperf-wh decisions show agent-inference-capacity-2026h2 --format json")
def decisions_show(decision_id: Annotated[str, typer.Argument(metavar="ID", show_default=False,
                                                              help="the decision's id")],
                   fmt: Fmt = Format.table) -> int:
    """One decision record, its claims expanded to their verdicts."""
    from warehouse.ledger.decisions import decision_record, record_fields, record_lines
    from warehouse.store import db
    with db.connect(reading_file(), read_only=True) as con:
        record = decision_record(con, decision_id)
    if record is None:
        raise ExpectedFailure(f"no decision {decision_id!r} (see: mlperf-wh sql \"SELECT id, title FROM decisions\")")
    if fmt is Format.json:
        print_json(record)
    elif fmt is Format.csv:
        import polars as pl
        print_rows(pl.DataFrame(record_fields(record)), fmt)
    else:
        print("\n".join(escape_control(line) for line in record_lines(record)))
    return EXIT_OK


@command(prices, "load", "mlperf-wh prices load my-prices.csv")
def prices_load(file: Annotated[Path, typer.Argument(metavar="FILE", show_default=False, help=(
        "a CSV: accelerator,dollars_per_accelerator_hour[,source,priced_on,note]"))], allow_empty: AllowEmpty = False,
        allow_unknown: Annotated[bool, typer.Option("--allow-unknown", help=(
            "load a file naming accelerators the warehouse does not know (each is a warning; its price "
            "matches no result); without it such a file is refused whole"))] = False) -> int:
    """Load your accelerator prices (a CSV), replacing the previous ones."""
    from warehouse.ledger.prices import load_prices
    return _load(load_prices, file, "price table", "price", {"prices"}, warn=warn, allow_empty=allow_empty,
                 allow_unknown=allow_unknown)
