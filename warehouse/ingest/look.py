"""Look before orchestrating: what each round's file is now, against what its last load saw, with
the cheap checks a run makes first (a conditional GET: 304 when unchanged; a local file: its
checksum; a source without the round: 404 or no such file). A run whose every round is unchanged
or not published has nothing to orchestrate (flows/look_first.py); otherwise the flow runs, in this
process, and takes the bytes the look already fetched (`handed_over`): a run fetches a file once."""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Callable

import duckdb

from warehouse.identity.rounds import Round
from warehouse.ingest.fetch import FetchError, Fetched, FetchSettings, NotFound, Previous, fetch, missing_locally
from warehouse.ingest.outcome import RoundOutcome, previous_fetches, source_id_for

# What a run of rounds reads from the warehouse, under the writer lock: the rounds to look at, and
# those of them the round table does not list yet (recorded when they load).
Plan = Callable[[duckdb.DuckDBPyConnection], tuple[list[Round], dict[str, Round]]]


def these_rounds(rounds: list[Round]) -> Plan:
    return lambda _con: (rounds, {})


def previous_of(con: duckdb.DuckDBPyConnection, round: Round, source: str) -> dict[str, Previous | None]:
    """What the last load of the round saw, for each of its candidate files at `source`."""
    locations = [location for _, location in round.locations(source)]
    return previous_fetches(con, source_id_for(round.name, "official", round.files[0]), locations)


def not_published(round_name: str, source: str) -> RoundOutcome:
    return RoundOutcome(round_name, "not_published", message="not published at this source")


def absent_locally(round: Round, source: str) -> bool:
    """True when the source is a local directory holding none of the round's candidate files: known
    from the file system at once, no fetch (and no task run) to find it out."""
    return all(missing_locally(location) for _, location in round.locations(source))


@dataclass(frozen=True)
class Unchanged:
    """A round found as its last load left it (the checksum of that load, for the history)."""
    outcome: RoundOutcome
    sha256: str | None


def look_at_round(round: Round, source: str, settings: FetchSettings,
                  previous: dict[str, Previous | None]) -> Unchanged | RoundOutcome | None:
    """Unchanged, a not_published outcome, or None when the round needs the flow: its file is new or
    changed, or the look failed (the flow retries it and reports the failure as it always does)."""
    if absent_locally(round, source):
        return not_published(round.name, source)
    for file_name, location in round.locations(source):
        known = previous.get(location)
        try:
            fetched = _fetch_once(location, file_name, settings, known)
        except NotFound:
            continue
        except FetchError:
            return None
        if not fetched.unchanged_since(known):
            return None
        outcome = RoundOutcome(round.name, "unchanged", source_id=source_id_for(round.name, "official", file_name),
                               location=location, message="unchanged since the last load")
        return Unchanged(outcome, fetched.sha256 or known.sha256)
    return not_published(round.name, source)


def look_at_rounds(con: duckdb.DuckDBPyConnection, rounds: list[Round], source: str,
                   settings: FetchSettings) -> list[Unchanged | RoundOutcome] | None:
    """Every round unchanged or not published, in order; None at the first that needs the flow."""
    with _FETCHED_LOCK:
        _FETCHED.clear()  # what an earlier look of this process fetched is not this run's
    looked = []
    for round in rounds:
        found = look_at_round(round, source, settings, previous_of(con, round, source))
        if found is None:
            return None
        looked.append(found)
    return looked


# What the look's request to each location came to (the file, or the failure), for the flow run
# that follows in this process (its tasks run on a thread pool): the flow's first attempt takes it
# instead of asking again, so a run makes one request per file and attempt, as without the look.
# Taken once: a retry, or a later run, asks the source afresh.
_FETCHED: dict[str, Fetched | FetchError] = {}
_FETCHED_LOCK = threading.Lock()


def _fetch_once(location: str, file_name: str, settings: FetchSettings, known: Previous | None) -> Fetched:
    try:
        fetched = fetch(location, file_name, settings, known)
    except FetchError as exc:
        _keep(location, exc)
        raise
    _keep(location, fetched)
    return fetched


def _keep(location: str, result: Fetched | FetchError) -> None:
    with _FETCHED_LOCK:
        _FETCHED[location] = result


def handed_over(location: str) -> Fetched | None:
    """What the look's request to `location` came to in this run, once: the file, or its failure
    raised again; None when the look did not ask."""
    with _FETCHED_LOCK:
        result = _FETCHED.pop(location, None)
    if isinstance(result, FetchError):
        raise result
    return result
