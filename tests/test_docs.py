"""The docs by reader: a short README that links every guide, and pointers from the code that name a
section the guides have."""
import re
from pathlib import Path

import pytest

from schemas.measurements import LATENCY_COLUMNS
from warehouse.ledger.measurement_formats import CSV_COLUMNS, CSV_COLUMNS_DOC

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[1]
GUIDES = ["analyst-guide.md", "bi-guide.md", "operations-guide.md", "ingest-reference.md", "developer-guide.md"]


def text(name: str) -> str:
    return (ROOT / name).read_text(encoding="utf-8")


def headings(name: str) -> set[str]:
    return {line.lstrip("#").strip() for line in text(name).splitlines() if line.startswith("#")}


def test_the_readme_fits_two_screens():
    lines = len(text("README.md").splitlines())
    assert lines < 200, f"README.md has {lines} lines: move detail into a guide in docs/"


@pytest.mark.parametrize("guide", GUIDES)
def test_the_readme_and_the_docs_index_link_every_guide(guide):
    assert f"(docs/{guide})" in text("README.md")
    assert f"({guide})" in text("docs/README.md")


def test_every_relative_link_of_the_docs_reaches_a_file():
    broken = []
    for doc in ["README.md", "docs/README.md", *(f"docs/{g}" for g in GUIDES)]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text(doc)):
            if "://" not in target and not ((ROOT / doc).parent / target).exists():
                broken.append(f"{doc}: {target}")
    assert broken == []


def test_the_measurement_csv_error_points_at_the_section_that_lists_every_column():
    doc, section = re.fullmatch(r"(\S+), '(.+)'", CSV_COLUMNS_DOC).groups()
    assert section in headings(doc)
    listed = text(doc).split(f"## {section}", 1)[1].split("\n## ", 1)[0]
    plain = [c for c in CSV_COLUMNS if c not in LATENCY_COLUMNS]
    assert [c for c in plain if not re.search(rf"\b{c}\b", listed)] == []
    assert all(re.fullmatch(r"(ttft|tpot|itl|e2el)_(mean|median|p99)_ms", c) for c in LATENCY_COLUMNS)
    assert "`ttft|tpot|itl|e2el` x `mean|median|p99` `_ms`" in " ".join(listed.split())


def test_every_pointer_from_the_code_to_a_doc_names_a_section_it_has():
    pointers = {(doc, section) for path in (ROOT / "warehouse").rglob("*.py")
                for doc, section in re.findall(r"(docs/[\w-]+\.md), '([^']+)'", path.read_text(encoding="utf-8"))}
    assert ("docs/operations-guide.md", "Load guards") in pointers
    assert [p for p in pointers if p[1] not in headings(p[0])] == []


def test_the_readme_shows_the_decision_records_with_commands_that_run():
    # Issue 63: the README never mentioned decisions. Its block loads the example decision after the
    # claims it rests on (`make test-readme` runs it), and every file it names exists.
    readme = text("README.md")
    decisions = readme.index("decisions load examples/decisions.example.toml")
    assert readme.index("claims load examples/claims_v6.1_nvidia.example.toml") < decisions
    assert "FROM decision_records" in readme[decisions:] and "decisions show " in readme[decisions:]
    cited = re.findall(r'"(nv-v6\.1-[^"]+)"', text("examples/decisions.example.toml"))
    assert cited and all(f'id = "{claim}"' in text("examples/claims_v6.1_nvidia.example.toml") for claim in cited)
    for example in re.findall(r"examples/[\w.]+", readme):
        assert (ROOT / example).is_file(), example


def test_the_bi_guide_says_what_reading_the_workbook_from_python_needs():
    # Issue 63: polars' read_excel on the export needs fastexcel, which nothing mentioned. It is in no
    # locked extra, so the guide says what to install rather than show an example that would fail.
    locked = text("requirements/run.txt") + text("requirements/test.txt")
    assert not re.search(r"^fastexcel==", locked, re.MULTILINE)
    excel = next(line for line in text("docs/bi-guide.md").split("\n- ") if line.startswith("**Excel**"))
    assert "read_excel" in excel and "`fastexcel`" in excel and "pip install fastexcel" in excel
