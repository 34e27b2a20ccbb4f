"""Reading scenario tables: every error names the file, the field and the value."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from mathhammer import ScenarioError
from mathhammer.fields import Fields, describe
from mathhammer.registry import Registry
from mathhammer.scenario import read_toml

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_values_are_read_and_checked() -> None:
    f = Fields({"skill": "3+", "n": 2, "dice": "d6+1", "flag": True, "words": ["a"]}, "weapon", "s.toml")
    assert f.roll("skill") == 3
    assert f.integer("n", min=1) == 2
    assert f.dice("dice") == "D6+1"
    assert f.flag("flag") is True
    assert f.texts("words") == ["a"]
    assert f.integer("missing", 7) == 7
    f.done()


@pytest.mark.parametrize(
    ("data", "read", "message"),
    [
        (
            {"skill": "9+"},
            lambda f: f.roll("skill"),
            r"s\.toml, field w\.skill: is '9\+'; it must be between 2\+ and 6\+",
        ),
        ({"skill": "three"}, lambda f: f.roll("skill"), r"field w\.skill: is 'three'; write a roll such as"),
        ({"n": -1}, lambda f: f.integer("n", min=0), r"field w\.n: is -1; it must be at least 0"),
        ({"n": "2"}, lambda f: f.integer("n"), r"field w\.n: must be a whole number, not '2'"),
        ({"d": "D0"}, lambda f: f.dice("d"), r"field w\.d: dice expression \"D0\""),
        ({}, lambda f: f.text("name"), r"field w\.name: is required but missing"),
        ({"t": "x"}, lambda f: f.text("t", choices=("a", "b")), r"is 'x'; expected one of 'a', 'b'"),
    ],
)
def test_bad_values_name_file_field_and_value(data: dict[str, object], read: object, message: str) -> None:
    f = Fields(data, "w", "s.toml")
    with pytest.raises(ScenarioError, match=message) as info:
        read(f)  # type: ignore[operator]
    assert info.value.source == "s.toml"


def test_unknown_keys_are_refused_with_a_suggestion() -> None:
    f = Fields({"strenght": 4}, "w", "s.toml")
    f.integer("strength", 4)
    with pytest.raises(ScenarioError, match=r"field w\.strenght: is not a known field; did you mean 'strength'\?"):
        f.done()


def test_tables_carry_their_path() -> None:
    f = Fields({"weapons": [{"name": 1}]}, "attacker", None)
    (w,) = f.tables("weapons")
    with pytest.raises(ScenarioError, match=r"field attacker\.weapons\[0\]\.name: must be text, not 1"):
        w.text("name")


def test_a_missing_field_names_the_misspelt_key_that_is_there() -> None:
    fields = Fields({"nmae": "Boltgun"}, "attacker.weapons[0]", "army.toml")
    with pytest.raises(ScenarioError, match="the table has 'nmae': did you mean 'name'") as error:
        fields.text("name")
    assert error.value.field == "attacker.weapons[0].name"


# -------------------------------------------------------------------------
# describe: the fields a ruleset reads, recorded from its own load
# -------------------------------------------------------------------------


def _by_key(node: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["key"]: f for f in node["fields"]}


def test_describe_records_what_load_reads(registry: Registry) -> None:
    fields = _by_key(describe(registry.ruleset("toy")))
    assert fields["attacks"] == {"key": "attacks", "kind": "dice", "required": True}
    assert fields["hit"] == {"key": "hit", "kind": "roll", "required": True, "min": 2, "max": 6}
    assert fields["damage"] == {"key": "damage", "kind": "dice", "required": False, "default": "1"}
    assert fields["save"] == {"key": "save", "kind": "roll", "required": False, "min": 2, "max": 6}
    assert fields["models"] == {
        "key": "models",
        "kind": "integer",
        "required": False,
        "default": 5,
        "min": 1,
        "max": 1000,
    }
    assert fields["keywords"] == {"key": "keywords", "kind": "texts", "required": False, "default": []}
    # The rules table is read by iterating its keys: any rule name, each a version.
    assert fields["rules"] == {"key": "rules", "kind": "table", "required": False, "fields": [], "open": True}
    assert next(iter(fields)) == "ruleset", "fields come in the order load reads them"


class _Shooting:
    """A ruleset whose fields depend on a choice, with a check across fields, and a list of tables."""

    name = "shooting"
    title = "Shooting"
    version = "1"

    def load(self, data: Mapping[str, Any], source: str | None) -> object:
        f = Fields(data, "", source)
        for w in f.tables("weapons"):
            kind = w.text("type", "melee", choices=("melee", "ranged", "pistol"))
            if kind == "melee":
                w.integer("strength_bonus", 0)
            else:
                w.integer("range", min=1)
            low, high = w.integer("low"), w.integer("high")
            if high <= low:
                w.fail("high", "must be above low")
            w.flag("after_the_check", False)
            w.done()
        if f.has("either"):
            f.data["either"]
        f.done()
        return object()

    def compile(self, scenario: Any, keywords: Any) -> Any:
        raise NotImplementedError


def test_describe_marks_fields_read_for_some_choices_only() -> None:
    weapons = _by_key(describe(_Shooting()))["weapons"]
    assert weapons["kind"] == "tables" and weapons["required"] is True
    fields = _by_key(weapons)
    assert fields["strength_bonus"]["when"] == {"key": "type", "values": ["melee"]}
    assert fields["range"]["when"] == {"key": "type", "values": ["ranged", "pistol"]}
    assert "when" not in fields["low"]
    assert "after_the_check" in fields, "a check across fields does not stop the recording"
    assert _by_key(describe(_Shooting()))["either"]["kind"] == "any"


def test_describe_a_ruleset_that_reads_no_fields() -> None:
    class Raw(_Shooting):
        def load(self, data: Mapping[str, Any], source: str | None) -> object:
            return dict(data)

    assert describe(Raw()) == {"key": "", "kind": "table", "required": True, "fields": []}


def _undescribed(data: Any, node: dict[str, Any], path: str) -> list[str]:
    """Keys of ``data`` that the description ``node`` has no field for."""
    fields = _by_key(node)
    missing = []
    for key, value in data.items():
        at = f"{path}.{key}" if path else key
        field = fields.get(key)
        if field is None:
            if not node.get("open"):
                missing.append(at)
        elif field["kind"] == "table":
            missing += _undescribed(value, field, at)
        elif field["kind"] == "tables":
            for i, item in enumerate(value):
                missing += _undescribed(item, field, f"{at}[{i}]")
    return missing


def _scenarios() -> list[str]:
    """The example scenario files: not the profile libraries or the sweep description."""
    return sorted(
        p.name
        for p in EXAMPLES.glob("*.toml")
        if "ruleset" in (data := read_toml(p)) and "attackers" not in data and "targets" not in data
    )


@pytest.mark.parametrize("example", _scenarios())
def test_every_field_of_the_examples_is_described(installed: Registry, example: str) -> None:
    data = read_toml(EXAMPLES / example)
    assert _undescribed(data, describe(installed.ruleset(data["ruleset"])), "") == []
