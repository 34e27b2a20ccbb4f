"""Keyword specs and tables: matching datasheet spellings to keywords."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mathhammer import KeywordSpec
from mathhammer.keywords import KeywordTable, exact_name


def sustained_hits(text: str) -> Mapping[str, Any] | None:
    words = text.split()
    if [w.casefold() for w in words[:2]] == ["sustained", "hits"] and len(words) == 3:
        return {"x": words[2]}
    return None


def test_exact_name_ignores_case_and_spacing() -> None:
    parse = exact_name("Lethal Hits")
    assert parse("lethal   hits ") == {}
    assert parse("Lethal Hits 2") is None


def test_a_table_resolves_a_spelling_to_its_keyword_and_parameters() -> None:
    table = KeywordTable("wh40k")
    for spec in (
        KeywordSpec("wh40k", "Lethal Hits", apply=lambda *a: None),
        KeywordSpec("wh40k", "Sustained Hits", apply=lambda *a: None, parse=sustained_hits),
    ):
        table.specs[spec.name] = spec
    found = table.resolve("Sustained Hits D3")
    assert found is not None and found[0].name == "Sustained Hits" and found[1] == {"x": "D3"}
    assert table.resolve("LETHAL HITS") is not None
    assert table.resolve("Blast") is None
    assert table.names() == ["Lethal Hits", "Sustained Hits"]
