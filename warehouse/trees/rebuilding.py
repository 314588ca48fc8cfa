"""Result rows rebuilt from a submission tree, as MLCommons' submission checker builds them: for a round
MLCommons published no table of (v0.5 to v4.0), and to prove the rebuild against the rounds it did.

A round's tree (a local directory laid out as the round repository is) is listed, its system
descriptions and run summaries parsed (warehouse/trees/parsing.py: the parsers the tree ingest uses),
and every VALID performance run becomes one row of `results`' shape:

  value     the LoadGen field the round's checker reads for the benchmark and scenario
            (warehouse/identity/reference/result_fields.csv: RESULT_FIELD / RESULT_FIELD_NEW of
            tools/submission/submission_checker.py; docs/definitions.md cites the lines), in the
            checker's unit: latencies in ms, rates per second, samples per query before v2.0
  division, submitter, platform, benchmark, scenario   from the folders
            (<division>/<submitter>/results/<platform>/<benchmark>/<scenario>/performance/run_1)
  availability  the system description's status, lower case; 'on-premise' is 'available' and
            'research, development, or internal' is 'rdi' (the checker's and the final report's words)
  accelerators  accelerators_per_node x number_of_nodes of the system description
  result_id null: MLCommons numbers entries only in its final tables; entry_id is the final report's
            unique id (suite/division/submitter/platform[/model]), built here, not MLCommons'
  location  the run folder: every row's lineage is its tree path (extra names the files and hashes)

A run measured with a power analyzer (its run folder holds spl.txt) also gives one power figure,
computed from spl.txt and mlperf_log_detail.txt as the checker computes it (trees/power.py): a row of
power_readings beside its performance row, or, when a file is hostile, one quarantine record of its
own (source_id 'rebuilt/<round>/power'); its performance row is built apart and never waits on it.

A run that is INVALID, a file that cannot be read or parsed, a run folder without a summary, a system
description missing: one quarantine record each, with its path and reasons; never a silent gap.
Folders are listed through `TreeFolder` alone (trees/listing.py) and each file is read in the folder
the listing has open (`reading.read_in_folder`), or by its path through `read_tree_file`: the tree
readers' one check (trees/reading.py). A symbolic link met while listing is one quarantine record naming
its path in the tree; nothing behind it is listed. One pass reads each file once (read_part), unless
the last pass read it as it is (`Known`, from tree_reads); the rows are built after (build_part), only
for a round that changed.
"""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from warehouse.ingest.fetch import FetchError, FetchSettings
from warehouse.trees.listing import LINK_NOTE, RUN_FOLDER, Listing, list_folder, submitter_folders
from warehouse.trees.reading import identity_in_folder, read_in_folder, read_tree_file as read_inside_tree, settled
from warehouse.trees.parsing import SUMMARY_FILE, SYSTEM_ROW_FIELDS, UnparsableFile, parse_summary, parse_system
from warehouse.trees.parsing_power import (DETAIL_FILE, POWER_FOLDER, SPL_FILE, TIMEZONE_FILES, is_power_file, parse_detail,
                                           parse_timezone, spl_window, timestamp_datetime, timezone_paths)
from warehouse.trees.power import (CHECKER, CHECKER_LOCAL_TIMES, Bounds, Offsets, figure, power_rule, reads_timezones,
                                   sample_window)

SOURCE_PREFIX = "rebuilt"      # results.source_id 'rebuilt/<round>'; sources.origin 'tree'
ORIGIN = "tree"
FORMAT = "submission_tree"
DEFAULT_WORKERS = 2
CHUNKS_PER_WORKER = 8   # several chunks per worker even out a large submitter

# The checker's scenario folders, any case (SCENARIO_MAPPING of its constants), and LoadGen's words.
SCENARIO_FOLDERS = {"singlestream": "SingleStream", "multistream": "MultiStream", "server": "Server",
                    "offline": "Offline", "interactive": "Interactive"}
STATUS_WORDS = {"on-premise": "available", "research, development, or internal": "rdi",
                "research, development, or other": "rdi", "rdo": "rdi"}

# The key of mlperf_log_detail.txt the checker reads (result_fields.csv loadgen_field) -> the columns
# of run_summaries that hold the same figure in mlperf_log_summary.txt, first present wins.
FIELD_COLUMNS: dict[str, tuple[str, ...]] = {
    "result_samples_per_second": ("samples_per_second",),
    "result_scheduled_samples_per_sec": ("scheduled_samples_per_second",),
    "result_completed_samples_per_sec": ("completed_samples_per_second",),
    "result_90.00_percentile_latency_ns": ("latency_p90_ns", "result_latency_ns"),
    "effective_samples_per_query": ("result_samples_per_query",),
    "early_stopping_latency_ss": ("early_stopping_p90_ns",),
    "early_stopping_latency_ms": ("early_stopping_p99_ns",),
    "result_tokens_per_second": ("tokens_per_second",),
    "result_completed_tokens_per_second": ("completed_tokens_per_second",),
    "result_inferred_tokens_per_second": ("tokens_per_second_inferred",),
    "result_inferred_completed_tokens_per_second": ("completed_tokens_per_second_inferred",),
}
# The parsed fields a result row is built from (_row, _value, _inferred): what tree_reads keeps of a
# file, so a row is built again without opening it.
SUMMARY_ROW_FIELDS = tuple(dict.fromkeys(("result_valid", "loadgen_scenario", "qps_without_loadgen_overhead",
                                          "samples_per_query", "latency_mean_ns", "early_stopping_p99_ns",
                                          *(c for columns in FIELD_COLUMNS.values() for c in columns))))
