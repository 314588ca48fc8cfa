"""Run every shell command of README.md and of the guides in docs/ as written, in order, in a fresh copy.

    .venv-test/bin/python tests/readme_commands.py          (CI: .ci/run, after `make test`)

The documents run in the order of DOCUMENTS, all in the same copy: README.md first (its `make run`
builds the warehouse), then the guides, each of which may use what the earlier ones loaded. Each
fenced block tagged `bash`, `sh` or `shell` runs whole, in order, with `bash -e -o pipefail`
(so a `for` loop or a `\\` continuation is one command), from the root of a temporary copy of the
checkout (the files git tracks or would track, not what .gitignore leaves out) with `../shared` beside
it, a link to the real one. A block is skipped only when the line just before its opening fence is a
marker comment `<!-- not run by CI: REASON -->` (a server that runs until stopped, the suite itself).
The first failing block ends the run: its file and line, the exit code and the command that
failed (bash's trace) are printed, and the script exits 1.

The environment is the CI's, with no network and no MLPERF_* variable: each block runs with only
what it sets itself. The README's set-up block points `make run` at the shared mirror; the warehouse
remembers that source, so every later command fetches from it as a user's would. Each block runs in
the environment it names: the copy gets its two venvs, .venv with the third-party packages of this
checkout's .venv (what `make run` installs for a user: `make test-readme` builds it) and .venv-test
with those of .venv-test, each through a .pth line, and each holding the copy itself as an editable
install: `make install` and `make install-test` then have nothing left to do, every command runs the
copy's code, not this checkout's, and a user's command that needs a package only the test extra
brings fails here as it would for the user."""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"^```\s*(\w*)\s*$")
SKIP = re.compile(r"^<!--\s*not run by CI:\s*(.+?)\s*-->$")
SHELLS = {"bash", "sh", "shell"}
# In this order: the README builds the warehouse; the ingest reference loads the submission trees,
# claims, decisions and prices the analyst and BI guides query. tests/test_readme_commands.py fails
# when a document of docs/ with a shell block is missing here.
DOCUMENTS = ("README.md", "docs/ingest-reference.md", "docs/analyst-guide.md", "docs/bi-guide.md",
             "docs/operations-guide.md", "docs/developer-guide.md")


@dataclass(frozen=True)
class Block:
    line: int            # the line of its document its first command is on
    script: str
    skipped_because: str | None = None
    document: str = "README.md"


def shell_blocks(markdown: str, document: str = "README.md") -> list[Block]:
    """The shell blocks of a markdown text, in order, with the reason to skip those marked."""
    blocks, lines, i = [], markdown.splitlines(), 0
    while i < len(lines):
        opening = FENCE.match(lines[i].strip())
        if not opening:
            i += 1
            continue
        end = next((j for j in range(i + 1, len(lines)) if lines[j].strip().startswith("```")), len(lines))
        if opening.group(1) in SHELLS:
            before = next((lines[j].strip() for j in range(i - 1, -1, -1) if lines[j].strip()), "")
            skip = SKIP.match(before)
            blocks.append(Block(i + 2, "\n".join(lines[i + 1:end]), skip.group(1) if skip else None, document))
        i = end + 1
    return blocks


def fresh_copy(into: Path) -> Path:
    """The checkout's files (tracked, and untracked ones .gitignore does not leave out) copied into
    `into/checkout`, with `into/shared` linking to the real ../shared."""
    listed = subprocess.run(["git", "-C", ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            check=True, capture_output=True).stdout.decode().split("\0")
    copy = into / "checkout"
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)
    (into / "shared").symlink_to((ROOT.parent / "shared").resolve())
    return copy


# The copy's venvs, each from the packages of the venv of this checkout that `make` builds under that name.
ENVIRONMENTS = (".venv", ".venv-test")


def packages_of(venv: Path) -> Path:
    """The site-packages of a venv of this checkout, or a one-line error naming the make target."""
    found = sorted(venv.glob("lib/python*/site-packages"))
    if not found:
        target = "install-test" if venv.name == ".venv-test" else "install"
        raise SystemExit(f"error: {venv} has no site-packages: run `make {target}` first")
    return found[0]


def venv_for(copy: Path, packages: dict[str, Path] | None = None, editable: bool = True) -> None:
    """copy/.venv and copy/.venv-test (`make install` and `make install-test`): the packages of the
    venv of the same name (`packages`: name -> site-packages; this checkout's by default) through a
    .pth line, the copy installed editable (offline: no index, no build isolation), and make's stamp
    so make leaves each be."""
    packages = packages or {name: packages_of(ROOT / name) for name in ENVIRONMENTS}
    for name in ENVIRONMENTS:
        _venv(copy / name, packages[name], copy if editable else None)


def _venv(venv: Path, packages: Path, copy: Path | None) -> None:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    (site_packages,) = venv.glob("lib/python*/site-packages")
    (site_packages / "project_dependencies.pth").write_text(f"{packages}\n")
    if copy is not None:
        # the build needs setuptools, which a user's .venv has not: lent from this script's venv for the
        # install only (the editable install it leaves imports nothing of setuptools)
        lent = site_packages / "build_tools.pth"
        lent.write_text(sysconfig.get_path("purelib") + "\n")
        try:
            subprocess.run([sys.executable, "-m", "pip", "--python", venv / "bin" / "python", "install", "--quiet",
                            "--no-deps", "--no-index", "--no-build-isolation", "-e", copy], check=True)
        finally:
            lent.unlink()
    (venv / ".installed").touch()


def environment(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("MLPERF_", "PREFECT_", "PYTHON", "VIRTUAL_ENV", "MAKE"))}
    return env | {"PREFECT_HOME": str(home / "prefect"), "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}


def all_blocks(root: Path = ROOT) -> list[Block]:
    """The shell blocks of every document of DOCUMENTS, in that order."""
    return [block for document in DOCUMENTS
            for block in shell_blocks((root / document).read_text(encoding="utf-8"), document)]


def run_blocks(blocks: list[Block], copy: Path, env: dict[str, str]) -> int:
    for block in blocks:
        where = f"{block.document}:{block.line}"
        if block.skipped_because:
            print(f"{where}: skipped ({block.skipped_because})", flush=True)
            continue
        print(f"{where}: running", flush=True)
        done = subprocess.run(["bash", "-e", "-o", "pipefail", "-x", "-c", block.script], cwd=copy, env=env,
                              capture_output=True, text=True)
        if done.returncode != 0:
            traced = [line for line in done.stderr.splitlines() if line.startswith("+")]
            print(f"{where}: exit {done.returncode} from `{traced[-1][1:].strip() if traced else '?'}`"
                  f"\n--- stdout (end)\n{done.stdout[-3000:]}\n--- stderr (end)\n{done.stderr[-3000:]}",
                  file=sys.stderr)
            return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="keep the temporary copy (its path is printed)")
    args = parser.parse_args(argv)
    blocks = all_blocks()
    started = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix="readme-commands-"))
    try:
        copy = fresh_copy(work)
        venv_for(copy)
        code = run_blocks(blocks, copy, environment(work))
        ran = sum(1 for b in blocks if not b.skipped_because)
        print(f"{'all' if code == 0 else 'not all'} {ran} blocks of {len(DOCUMENTS)} documents ran"
              f" ({len(blocks) - ran} skipped) in {time.monotonic() - started:.0f} s")
        return code
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
