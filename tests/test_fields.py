"""Reading scenario tables: every error names the file, the field and the value."""

from __future__ import annotations

import pytest

from mathhammer import ScenarioError
from mathhammer.fields import Fields


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
