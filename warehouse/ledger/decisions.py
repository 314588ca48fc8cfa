"""A capacity decision record as the seeds write it: the decision, with every claim it used or excluded
expanded to its audit verdict, and whether its review is due."""
from __future__ import annotations

from warehouse.figures import human_number, truth
from warehouse.store import db


def decision_record(con, decision_id: str) -> dict | None:
    """A decision in the shape of the seeds' capacity_decision_record, claims expanded."""
    found = db.query_frame(con, "SELECT * FROM decision_records WHERE lower(trim(id)) = lower(trim(?))",
                           [decision_id])  # ids are stored trimmed and case-folded (warehouse.inputs)
    if found.height == 0:
        return None
    d = found.row(0, named=True)
    due = db.query_frame(con, "SELECT due_because, review_round FROM decisions_due WHERE id = ?", [d["id"]])

    def expand(ids):
        if not ids:
            return []
        claims = db.query_frame(con, "SELECT id, statement, stage, multiplier, result_claimed, result_unit, recomputed, "
                                     "recomputed_as_cited, recomputed_best, weak_baseline, verdict, "
                                     "procurement_grade FROM claim_audit WHERE list_contains(?, id)", [ids])
        by_id = {c["id"]: c for c in claims.to_dicts()}
        return [by_id.get(i, {"id": i, "verdict": "claim no longer in the ledger"}) for i in ids]

    return {"capacity_decision_record": {
        "id": d["id"], "title": d["title"], "workload": d["workload"], "metric": d["metric"],
        "measured_by": d["measured_by"],
        "vendor_claims_used": expand(d["claims_used"]),
        "claims_excluded": expand(d["claims_excluded"]),
        "decision": d["decision"], "decided_on": str(d["decided_on"]),
        "review_due": d["review_due"],
        "review_round": due["review_round"][0] if due.height else d["review_round"],
        "review_date": str(d["review_date"]) if d["review_date"] else None,
        "is_due": due.height > 0, "due_because": due["due_because"][0] if due.height else None,
        "flagged": d["flagged"], "non_procurement_grade_claims": d["non_procurement_grade_claims"],
        "weak_baseline_claims": d["weak_baseline_claims"],
        "own_measurements": d["own_measurements"],
        "measured_by_not_loaded": d["measured_by_not_loaded"],
        "measurement_checks": d["measurement_checks"],
        "own_measurement_disagrees": d["own_measurement_disagrees"],
    }}


EXPANDED = ("vendor_claims_used", "claims_excluded")
MEASURED = ("own_measurements", "measurement_checks")


def record_lines(record: dict) -> list[str]:
    """The record as `key: value` lines, each claim one line with its verdict."""
    lines = []
    for key, value in record["capacity_decision_record"].items():
        if key in EXPANDED:
            lines.append(f"{key}:")
            lines += [f"  - {c['id']}: {c.get('statement', '')} -> {c['verdict']}" for c in value]
        elif key in MEASURED:
            lines.append(f"{key}:")
            lines += [f"  - {_measured_line(key, item)}" for item in value]
        else:
            lines.append(f"{key}: {_value(value)}")
    return lines


def _value(value) -> str:
    """A field as a person reads it: no value is "(none)", never Python's None; true/false; a figure."""
    if value is None:
        return "(none)"
    if isinstance(value, bool):
        return truth(value)
    if isinstance(value, float):
        return human_number(value)
    if isinstance(value, list):
        return ", ".join(map(_value, value)) or "(none)"
    return str(value)


def _measured_line(key: str, item: dict) -> str:
    if key == "own_measurements":
        return (f"{item['run_id']} ({item['label'] or 'no label'}): {item['model_id']} on {item['accelerator_count']} x "
                f"{item['accelerator'] or '?'}, {_figure(item['tokens_per_second_per_accelerator'])} tokens/s per "
                f"accelerator, p99 TTFT {_figure(item['ttft_p99_ms'])} ms, TPOT {_figure(item['tpot_p99_ms'])} ms")
    verdict = "DISAGREES" if item["disagrees"] else "agrees" if item["disagrees"] is False else "cannot tell"
    return (f"{item['claim_id']} vs {', '.join(item['run_ids'])}: {item['compared']}: yours "
            f"{_figure(item['own_figure'])}, claimed {_figure(item['claimed_figure'])} "
            f"(x{_figure(item['own_over_claimed'])}) -> {verdict}")


def _figure(value) -> str:
    return "?" if value is None else human_number(value)


def record_fields(record: dict) -> list[dict]:
    """The record as field/value rows (claims as JSON text), for CSV."""
    import json
    return [{"field": key, "value": json.dumps(value, default=str) if key in EXPANDED or isinstance(value, list)
             else "" if value is None else str(value)}
            for key, value in record["capacity_decision_record"].items()]
