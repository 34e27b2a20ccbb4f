"""The importers' shared ground: safe reading of exports, and the profile library they write."""

from __future__ import annotations

import io
import tomllib
import zipfile
from pathlib import Path

import pytest

from mathhammer import importers
from mathhammer.exceptions import ScenarioError
from mathhammer.importers import ImportedList, ImportedUnit, Unmapped, parse_json, parse_xml, read_list, unzip_one


def test_a_library_round_trips_through_toml() -> None:
    weapon = {"name": 'Gun "Mk 2"', "count": 3, "attacks": "D6", "keywords": ["Assault, Heavy"], "ap": -1}
    unit = ImportedUnit(
        "Squad \u00e9lite",
        {"Squad \u00e9lite (ranged)": {"weapons": [weapon]}},
        {"name": "Squad", "toughness": 4, "models": [{"name": "Trooper", "count": 5, "wounds": 1, "save": "4+"}]},
        82.5,
        5,
    )
    plain = ImportedUnit(
        "Walker", {}, {"name": "Walker", "toughness": 9, "models": [{"name": "W", "wounds": 10}]}, 150, 1
    )
    listed = ImportedList(
        "army.ros", "a test list", "wh40k", [unit, plain], [Unmapped("Walker", "weapons", "none\nat all")]
    )
    text = listed.to_toml()
    data = tomllib.loads(text)
    assert data["ruleset"] == "wh40k"
    assert data["attackers"] == {"Squad \u00e9lite (ranged)": {"points": 82.5, "models": 5, "weapons": [weapon]}}
    assert data["targets"]["Walker"] == {
        "points": 150,
        "name": "Walker",
        "toughness": 9,
        "models": [{"name": "W", "wounds": 10}],
    }
    assert data["targets"]["Squad \u00e9lite"]["models"][0]["count"] == 5
    assert "#   Walker: weapons: none at all" in text  # the reason, on one comment line


def test_read_list_refuses_a_large_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importers, "MAX_LIST_BYTES", 100)
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 101)
    with pytest.raises(ScenarioError, match=r"big\.json: is too large: 101 bytes, over the 100 .* for an army list"):
        read_list(big)
    with pytest.raises(ScenarioError, match=r"cannot be read: it is a directory"):
        read_list(tmp_path)


def test_parse_errors_name_the_file() -> None:
    expected = r"^x\.json: is not valid JSON \(line 1, column 11: Expecting value\); is the export truncated"
    with pytest.raises(ScenarioError, match=expected):
        parse_json(b'{"roster":', "x.json")
    with pytest.raises(ScenarioError, match=r"^x\.json: is not UTF-8 text"):
        parse_json(b"\xff\xfe{}", "x.json")
    with pytest.raises(ScenarioError, match=r"^x\.ros: is not well-formed XML \(line 2, column"):
        parse_xml(b"<roster>\n<forces>", "x.ros")
    with pytest.raises(ScenarioError, match=r"^x\.ros: declares a document type"):
        parse_xml(b'<!DOCTYPE r [<!ENTITY e "x">]><r>&e;</r>', "x.ros")
    assert parse_xml(b"<roster name='a'/>", "x.ros").get("name") == "a"


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_unzip_one_stops_at_the_limit_whatever_the_directory_says(monkeypatch: pytest.MonkeyPatch) -> None:
    assert unzip_one(_zip({"a.txt": b"x", "army.ros": b"<roster/>"}), "a.rosz", (".ros",)) == ("army.ros", b"<roster/>")
    monkeypatch.setattr(importers, "MAX_UNPACKED_BYTES", 1000)
    data = bytearray(_zip({"army.ros": b"<" * 5000}))
    with pytest.raises(ScenarioError, match=r"a\.rosz: is refused: its directory says it unpacks to 5,000 bytes"):
        unzip_one(bytes(data), "a.rosz", (".ros",))
    # A directory that lies (says 10 bytes): no more is inflated than it says, and the check of the data fails.
    central = data.rfind(b"PK\x01\x02")
    data[central + 24 : central + 28] = (10).to_bytes(4, "little")
    with pytest.raises(ScenarioError, match=r"a\.rosz, field army\.ros: cannot be unpacked \(Bad CRC-32"):
        unzip_one(bytes(data), "a.rosz", (".ros",))
    with pytest.raises(ScenarioError, match=r"a\.rosz: is not a readable zip archive"):
        unzip_one(b"PK\x03\x04 truncated", "a.rosz", (".ros",))


def test_unzip_one_refuses_an_archive_of_two_lists() -> None:
    two = _zip({"first.ros": b"<roster/>", "notes.txt": b"x", "second.ros": b"<roster/>"})
    with pytest.raises(ScenarioError, match=r"^a\.rosz: holds 2 \.ros files \(first\.ros, second\.ros\); a zip"):
        unzip_one(two, "a.rosz", (".ros",))
