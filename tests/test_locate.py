"""Finding the line of a TOML file that sets a field, for error messages."""

from __future__ import annotations

from pathlib import Path

from mathhammer.face.locate import field_line, field_lines

DOCUMENT = """\
ruleset = "wh40k"
[rules]
"Devastating Wounds" = "10e-2024"

[[attacker.weapons]]
name = "Boltgun"
keywords = ["Lethal Hits", "Heavy"]

[[attacker.weapons]]   # the second weapon
name = "Plasma gun"
rules = { Hazardous = "11e" }
[attacker.weapons.modifiers]
hit = 1

[target]
toughness = 4
[[target.models]]
wounds = 2
"""


def test_fields_are_found_by_their_dotted_path() -> None:
    lines = field_lines(DOCUMENT)
    assert lines["ruleset"] == 1
    assert lines["rules.Devastating Wounds"] == 3
    assert lines["attacker.weapons[0].name"] == 6
    assert lines["attacker.weapons[1]"] == 9 and lines["attacker.weapons[1].name"] == 10
    assert lines["attacker.weapons[1].modifiers.hit"] == 13  # a table inside the second element of an array
    assert lines["target.models[0].wounds"] == 18


def test_a_value_inside_an_array_or_inline_table_points_at_its_key(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(DOCUMENT)
    assert field_line(path, "attacker.weapons[0].keywords[1]") == (7, 'keywords = ["Lethal Hits", "Heavy"]')
    assert field_line(path, "attacker.weapons[1].rules.Hazardous") == (11, 'rules = { Hazardous = "11e" }')


def test_a_missing_field_points_at_the_table_that_should_hold_it(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(DOCUMENT)
    assert field_line(path, "target.models[0].save") == (17, "[[target.models]]")


def test_no_line_for_a_file_that_cannot_be_read(tmp_path: Path) -> None:
    assert field_line(tmp_path / "missing.toml", "ruleset") is None


def test_a_field_that_is_no_dotted_path_finds_no_line(tmp_path: Path) -> None:
    # An army list's errors name an element path; stripping its last part leaves "selection[", which no
    # step shortens further: the search ends there instead of looping.
    roster = tmp_path / "army.ros"
    roster.write_text('<roster><forces><force><selections><selection name="Squad"/>', encoding="utf-8")
    field = 'roster/forces/force[0]/selections/selection[0] "Squad"/selections/selection[0] "Trooper"'
    assert field_line(roster, field) is None