# What the figure counts -> the unit the row is labelled with (the checker's UNIT_DICT words; a
# MultiStream result before v2.0 is samples per query, which its dictionary mislabels as a latency).
UNITS = {"tokens": "Tokens/s", "latency": "Latency (ms)", "samples_per_query": "Samples/query"}


def read_tree_file(root: Path, path: str) -> bytes:
    """The bytes of one file of a tree, through the tree readers' one check (reading.read_tree_file:
    no symbolic link followed below the root, only regular files opened, bounded in size)."""
    return read_inside_tree(root, path, _size_cap())


@lru_cache(maxsize=1)
def _size_cap() -> int:
    return FetchSettings.from_env().max_bytes


REBUILD_VERSION = 3   # raise it when the rows rebuilt from the same files change: every round is rebuilt once


def tree_digest(rules: "Rules", strays: list, links: list[str], left_out: tuple[tuple[str, str], ...],
                identities: list[tuple[str, str | None]]) -> str:
    """What a rebuild of the tree reads, as one digest: every file listed with its size, mtime and
    inode (reading.file_identity), the stray run folders with what they hold, the links met (never
    followed), the files a clone left out, the rules the round is rebuilt by and the version building
    it. The same digest as at the last rebuild: the rebuild would load the same rows."""
    digest = hashlib.sha256(json.dumps([_version(), REBUILD_VERSION, rules.state(), strays, sorted(links),
                                        list(left_out)], sort_keys=True, default=str).encode())
    for path, identity in sorted(identities):
        digest.update(f"{path}\t{identity}\n".encode())
    return digest.hexdigest()


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("mlperf-warehouse")
    except PackageNotFoundError:
        return "unknown"


# ---------------------------------------------------------------------------------------------
# read and parse, once per file (the part that runs on a thread pool or a Dask worker)


class Known(NamedTuple):
    """What the last rebuild read of a file (the table tree_reads): a file whose identity is this one
    is not opened again; its row is built from `fields` (the ones a row reads: ROW_FIELDS)."""
    identity: str
    sha256: str | None
    fields: str | None              # JSON, decoded only when a row is built from it
    reasons: list[str]
    text: str | None


# What a tree_reads row may hold of a file's parsed fields and reasons: a dozen figures and a few lines.
KNOWN_FIELDS_MAX, KNOWN_REASONS_MAX, KNOWN_REASON_MAX = 64 * 1024, 64, 2000


def trusted(identity: str, sha256: str | None, fields: str | None, reasons: list[str] | None,
            text: str | None) -> Known | None:
    """A tree_reads row as a Known, when it is what a rebuild wrote (None: the file is read again).
    The table sits in a file anyone with the warehouse can edit, and its text reaches a quarantine
    record: a text longer than the file it is the text of (its size, the first part of its identity),
    or whose digest is not the file's (unless the file was not UTF-8, its text decoded with
    replacements), fields or reasons past their bounds are not used."""
    try:
        size = int(identity.split(" ", 1)[0])
    except ValueError:
        return None
    if text is not None and not _text_of_file(text, size, sha256):
        return None
    if fields is not None and len(fields) > KNOWN_FIELDS_MAX:
        return None
    reasons = reasons or []
    if len(reasons) > KNOWN_REASONS_MAX or any(len(r) > KNOWN_REASON_MAX for r in reasons):
        return None
    return Known(identity, sha256, fields, reasons, text)


def _text_of_file(text: str, size: int, sha256: str | None) -> bool:
    if len(text) > size:  # a character is at least one byte of the file
        return False
    return "\ufffd" in text or hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest() == sha256


@dataclass
class Parsed:
    """One file of the tree as this rebuild has it: read and parsed now (`content` kept for the run
    summaries' load and any quarantine record), or known from the last rebuild (`read` False)."""
    path: str
    sha256: str | None = None
    record: dict | None = None      # every parsed field when read now; ROW_FIELDS when known
    reasons: list[str] = field(default_factory=list)
    text: str | None = None         # the file as text, when it is quarantined
    identity: str | None = None     # size, mtime, inode and change time when it was listed
    read: bool = True
    content: bytes | None = None    # the bytes read now (None when known, or never read)
    known_fields: str | None = None  # known: its ROW_FIELDS as JSON, until recall() decodes them

    def recall(self) -> None:
        if self.known_fields is not None:
            self.record, self.known_fields = json.loads(self.known_fields), None

    @property
    def size(self) -> int:
        return len(self.content or b"")

    def text_of(self) -> str | None:
        if self.content is not None:
            return self.content.decode("utf-8", errors="replace")
        return self.text


