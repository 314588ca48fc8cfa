"""The README runner (tests/readme_commands.py) finds the shell blocks and honours the skip marker."""
from __future__ import annotations

import pytest

from tests.conftest import ROOT
from tests.readme_commands import Block, shell_blocks

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
def test_the_readme_skips_few_blocks_and_says_why():
    blocks = shell_blocks((ROOT / "README.md").read_text(encoding="utf-8"))
    skipped = [b for b in blocks if b.skipped_because]
    assert len(blocks) >= 10 and len(skipped) <= 3, [b.line for b in skipped]


def test_the_first_failing_block_stops_the_run_and_names_its_line_and_command(tmp_path, capsys):
    from tests.readme_commands import run_blocks
    blocks = [Block(3, "touch first"), Block(7, "", "a server"), Block(9, "touch second\nfalse\ntouch never")]
    assert run_blocks(blocks, tmp_path, {"PATH": "/usr/bin:/bin"}) == 1
    assert (tmp_path / "first").exists() and (tmp_path / "second").exists()
    assert not (tmp_path / "never").exists()
    out, err = capsys.readouterr()
    assert "README.md:7: skipped (a server)" in out
    assert err.startswith("README.md:9: exit 1 from `false`")
