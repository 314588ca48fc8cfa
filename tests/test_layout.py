"""The developer guide's layout section is the tree, and every folder says what it owns."""
import ast
import fnmatch
import re
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[1]
GUIDE = "docs/developer-guide.md"


def tracked_folders() -> set[str]:
    """Folders holding the project's files: git's view in a checkout, else (a copy of the checkout, as
    the docs runner makes) every folder .gitignore does not exclude."""
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, text=True)
    if listed.returncode == 0 and (ROOT / ".git").exists():
        files = [f for f in listed.stdout.split() if (ROOT / f).exists()]
    else:
        files = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file() and not ignored(p)]
    folders = {str(Path(f).parent) for f in files}
    with_parents = {str(p) for f in folders for p in [Path(f), *Path(f).parents]}
    return {f for f in with_parents if f != "." and not f.startswith(".")}


def ignored(path: Path) -> bool:
    patterns = [line.rstrip("/") for line in (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
                if line.strip() and not line.startswith("#")]
    relative = path.relative_to(ROOT)
    parts = relative.parts
    return any(part.startswith(".") for part in parts) or any(
        fnmatch.fnmatch(part, pattern) or fnmatch.fnmatch("/".join(parts[:i + 1]), pattern)
        for pattern in patterns for i, part in enumerate(parts))


def guide_layout() -> set[str]:
    """The folders the developer guide's layout tree names, each with its parents' path (two spaces a level)."""
    section = (ROOT / GUIDE).read_text(encoding="utf-8").split("## Layout", 1)[1]
    tree = re.search(r"```text\n(.*?)```", section, re.S).group(1)
    named, parents = set(), []
    for line in tree.splitlines():
        depth = (len(line) - len(line.lstrip(" "))) // 2
        folder = line.split()[0].rstrip("/")
        parents = parents[:depth] + [folder]
        named.add("/".join(parents))
    return named


def test_the_layout_names_every_folder_and_only_those():
    folders, named = tracked_folders(), guide_layout()
    assert named - folders == set(), f"{GUIDE}'s layout names folders that do not exist"
    assert folders - named == set(), f"folders missing from {GUIDE}'s layout section"


@pytest.mark.parametrize("folder", sorted(tracked_folders()))
def test_every_folder_opens_with_what_it_owns(folder):
    path = ROOT / folder
    init = path / "__init__.py"
    if init.exists():
        docstring = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert docstring and len(docstring.split()) >= 8, f"{folder}/__init__.py: no docstring saying what it owns"
    else:
        readme = path / "README.md"
        assert readme.exists() and len(readme.read_text(encoding="utf-8").split()) >= 15, \
            f"{folder}/: neither an __init__.py docstring nor a README.md"