def _parse(path: str, content: bytes, label: str) -> Parsed:
    parse = parse_system if path.endswith(".json") else parse_summary
    digest = hashlib.sha256(content).hexdigest()
    try:
        return Parsed(path, digest, parse(content, label), content=content)
    except UnparsableFile as exc:
        return Parsed(path, digest, reasons=exc.reasons, content=content)
    except (ValueError, RecursionError, TypeError, OverflowError) as exc:
        return Parsed(path, digest, reasons=[f"cannot be read: {str(exc)[:300]}"], content=content)


def _unreadable(path: str, exc: Exception) -> Parsed:
    """A file that could not be read: a link, a FIFO or a device refused, a file too large: never read."""
    if isinstance(exc, OSError):
        return Parsed(path, reasons=[f"cannot be read: {exc.strerror or exc}"])
    return Parsed(path, reasons=[f"cannot be read: {exc}"])


def _recalled(path: str, known: Known) -> Parsed:
    return Parsed(path, known.sha256, None, list(known.reasons), known.text, known.identity, read=False,
                  known_fields=known.fields)


# ---------------------------------------------------------------------------------------------
# rebuild


@dataclass(frozen=True)
class Rule:
    loadgen_field: str
    counts: str


class Rules:
    """result_fields.csv for one round: the rule of the benchmark itself, else the default ('*');
    of the same scenario, else (Interactive) Server's; the latest whose round_from is not after
    the round (the order sql/base/base_result_rules.sql applies to the published rows)."""

    def __init__(self, round_name: str, result_fields, benchmark_aliases: dict[str, str]):
        from warehouse.identity.rounds import round_sort_key
        order = round_sort_key(round_name)
        self.aliases = benchmark_aliases
        self.rows = [{**r, "order": round_sort_key(r["round_from"])} for r in result_fields.iter_rows(named=True)
                     if round_sort_key(r["round_from"]) <= order]
        self.legacy_multistream = order < (2, 0)   # the checker's uses_legacy_multistream(): v0.5 to v1.1
        self.power = power_rule(round_name)        # how its checker computes a power figure (trees/power.py)
        self.power_bounds = Bounds.from_settings()

    def state(self) -> list:
        """What the rules are, as JSON can say it (tree_identity)."""
        return [self.rows, sorted(self.aliases.items()), self.legacy_multistream,
                self.power.state() if self.power else None, self.power_bounds.state()]

    def benchmark(self, folder_name: str) -> str | None:
        return self.aliases.get(folder_name.strip().lower())

    def of(self, benchmark: str | None, scenario: str) -> Rule | None:
        best, best_key = None, None
        for r in self.rows:
            if r["benchmark"] not in (benchmark, "*"):
                continue
            if r["scenario"] != scenario and not (scenario == "Interactive" and r["scenario"] == "Server"):
                continue
            key = (r["benchmark"] != "*", r["scenario"] == scenario, r["order"])
            if best_key is None or key > best_key:
                best, best_key = r, key
        return Rule(best["loadgen_field"], best["counts"]) if best else None


def rules_for(round_name: str, reference=None) -> Rules:
    from warehouse.identity.reference import load_reference
    reference = reference or load_reference()
    aliases = {a.strip().lower(): b for a, b, kind in reference.benchmarks.select("alias", "benchmark", "kind")
               .iter_rows() if kind == "benchmark" and b}
    return Rules(round_name, reference.result_fields, aliases)


@dataclass
class Rebuilt:
    """A round rebuilt: its rows (dicts in results' columns) and quarantine records."""
    round: str
    root: str
    rows: list[dict]
    quarantined: list[dict]         # {path, reasons, text}
    files: int
    sha256: str                     # of the sorted (path, sha256) list: the tree's content as read
    bytes: int = 0
    parsed: list[Parsed] = field(default_factory=list)   # every file listed, read now or known
    strays: list = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    parts: list["Part"] = field(default_factory=list)
    top_folders: list[tuple[str, str | None]] = field(default_factory=list)   # the root's and divisions' identities
    power_rows: list[dict] = field(default_factory=list)          # one measured power figure per power run
    power_quarantined: list[dict] = field(default_factory=list)   # {run_path, file paths and hashes, reasons}

    @property
    def folders(self) -> list[tuple[str, str | None]]:
        """Every folder listed, with its identity."""
        return [*self.top_folders, *(f for part in self.parts for f in part.folders)]

    @property
    def opened(self) -> int:
        """Files opened and read by this rebuild (the others were known, as the last rebuild read them)."""
        return sum(1 for p in self.parsed if p.read)


