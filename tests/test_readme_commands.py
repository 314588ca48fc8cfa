"""The docs runner (tests/readme_commands.py) finds the shell blocks of the README and every guide, and
honours the skip marker."""
from __future__ import annotations

import pytest

from tests.conftest import ROOT
from tests.readme_commands import DOCUMENTS, Block, all_blocks, shell_blocks

MARKDOWN = """# title

```bash
make run     # a comment
```

Text, then a marked block:

<!-- not run by CI: starts a server -->

```sh
make serve
```

```python
print("not shell")
```

```bash
for r in a b; do
  echo $r
done
```
"""


@pytest.mark.unit
def test_shell_blocks_in_order_with_their_line_and_skip_reason():
    assert shell_blocks(MARKDOWN) == [
        Block(4, "make run     # a comment"),
        Block(12, "make serve", "starts a server"),
        Block(20, "for r in a b; do\n  echo $r\ndone"),
    ]


@pytest.mark.unit
def test_a_block_names_its_document():
    assert shell_blocks("```bash\nmake docs\n```\n", "docs/developer-guide.md") == [
        Block(2, "make docs", None, "docs/developer-guide.md")]


@pytest.mark.unit
def test_the_docs_skip_few_blocks_and_say_why():
    blocks = all_blocks()
    skipped = [f"{b.document}:{b.line}" for b in blocks if b.skipped_because]
    assert len(blocks) >= 10 and len(skipped) <= 4, skipped


@pytest.mark.unit
def test_the_runner_takes_the_readme_first_and_every_guide_with_a_shell_block():
    assert DOCUMENTS[0] == "README.md" and len(set(DOCUMENTS)) == len(DOCUMENTS)
    assert all((ROOT / d).is_file() for d in DOCUMENTS), [d for d in DOCUMENTS if not (ROOT / d).is_file()]
    with_shell = {str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md")
                  if shell_blocks(p.read_text(encoding="utf-8"))}
    assert with_shell - set(DOCUMENTS) == set(), "add these to DOCUMENTS in tests/readme_commands.py"


def test_the_first_failing_block_stops_the_run_and_names_its_line_and_command(tmp_path, capsys):
    from tests.readme_commands import run_blocks
    blocks = [Block(3, "touch first"), Block(7, "", "a server"),
              Block(9, "touch second\nfalse\ntouch never", None, "docs/a-guide.md")]
    assert run_blocks(blocks, tmp_path, {"PATH": "/usr/bin:/bin"}) == 1
    assert (tmp_path / "first").exists() and (tmp_path / "second").exists()
    assert not (tmp_path / "never").exists()
    out, err = capsys.readouterr()
    assert "README.md:7: skipped (a server)" in out
    assert err.startswith("docs/a-guide.md:9: exit 1 from `false`")


def test_a_block_runs_in_the_environment_it_names_and_fails_on_a_package_it_lacks(tmp_path, capsys):
    """The docs runner's venvs: .venv with the run environment's packages only, .venv-test with the
    test environment's. A planted block importing, in .venv, a package only the test environment
    holds fails, as it would for a user (pyarrow in .venv before it was in the bi extra)."""
    from tests.readme_commands import run_blocks, venv_for
    packages = {}
    for venv, module in ((".venv", "run_only"), (".venv-test", "test_only")):
        (tmp_path / venv.strip(".") / module).mkdir(parents=True)
        (tmp_path / venv.strip(".") / module / "__init__.py").write_text("")
        packages[venv] = tmp_path / venv.strip(".")
    copy = tmp_path / "checkout"
    copy.mkdir()
    venv_for(copy, packages, editable=False)
    env = {"PATH": "/usr/bin:/bin"}
    assert run_blocks([Block(1, ".venv/bin/python -c 'import run_only'"),
                       Block(2, ".venv-test/bin/python -c 'import test_only'")], copy, env) == 0
    planted = Block(59, ".venv/bin/python -c 'import test_only'", None, "docs/bi-guide.md")
    assert run_blocks([planted], copy, env) == 1
    err = capsys.readouterr().err
    assert err.startswith("docs/bi-guide.md:59: exit 1 from `.venv/bin/python -c 'import test_only'`")
    assert "No module named 'test_only'" in err


@pytest.mark.unit
def test_a_missing_venv_names_the_make_target_that_builds_it(tmp_path):
    from tests.readme_commands import packages_of
    with pytest.raises(SystemExit, match=r"\.venv has no site-packages: run `make install` first"):
        packages_of(tmp_path / ".venv")
