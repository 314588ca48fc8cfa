"""Telling people what changed: after a run, what moved in the answers (new leaders, claim grades,
decisions due: answers.py) and what became of a leader that lost its place (fates.py), one message
composed from it and the run's row changes (message.py),
sent to every target of MLPERF_NOTIFY (Apprise URLs) or MLPERF_NOTIFY_BLOCK (a Prefect notification
block), retried briefly and recorded in `deliveries` (deliver.py). A delivery never changes a run's
outcome or exit code; a target's credentials never reach a table, a log or an output."""