@dataclass
class Part:
    """What one chunk of submitter folders gives: rows (unnumbered), quarantine records, every file
    as read or known (Parsed), the stray run folders and the links met. What a Dask worker sends back."""
    rows: list[dict]
    quarantined: list[dict]
    parsed: list[Parsed]
    strays: list = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    built: bool = True              # rows and quarantine records built (build_part)
    folders: list[tuple[str, str | None]] = field(default_factory=list)   # every folder listed, its identity
    power_rows: list[dict] = field(default_factory=list)         # power_readings' rows (build_part)
    power_quarantined: list[dict] = field(default_factory=list)  # a run's power figure not computed, and why

    @property
    def digests(self) -> list[tuple[str, str | None]]:
        return [(p.path, p.sha256) for p in self.parsed]


def rebuild_part(root: str, round_name: str, folders: list[str], rules: Rules,
                 known: dict[str, Known] | None = None) -> Part:
    """List, read, parse and build the rows of these submitter folders (on a thread or a Dask
    worker): read_part, then build_part."""
    return build_part(read_part(root, folders, known, reads_timezones(rules.power)), root, round_name, rules)


def read_part(root: str, folders: list[str], known: dict[str, Known] | None = None, timezones: bool = False) -> Part:
    """List, read and parse these submitter folders, one pass: each file is read in its folder as the
    listing finds it, unless `known` has it with the same size, mtime, inode and change time (then it is not
    opened). `timezones`: a round of local times, whose power runs' timezone files are read too. No
    rows yet: a round found unchanged builds none."""
    known = known or {}
    by_path: dict[str, Parsed] = {}

    def visit(folder, name: str, path: str) -> None:
        identity = identity_in_folder(folder.descriptor, name)
        last = known.get(path)
        label = f"{root}/{path}"
        if is_power_file(path):
            by_path[path] = read_power_file(folder.descriptor, name, path, label, identity, last, by_path, timezones)
            return
        if last is not None and identity is not None and last.identity == identity:
            by_path[path] = _recalled(path, last)
            return
        try:
            parsed = _parse(path, read_in_folder(folder.descriptor, name, label, _size_cap()), label)
        except (OSError, FetchError) as exc:
            parsed = _unreadable(path, exc)
        parsed.identity = identity
        by_path[path] = parsed

    listing = Listing(visit=visit, timezones=timezones)
    for here in folders:
        list_folder(Path(root), here, listing)
    return Part([], [], [by_path[path] for path in listing.files], listing.strays, listing.links, built=False,
                folders=listing.folders)


def read_power_file(directory: int, name: str, path: str, label: str, identity: str | None, last: Known | None,
                    by_path: dict[str, Parsed], timezones: bool = False) -> Parsed:
    """A power run's detail log or timezone file, or its sample log read against the window of the
    files listed just before it (by_path): the detail log's, and in a round of local times
    (`timezones`) shifted by its client.json and server.json. Unchanged means unread: a detail log or
    timezone file the last pass parsed, as it was; a sample log as it was whose window's files are too
    (the window it was read against is the same). A file that did not parse is read again (a bound
    raised since may let it in). A file over MLPERF_POWER_FILE_MAX_BYTES is not opened."""
    window = _window_files(path, by_path, timezones) if name == SPL_FILE else []
    unchanged = last is not None and identity is not None and last.identity == identity and last.fields is not None
    if unchanged and all(found is not None and not found.read for found in window):
        return _recalled(path, last)
    if name == SPL_FILE and (no_window := _no_window(path, window)):
        return Parsed(path, reasons=[no_window], identity=identity)
    bound = _power_cap()
    size = int(identity.split(" ", 1)[0]) if identity else 0
    if size > bound:
        return Parsed(path, reasons=[f"{size} bytes, over MLPERF_POWER_FILE_MAX_BYTES ({bound}): not read"],
                      identity=identity)
    try:
        content = read_in_folder(directory, name, label, bound)
    except (OSError, FetchError) as exc:
        parsed = _unreadable(path, exc)
        parsed.identity = identity
        return parsed
    parsed = _parse_power(path, content, _window_on_sample_clock(window), label)
    parsed.identity = identity
    return parsed


def _window_files(spl_path: str, by_path: dict[str, Parsed], timezones: bool) -> list[Parsed | None]:
    """The files a sample log's window is read from: its detail log, then (local times) client.json
    and server.json; None for one not listed."""
    run_path = spl_path.rsplit("/", 1)[0]
    return [by_path.get(path) for path in (f"{run_path}/{DETAIL_FILE}", *(timezone_paths(run_path) if timezones else ()))]


