"""Keyword specs and tables: matching datasheet spellings to keywords."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from mathhammer import KeywordSpec
from mathhammer.keywords import KeywordTable, NoEffect, exact_name, split_keywords, split_restriction, with_value
from mathhammer.plugin import KeywordError, UnknownKeywordError


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


def test_one_string_may_list_several_keywords_as_datasheets_print_them() -> None:
    assert split_keywords("[ASSAULT, HEAVY]") == ["ASSAULT", "HEAVY"]
    assert split_keywords("Rapid Fire D3, [Lethal Hits: Vehicle]") == ["Rapid Fire D3", "[Lethal Hits: Vehicle]"]
    assert split_keywords("[ASSAULT], [HEAVY]") == ["[ASSAULT]", "[HEAVY]"]
    assert split_keywords("Assault,, Heavy") == ["Assault", "Heavy"]
    assert split_keywords("Anti-Fly 2+") == ["Anti-Fly 2+"]
    assert split_keywords(" , ") == [" , "]  # nothing else: kept, so the error names it


def test_a_keyword_without_effect_is_accepted_and_says_why() -> None:
    table = KeywordTable("wh40k")
    spec = KeywordSpec.without_effect("wh40k", "One Shot", "it fires once per battle")
    table.specs[spec.name] = spec
    found, params = table.lookup("[ONE SHOT]", source=None, field="keywords[0]")
    assert found is spec and params == {}
    assert table.apply(found, object(), source=None, field="keywords[0]") == "it fires once per battle"
    assert (
        str(NoEffect("One Shot", "it fires once per battle", "Missile"))
        == "Missile: One Shot: it fires once per battle"
    )


def test_apply_may_say_why_it_did_nothing_this_time() -> None:
    def melta(rules: dict[str, bool]) -> str | None:
        return None if rules["half_range"] else "the target is not within half range"

    table = KeywordTable("wh40k")
    spec = table.specs["Melta"] = KeywordSpec("wh40k", "Melta", apply=melta)
    assert table.apply(spec, {"half_range": True}, source=None, field="f") is None
    assert table.apply(spec, {"half_range": False}, source=None, field="f") == "the target is not within half range"


@pytest.mark.parametrize("returned", ["", "  ", 0, True])
def test_apply_returning_anything_but_none_or_a_sentence_is_the_plugins_fault(returned: Any) -> None:
    table = KeywordTable("wh40k")
    spec = table.specs["Odd"] = KeywordSpec("wh40k", "Odd", apply=lambda rules: returned)
    with pytest.raises(KeywordError, match="returns None, or a sentence"):
        table.apply(spec, None, source=None, field="f")
