"""Keyword specs and tables: matching datasheet spellings to keywords."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from mathhammer import KeywordSpec
from mathhammer.keywords import KeywordTable, exact_name, split_restriction, with_value
from mathhammer.plugin import UnknownKeywordError


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


def test_one_keyword_has_many_spellings() -> None:
    table = KeywordTable("toy")
    table.specs["Sustained Hits"] = KeywordSpec(
        "toy", "Sustained Hits", apply=print, parse=with_value("Sustained Hits")
    )
    for text in (
        "Sustained Hits 1",
        "sustained hits 1",
        "[SUSTAINED HITS 1]",
        "Sustained Hits: 1",
        " Sustained  Hits:1 ",
    ):
        found = table.resolve(text)
        assert found is not None and found[1] == {"x": "1"}, text


def test_words_after_a_colon_are_a_restriction_and_a_value_is_not() -> None:
    assert split_restriction("[Lethal Hits: Vehicle]") == ("Lethal Hits", "Vehicle")
    assert split_restriction("Sustained Hits: D3") == ("Sustained Hits D3", None)
    assert split_restriction("Sustained Hits 1: Infantry") == ("Sustained Hits 1", "Infantry")


def test_lookup_names_the_field_and_lists_the_known_keywords() -> None:
    table = KeywordTable("toy")
    table.specs["Deadly"] = KeywordSpec("toy", "Deadly", apply=print)
    with pytest.raises(
        UnknownKeywordError,
        match=r"^f.toml, field w\[0\]: 'Dedly' is not a keyword of ruleset 'toy'; known keywords: Deadly$",
    ):
        table.lookup("Dedly", source="f.toml", field="w[0]")