def _no_window(spl_path: str, window: list[Parsed | None]) -> str | None:
    """Why a sample log cannot be read against its window, or None."""
    for found, name in zip(window, (DETAIL_FILE, *(f"{POWER_FOLDER}/{zone}" for zone in TIMEZONE_FILES))):
        if found is None:
            return f"no {name} beside it: the run's power window is unknown"
        found.recall()
        if found.record is None:
            return f"not read: {name} beside it is refused"
    return None


def _window_on_sample_clock(window: list[Parsed]) -> tuple[int, int] | None:
    """The sample log's window on the analyzer's clock (power.sample_window); None to parse a file
    that is not a sample log."""
    if not window:
        return None
    detail, *zones = window
    return sample_window(detail.record, _offsets(zones))


def _offsets(zones: list[Parsed]) -> Offsets | None:
    return (zones[0].record["timezone"], zones[1].record["timezone"]) if zones else None


def _parse_power(path: str, content: bytes, window: tuple[int, int] | None, label: str) -> Parsed:
    """A detail log or timezone file parsed, or a sample log read against `window` (on its own
    clock); its bytes are not kept: a figure needs none of them."""
    digest = hashlib.sha256(content).hexdigest()
    name = path.rsplit("/", 1)[-1]
    try:
        if window is not None:
            return Parsed(path, digest, spl_window(content, window[0], window[1], label))
        return Parsed(path, digest, (parse_timezone if name in TIMEZONE_FILES else parse_detail)(content, label))
    except UnparsableFile as exc:
        return Parsed(path, digest, reasons=exc.reasons)


def _power_cap() -> int:
    from warehouse import settings
    return settings.current().power_file_max_bytes


def build_part(part: Part, root: str, round_name: str, rules: Rules) -> Part:
    """The part's rows and quarantine records: strays, links, files that did not parse, then each run
    summary's row or the reasons it has none."""
    for parsed in part.parsed:
        parsed.recall()
    by_path = {p.path: p for p in part.parsed}
    quarantined = [{"path": folder, "reasons": [f"a run folder with no {'/'.join(RUN_FOLDER)}/{SUMMARY_FILE}; "
                                                f"it holds: {held}"], "text": None}
                   for folder, held in part.strays]
    quarantined += [{"path": link, "reasons": [f"refused: {LINK_NOTE}"], "text": None} for link in part.links]
    quarantined += [{"path": p.path, "reasons": p.reasons, "text": p.text_of()} for p in part.parsed
                    if p.record is None and not is_power_file(p.path)]
    rows = []
    for found in part.parsed:
        if found.path.endswith(".json") or found.record is None or is_power_file(found.path):
            continue
        row, reasons = _row(round_name, found.path, found, by_path, rules)
        if reasons:
            quarantined.append({"path": found.path, "reasons": reasons, "text": _summary_text(Path(root), found)})
        else:
            rows.append(row)
    part.rows, part.quarantined, part.built = rows, quarantined, True
    part.power_rows, part.power_quarantined = power_figures(part.parsed, by_path, round_name, rules)
    return part


def power_figures(parsed: list[Parsed], by_path: dict[str, Parsed], round_name: str, rules: Rules
                   ) -> tuple[list[dict], list[dict]]:
    """One power figure per run folder holding spl.txt (trees/power.py), or a quarantine record naming
    the run, its files (two; four in a round of local times) and why there is none. Its performance
    row is built apart and never waits on it."""
    rows, quarantined = [], []
    timezones = reads_timezones(rules.power)
    for spl in (p for p in parsed if p.path.endswith(f"/{SPL_FILE}")):
        run_path = spl.path.removesuffix(f"/{SPL_FILE}")
        detail = by_path.get(f"{run_path}/{DETAIL_FILE}")
        lineage = {"run_path": run_path, "spl_path": spl.path, "spl_sha256": spl.sha256,
                   "detail_path": f"{run_path}/{DETAIL_FILE}", "detail_sha256": detail.sha256 if detail else None}
        zones = {path: by_path.get(path) for path in (timezone_paths(run_path) if timezones else ())}
        division, submitter, _results, platform, model, scenario_folder = run_path.split("/")[:6]
        scenario = scenario_of(scenario_folder)
        reasons, found = _refused(run_path, spl, detail, zones), None
        offsets = tuple(zone.record["timezone"] for zone in zones.values()) if timezones and not reasons else None
        if not reasons:
            found, reasons = figure(rules.power, scenario, detail.record, spl.record, rules.power_bounds, offsets)
        if reasons:
            quarantined.append({**lineage, **_zone_lineage(zones), "reasons": reasons})
            continue
        system = by_path.get(f"{division}/{submitter}/systems/{platform}.json")
        rows.append({"round": round_name, **lineage, "division": division.lower(), "submitter": submitter,
                     "platform": platform, "system": system.record.get("system_name") if system and system.record else None,
                     "model": model, "benchmark": rules.benchmark(model), "scenario": scenario, **found,
                     "power_begin": timestamp_datetime(detail.record["power_begin_us"]),
                     "power_end": timestamp_datetime(detail.record["power_end_us"]),
                     "checker": CHECKER if offsets is None else f"{CHECKER}; {CHECKER_LOCAL_TIMES}"})
    return rows, quarantined


