"""The tables of what changed and who was told (warehouse/notify):

result_changes    one row per published field a load changed: a result added or withdrawn (its value),
                  or one field of a result whose value the new table publishes differently (old -> new),
                  or a result the new table publishes in a quarantined record (its last good value,
                  kept stale, and the reason) or publishes good again after that (restored).
                  Written by the loader in the transaction that replaces the source's rows.
answer_changes    one row per answer a run moved: a new best per accelerator or per rack (and what
                  became of the previous one), a claim whose grade changed, a decision that fell due.
deliveries        one row per notification attempt to one target (its URL without credentials), with
                  whether it was delivered and why not.
decision_notices  the decisions whose review has been announced (first to any target, with why it was due).
decision_announcements  the same, per target: each target is told a decision due until it received it.
"""
from __future__ import annotations

TABLES = """
CREATE TABLE IF NOT EXISTS result_changes (
    loaded_at TIMESTAMPTZ NOT NULL,        -- the load (load_events.loaded_at of the same source)
    round VARCHAR NOT NULL, source_id VARCHAR NOT NULL,
    result_id VARCHAR, entry_id VARCHAR NOT NULL, model VARCHAR NOT NULL, used_model VARCHAR,
    scenario VARCHAR NOT NULL, metric VARCHAR NOT NULL, units VARCHAR,
    change VARCHAR NOT NULL,               -- added | changed | withdrawn | quarantined | restored
    field VARCHAR NOT NULL,                -- the results column ('value' for all but a changed row)
    published_before VARCHAR,              -- as text; null for an added row
    published_after VARCHAR,               -- as text; null for a withdrawn row
    reason VARCHAR                         -- a quarantined row: the checks its record failed
);
CREATE TABLE IF NOT EXISTS answer_changes (
    changed_at TIMESTAMPTZ NOT NULL, flow_run_id VARCHAR, run_kind VARCHAR NOT NULL,
    kind VARCHAR NOT NULL,                 -- leader_per_accelerator | leader_per_rack | claim_grade | decision_due
    subject VARCHAR NOT NULL,              -- what moved: 'llama2-70b-99 Server Tokens/s', a claim or decision id
    result_id VARCHAR, round VARCHAR,
    before VARCHAR, after VARCHAR,         -- the previous and the new answer, in words
    gap DOUBLE,                            -- a new leader: its figure / the previous leader's (null: none before)
    because VARCHAR                        -- a new leader: what became of the previous one (revised, withdrawn, a finding)
);
CREATE TABLE IF NOT EXISTS deliveries (
    attempted_at TIMESTAMPTZ NOT NULL, flow_run_id VARCHAR, run_kind VARCHAR NOT NULL,
    target VARCHAR NOT NULL,               -- the Apprise URL redacted (source_urls.redact), or block:NAME
    title VARCHAR NOT NULL, delivered BOOLEAN NOT NULL, attempts INTEGER NOT NULL,
    reason VARCHAR                         -- why it was not delivered (null when it was)
);
CREATE TABLE IF NOT EXISTS decision_notices (
    decision_id VARCHAR PRIMARY KEY, due_because VARCHAR NOT NULL, noticed_at TIMESTAMPTZ NOT NULL
);
CREATE TABLE IF NOT EXISTS decision_announcements (
    decision_id VARCHAR NOT NULL, due_because VARCHAR NOT NULL,
    target VARCHAR NOT NULL,               -- as deliveries names it (no credentials)
    target_key VARCHAR NOT NULL,           -- which target: a slow digest of its URL (deliver.target_key), or block:NAME
    announced_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (decision_id, target_key)
);
"""
