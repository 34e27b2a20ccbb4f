"""``docs/rules-coverage.md`` against the code: every test it cites exists (in either form it cites
them), every sentence it lists of the d12 and T9A texts names a test or says why none is needed, and
every reading it lists as a ``[rules]`` version is one, with the default it states.

``tests/test_docs.py`` checks the ``path::name`` citations; this adds the rest."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

import mathhammer

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "rules-coverage.md").read_text(encoding="utf-8")


def section(title: str) -> str:
    """The part of the document under the ``## title`` heading, up to the next ``## `` heading."""
    start = DOC.index(f"\n## {title}\n")
    end = DOC.find("\n## ", start + 1)
    return DOC[start : end if end >= 0 else len(DOC)]


def table_after(text: str, heading: str) -> list[list[str]]:
    """The rows (cells stripped) of the first table after ``### heading`` in ``text``, header and rule left out."""
    part = text[text.index(f"### {heading}\n") :]
    rows = []
    for line in part.splitlines()[1:]:
        if line.startswith("|"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split(" | ")])
        elif rows:
            break
    return rows[2:]


def test_rust_tests_cited_by_name_in_brackets_exist() -> None:
    """The form ``path.rs`` (``test_name``) names a test function of that file."""
    cited = re.findall(r"`([\w/.-]+\.rs)` \(`(\w+)`\)", DOC)
    assert cited
    for path, name in cited:
        assert f"fn {name}(" in (ROOT / path).read_text(encoding="utf-8"), f"{path}: {name}"


@pytest.mark.parametrize(
    ("ruleset", "heading", "paragraphs"),
    [("The d12 skill-dice system", "The text, sentence by sentence", 33)],
)
def test_every_paragraph_of_the_d12_text_is_listed(ruleset: str, heading: str, paragraphs: int) -> None:
    """The d12 text's 33 paragraphs (Attacks & Damage, the thresholds, Direct Damage, Psychic Powers,
    healing) each have at least one row, in order."""
    numbers = [int(row[0]) for row in table_after(section(ruleset), heading)]
    assert numbers == sorted(numbers)
    assert set(numbers) == set(range(1, paragraphs + 1))


@pytest.mark.parametrize(
    ("ruleset", "heading"),
    [
        ("The d12 skill-dice system", "The text, sentence by sentence"),
        ("The Ninth Age", "The to-wound text, sentence by sentence"),
    ],
)
def test_every_listed_sentence_names_a_test_or_says_why_none(ruleset: str, heading: str) -> None:
    rows = table_after(section(ruleset), heading)
    assert len(rows) >= 10
    for row in rows:
        pinned = row[-1]
        assert "::test_" in pinned or "nothing to pin" in pinned or pinned == "as above", row


def base(example: str) -> dict[str, Any]:
    """An example's scenario with its ``[rules]`` left out: every rule at its default."""
    data = tomllib.loads((ROOT / "examples" / example).read_text(encoding="utf-8"))
    data.pop("rules", None)
    return data


@pytest.mark.parametrize(
    ("ruleset", "heading", "example"),
    [
        ("The d12 skill-dice system", "Readings the text leaves open", "skilldice-vanguard.toml"),
        ("The Ninth Age", "Readings left open", "t9a-combat.toml"),
    ],
)
def test_every_reading_listed_is_a_rules_version_with_the_default_stated(
    ruleset: str, heading: str, example: str
) -> None:
    """Each ``[rules]`` key the document lists is a version the Result reports: the one marked
    "(default)" is in force when a scenario chooses none, every other listed one can be chosen, and the
    document lists every version the ruleset reports."""
    rows = table_after(section(ruleset), heading)
    defaults = mathhammer.compile_scenario(mathhammer.scenario_from_data(base(example))).rule_versions
    assert {row[0].strip("`") for row in rows} == set(defaults)
    for key, versions, _ in rows:
        key = key.strip("`")
        stated = re.search(r"`(\w+)` \(default", versions)
        assert stated is not None, key
        assert defaults[key] == stated.group(1)
        for version in re.findall(r"`(\w+)`", versions):
            data = {**base(example), "rules": {key: version}}
            chosen = mathhammer.compile_scenario(mathhammer.scenario_from_data(data)).rule_versions
            assert chosen[key] == version