def _refused(run_path: str, spl: Parsed, detail: Parsed | None, zones: dict[str, Parsed | None]) -> list[str]:
    """Why the run's files give no figure, each reason naming its file: the detail log refused, a
    timezone file missing or refused (a round of local times), or else the sample log refused."""
    if detail is not None and detail.record is None:
        return [f"{DETAIL_FILE}: {why}" for why in detail.reasons]
    scenario = run_path.rsplit("/", 2)[0]
    for path, zone in zones.items():
        name = path.removeprefix(f"{scenario}/")
        if zone is None:
            return [f"{name}: not in the tree; rounds before v1.1 logged local times and the checker shifts "
                    f"{'power_begin and power_end' if name.endswith('client.json') else 'each sample time'} by its "
                    "timezone: not computed"]
        if zone.record is None:
            return [f"{name}: {why}" for why in zone.reasons]
    return [f"{SPL_FILE}: {why}" for why in spl.reasons] if spl.record is None else []


def _zone_lineage(zones: dict[str, Parsed | None]) -> dict:
    """The timezone files' paths and hashes, for a quarantine record (client_path, client_sha256, ...)."""
    named = {}
    for path, zone in zones.items():
        side = path.rsplit("/", 1)[-1].removesuffix(".json")
        named |= {f"{side}_path": path, f"{side}_sha256": zone.sha256 if zone else None}
    return named


def scenario_of(folder: str) -> str:
    """A scenario folder's name as the checker names the scenario (its SCENARIO_MAPPING, any case)."""
    return SCENARIO_FOLDERS.get(folder.replace(" ", "").replace("_", "").lower(), folder)


def known_rows(rebuilt: Rebuilt) -> list[dict]:
    """tree_reads' rows for what this rebuild read or knew of each file: its identity, and the fields
    its rows read (text only where a quarantine record shows it); and each folder listed, with its
    identity. A file or folder last modified within 2 s is not recorded (reading.settled: it may
    change again within its mtime's tick), nor a file never read."""
    shown = {q["path"]: q["text"] for q in rebuilt.quarantined if q.get("text")}
    files = [{"round": rebuilt.round, "path": p.path, "kind": "file", "file_identity": p.identity, "sha256": p.sha256,
              "fields": None if p.record is None else json.dumps(_row_fields(p), sort_keys=True),
              "reasons": p.reasons, "text": shown.get(p.path)}
             for p in rebuilt.parsed if settled(p.identity) and (p.sha256 is not None or not p.read)]
    return files + [{"round": rebuilt.round, "path": path, "kind": "folder", "file_identity": identity, "sha256": None,
                     "fields": None, "reasons": [], "text": None}
                    for path, identity in dict(rebuilt.folders).items() if settled(identity)]


def _row_fields(parsed: Parsed) -> dict:
    if is_power_file(parsed.path):   # a detail log's power keys, or a sample log's figures for its window
        return parsed.record
    fields = SYSTEM_ROW_FIELDS if parsed.path.endswith(".json") else SUMMARY_ROW_FIELDS
    return {name: parsed.record.get(name) for name in fields}


def _summary_text(root: Path, summary: Parsed) -> str | None:
    """The text of a summary whose row is quarantined: as read now, as the last rebuild kept it, or
    (a file known but never quarantined before: its system changed) read again."""
    if (text := summary.text_of()) is not None:
        return text
    try:
        return read_tree_file(root, summary.path).decode("utf-8", errors="replace")
    except (OSError, FetchError):
        return None


def row_notes(system: dict) -> str | None:
    """A result row's notes from its parsed system description: hw_notes, then sw_notes (a TGP, a TDP or
    "CPU only submission" is stated there; base_hardware_statements reads them)."""
    return ". ".join(n for n in (system["hw_notes"], system["sw_notes"]) if n) or None


def _accelerator_named(system: dict) -> str | None:
    """The accelerator a system description names, unless it counts none. A count no number reads
    ('(8,4)': Alibaba's v2.1 network clusters of A100 and A30 nodes) leaves the accelerators named, so
    the system is not read as CPU-only (its total stays unknown)."""
    name = system["accelerator_model_name"]
    if name in (None, "N/A", "-") or system["accelerators_per_node"] == 0:
        return None
    return name


