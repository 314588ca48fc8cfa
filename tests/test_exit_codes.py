"""The exit codes the operations guide lists are the ones the code has and the fault suite sees.

Three lists must agree: the table in docs/operations-guide.md ('Failures and exit codes'), the table
in warehouse/errors.py's docstring with its EXIT_* constants, and every exit code a test of the
fault suite (tests/test_faults*.py, tests/test_exit_codes.py's neighbours) asserts a command ends
with. A code a test sees that the guide does not list, or one the guide lists that no test sees,
fails naming it."""
from __future__ import annotations

import re
import signal

import pytest

from tests.conftest import ROOT
from warehouse import errors

pytestmark = pytest.mark.unit

# `code == 1`, `(code, err) == (0, "")`, `code=2` (a helper's expected code), `returncode == 0`,
# `run_reporting_failures(action) == 70`, `== 128 + signal.SIGTERM`.
NUMBER = r"(\d+)\b(?!\s*\+)"  # a number, not the 128 of `128 + signal.SIGTERM`
ASSERTED = [re.compile(r"\bcode\s*==\s*" + NUMBER), re.compile(r"\(code, [^)]*\)\s*==\s*\(" + NUMBER),
            re.compile(r"\bcode\s*=\s*" + NUMBER), re.compile(r"returncode\s*==\s*" + NUMBER),
            re.compile(r"run_reporting_failures\([^)]*\)\s*==\s*(?:EXIT_\w+\s*==\s*)?" + NUMBER)]
SIGNALLED = re.compile(r"==\s*128\s*\+\s*signal\.(SIG\w+)")
SUITE = ["test_faults*.py", "test_interrupt_messages.py", "test_exit_codes.py"]


def guide_codes() -> set[int]:
    text = (ROOT / "docs" / "operations-guide.md").read_text()
    table = text.split("## Failures and exit codes", 1)[1].split("\n\n| exit | meaning |", 1)[1].split("\n\n", 1)[0]
    return {int(code) for row in table.splitlines()[1:] for code in re.findall(r"\b(\d+)\b", row.split("|")[1])}


def module_codes() -> set[int]:
    rows = errors.__doc__.split("| code | meaning |", 1)[1].split("\n\n", 1)[0].splitlines()[2:]
    documented = {int(row.split("|")[1]) for row in rows}
    documented |= {int(c) for c in re.findall(r"\b(1\d\d) by SIG", errors.__doc__)}
    return documented


def seen_by_tests() -> dict[int, list[str]]:
    seen: dict[int, list[str]] = {}
    for path in sorted(p for pattern in SUITE for p in (ROOT / "tests").glob(pattern)):
        text = path.read_text()
        codes = [int(found.group(1)) for pattern in ASSERTED for found in pattern.finditer(text)]
        codes += [128 + signal.Signals[found.group(1)] for found in SIGNALLED.finditer(text)]
        for code in codes:
            seen.setdefault(code, []).append(path.name)
    return seen


def test_the_guide_lists_the_codes_of_warehouse_errors():
    constants = {value for name, value in vars(errors).items() if name.startswith("EXIT_")}
    assert guide_codes() == module_codes() == constants | {143}, (guide_codes(), module_codes(), constants)


def test_every_code_the_fault_suite_sees_is_in_the_guide():
    seen = seen_by_tests()
    unlisted = {code: files for code, files in seen.items() if code not in guide_codes()}
    assert not unlisted, f"exit codes asserted by tests but not in docs/operations-guide.md: {unlisted}"
    never_seen = guide_codes() - set(seen)
    assert not never_seen, f"exit codes the guide lists that no fault test sees: {sorted(never_seen)}"


def raising(exception: BaseException):
    def action():
        raise exception
    return action


def test_an_interruption_exits_128_plus_its_signal(capsys):
    from warehouse.cli.failures import run_reporting_failures
    ctrl_c, sigint, sigterm = (raising(KeyboardInterrupt()), raising(errors.Interrupted(signal.SIGINT)),
                               raising(errors.Interrupted(signal.SIGTERM)))
    assert run_reporting_failures(ctrl_c) == 130
    assert run_reporting_failures(sigint) == 130
    assert run_reporting_failures(sigterm) == 143
    assert [line.split(":")[0] for line in capsys.readouterr().err.splitlines()] == ["error"] * 3