def _row(round_name: str, path: str, summary: Parsed, by_path: dict[str, Parsed], rules: Rules
         ) -> tuple[dict | None, list[str]]:
    division, submitter, _results, platform, model, scenario_folder = path.split("/")[:6]
    scenario = scenario_of(scenario_folder)
    system_path = f"{division}/{submitter}/systems/{platform}.json"
    system = by_path.get(system_path)
    record = summary.record
    if not record["result_valid"]:
        return None, ["LoadGen: Result is INVALID (the checker publishes only VALID runs)"]
    if system is None:
        return None, [f"no system description {system_path}"]
    if system.record is None:
        return None, [f"its system description {system_path} is quarantined"]
    benchmark = rules.benchmark(model)
    value, rule, inferred, reasons = _value(record, scenario, benchmark, rules)
    if reasons:
        return None, reasons
    s = system.record
    per_node = s["accelerators_per_node"] or None
    nodes = s["number_of_nodes"]
    accelerator = _accelerator_named(s)
    suite = (s["system_type"] or "").replace(" ", "").lower() or None
    entry = f"{suite or ''}/{division}/{submitter}/{platform}" + (f"/{model}" if division == "open" else "")
    units = UNITS.get(rule.counts) or ("Samples/s" if scenario == "Offline" else "Queries/s")
    notes = row_notes(s)
    return {
        "round": round_name, "division": division.lower(), "availability": availability(s["status"]),
        "suite": suite, "submitter": submitter, "system": s["system_name"], "platform": platform,
        "result_id": None, "entry_id": entry, "model": model, "used_model": model, "scenario": scenario,
        "metric": "performance", "value": value, "units": units,
        "higher_is_better": rule.counts != "latency",
        "accelerator_raw": accelerator, "accelerators_per_node": per_node if accelerator else None,
        "nodes": nodes or None,
        "total_accelerators": per_node * (nodes or 1) if accelerator and per_node else None,
        "accelerator_count_disagrees": False,
        "processor": s["host_processor_model_name"], "processors_per_node": s["host_processors_per_node"] or None,
        "software": s["framework"], "weight_data_types": None, "accuracy": None, "tokens_per_sample": None,
        "inferred": inferred,
        "extra": json.dumps({"rebuilt_from": "submission tree", "summary_path": path, "summary_sha256": summary.sha256,
                             "system_path": system_path, "system_sha256": system.sha256,
                             "checker_field": rule.loadgen_field}, sort_keys=True),
        "location": path.removesuffix(f"/{SUMMARY_FILE}"), "notes": notes,
    }, []


def availability(status: str | None) -> str | None:
    """The status as the tables word it: lower case, 'on-premise' -> available, the long RDI words -> rdi."""
    if status is None:
        return None
    word = " ".join(status.split()).lower()
    return STATUS_WORDS.get(word, word) or None


def _value(record: dict, scenario: str, benchmark: str | None, rules: Rules
           ) -> tuple[float | None, Rule | None, bool, list[str]]:
    """The checker's result for the run: the rule's field, in its unit; for a scenario folder holding
    another scenario's run, the checker's inference (check_performance_dir: Offline from SingleStream
    is QPS w/o loadgen overhead; from v2.0, Offline from MultiStream is samples per query x 1000 / mean
    query latency in ms, and MultiStream from SingleStream the early-stopping 99th percentile x 8 in ms)."""
    ran = record["loadgen_scenario"]
    if ran != scenario and not (scenario == "Interactive" and ran == "Server"):
        return _inferred(record, scenario, ran, benchmark, rules)
    rule = rules.of(benchmark, scenario)
    if rule is None:
        return None, None, False, [f"no submission-checker rule reaches {benchmark or 'this benchmark'} {scenario} "
                                   "(warehouse/identity/reference/result_fields.csv)"]
    columns = FIELD_COLUMNS.get(rule.loadgen_field)
    if columns is None:
        return None, None, False, [f"the checker's field {rule.loadgen_field} has no summary line the warehouse reads"]
    value = next((record[c] for c in columns if record.get(c) is not None), None)
    if value is None:
        return None, None, False, [f"the summary prints no figure for the checker's {rule.loadgen_field}"]
    if rule.counts == "latency":
        value = value / 1e6
    if not value > 0:
        return None, None, False, [f"{rule.loadgen_field} is {value}"]
    return float(value), rule, False, []


def _inferred(record: dict, scenario: str, ran: str, benchmark: str | None, rules: Rules
              ) -> tuple[float | None, Rule | None, bool, list[str]]:
    value, counts = None, None
    if scenario == "Offline" and ran == "SingleStream":
        value, counts = record["qps_without_loadgen_overhead"], "samples"
    elif scenario == "Offline" and ran == "MultiStream" and not rules.legacy_multistream:
        if record["samples_per_query"] and record["latency_mean_ns"]:
            value, counts = record["samples_per_query"] * 1e9 / record["latency_mean_ns"], "samples"
    elif scenario == "MultiStream" and ran == "SingleStream" and not rules.legacy_multistream:
        if record["early_stopping_p99_ns"]:
            value, counts = record["early_stopping_p99_ns"] * 8 / 1e6, "latency"
    else:
        return None, None, False, [f"the folder says {scenario}, LoadGen ran {ran}"]
    if not value:
        return None, None, False, [f"the folder says {scenario}, LoadGen ran {ran}, and the summary lacks the "
                                   "figure the checker infers the result from"]
    return float(value), Rule(f"inferred from {ran}", counts), True, []


def rebuild_tree(round_name: str, root: Path, workers: int = DEFAULT_WORKERS, dask_address: str | None = None,
                 reference=None, client=None, known: dict[str, Known] | None = None, build: bool = True) -> Rebuilt:
    """List, read, parse and rebuild one round's tree (rebuild_trees); a file `known` with the same
    identity is not opened. Without `build`, no row is built yet (built_rows builds them)."""
    return rebuild_trees([(round_name, root)], workers, dask_address, reference, client,
                         [known or {}], build)[0]


def rebuild_trees(trees: list[tuple[str, Path]], workers: int = DEFAULT_WORKERS, dask_address: str | None = None,
                  reference=None, client=None, known: list[dict[str, Known]] | None = None,
                  build: bool = True) -> list[Rebuilt]:
    """Rebuild several rounds' trees at once, their submitter folders in chunks (every round's chunks
    handed out together, so no worker waits for a round's last chunk): in this thread, or on the Dask
    cluster at `dask_address` (or of `client`), each chunk listed, read, parsed and built where it
    runs and only its rows and records sent back. `workers` sizes the chunks. `known[i]`: what the last rebuild
    read of tree i's files (a chunk is handed only its own folders' part)."""
    from warehouse.identity.reference import load_reference
    reference = reference or load_reference()
    jobs = []   # (tree index, root, round, folders, rules, known)
    tops = [Listing() for _ in trees]   # the root and division folders of each tree, as listed
    for index, (round_name, root) in enumerate(trees):
        rules, folders = rules_for(round_name, reference), submitter_folders(root, tops[index])
        by_folder = _by_submitter_folder(known[index] if known else {})
        per_chunk = max(1, math.ceil(len(folders) / (max(workers, 1) * CHUNKS_PER_WORKER)))
        jobs += [(index, str(root), round_name, chunk, rules,
                  {path: k for here in chunk for path, k in by_folder.get(here, {}).items()})
                 for chunk in (folders[i:i + per_chunk] for i in range(0, len(folders), per_chunk))]
    arguments = [list(column) for column in zip(*[job[1:] for job in jobs])] if jobs else [[], [], [], [], []]
    if not build:  # read_part(root, folders, known, timezones)
        arguments = [arguments[0], arguments[2], arguments[4], [reads_timezones(rules.power) for rules in arguments[3]]]
    work = rebuild_part if build else read_part
    if client is not None or dask_address:
        parts = _on_dask(client, dask_address, work, arguments)
    else:  # in this thread: parsing holds the GIL, and threads here only contended for it (measured:
        # the shared old rounds warm 4.6 s in one thread, 5.3 s in two; cold, page cache dropped, the same)
        parts = list(map(work, *arguments))
    return [_assembled(round_name, root, [p for job, p in zip(jobs, parts) if job[0] == index], tops[index].folders)
            for index, (round_name, root) in enumerate(trees)]


def built_rows(rebuilt: Rebuilt, rules: Rules) -> Rebuilt:
    """A round read without its rows (rebuild_tree(build=False)), its rows built."""
    parts = [part if part.built else build_part(part, rebuilt.root, rebuilt.round, rules) for part in rebuilt.parts]
    return _assembled(rebuilt.round, Path(rebuilt.root), parts, rebuilt.top_folders)


def _by_submitter_folder(known: dict[str, Known]) -> dict[str, dict[str, Known]]:
    grouped: dict[str, dict[str, Known]] = {}
    for path, last in known.items():
        grouped.setdefault("/".join(path.split("/", 2)[:2]), {})[path] = last
    return grouped


def _assembled(round_name: str, root: Path, parts: list[Part], top: list[tuple[str, str | None]] = ()) -> Rebuilt:
    rows = [row for part in parts for row in part.rows]
    for number, row in enumerate(rows):
        row["record_no"] = number
    digests = sorted(d for part in parts for d in part.digests)
    digest = hashlib.sha256("\n".join(f"{path} {sha}" for path, sha in digests).encode()).hexdigest()
    return Rebuilt(round_name, str(root), rows, [q for part in parts for q in part.quarantined], len(digests), digest,
                   parsed=[p for part in parts for p in part.parsed], strays=[s for part in parts for s in part.strays],
                   links=[link for part in parts for link in part.links], parts=parts, top_folders=list(top),
                   power_rows=[r for part in parts for r in part.power_rows],
                   power_quarantined=[q for part in parts for q in part.power_quarantined])


def _on_dask(client, dask_address: str | None, work, arguments) -> list[Part]:
    if client is not None:
        return client.gather(client.map(work, *arguments, pure=False))
    from warehouse.trees.distributing import connect
    with connect(dask_address) as connected:
        return connected.gather(connected.map(work, *arguments, pure=False))
