"""Army lists in: every fixture of every format imports, runs in ``compare``, and says what it left out."""

from __future__ import annotations

import importlib
import json
import pkgutil
import shlex
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import pytest

from mathhammer import Registry, ScenarioError, compare, import_list, read_profiles
from mathhammer.plugin import ImportedUnit
from mathhammer.testing import run_cli
from mathhammer_wh40k import importers

LISTS = Path(__file__).resolve().parent / "fixtures" / "lists"
FORMATS = {
    "battlescribe": sorted(LISTS.glob("*.ros")),
    "battlescribe-zip": sorted(LISTS.glob("*.rosz")),
    "newrecruit": sorted(LISTS.glob("*.newrecruit.json")),
    "listforge": sorted(LISTS.glob("*.listforge.json")),
}
TITLES = {
    "battlescribe": "BattleScribe roster (.ros)",
    "battlescribe-zip": "BattleScribe zipped roster (.rosz)",
    "newrecruit": "NewRecruit JSON export",
    "listforge": "ListForge JSON export",
}


@pytest.fixture
def lists() -> Registry:
    """The ruleset, every keyword it ships, and the importers (no entry points read)."""
    import mathhammer_blast
    import mathhammer_devastating_wounds
    import mathhammer_sustained_hits

    from mathhammer_wh40k import keywords, plugin

    modules = [
        importlib.import_module(f"mathhammer_wh40k.keywords.{m.name}") for m in pkgutil.iter_modules(keywords.__path__)
    ]
    pairs: list[tuple[str, object]] = [
        ("wh40k", plugin),
        ("importers", importers),
        ("blast", mathhammer_blast),
        ("devastating-wounds", mathhammer_devastating_wounds),
        ("sustained-hits", mathhammer_sustained_hits),
    ]
    return Registry.from_plugins(pairs + [(m.__name__.rsplit(".", 1)[-1], m) for m in modules])


REAL = {"necrons-10e.ros", "ultramarines-10e.rosz", "votann-leviathan.rosz"}
"""Real exports from a public repository (their source and licence are in fixtures/README.md)."""


def test_three_fixtures_per_format() -> None:
    assert all(len(paths) >= 3 for paths in FORMATS.values()), FORMATS
    assert REAL <= {p.name for paths in FORMATS.values() for p in paths}


@pytest.mark.parametrize(("format", "path"), [(f, p) for f, ps in FORMATS.items() for p in ps], ids=lambda p: str(p))
def test_every_fixture_imports_and_compares(
    lists: Registry, format: str, path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    imported = import_list(path, registry=lists)
    assert imported.format == TITLES[format]
    library = tmp_path / "units.toml"
    imported.write(library)
    assert tomllib.loads(library.read_text(encoding="utf-8"))["ruleset"] == "wh40k"
    profiles = read_profiles([library])
    assert set(profiles.targets) == {u.name for u in imported.units}
    capsys.readouterr()
    assert run_cli(["compare", str(library), "--exact", "--json"]) == 0
    compared = json.loads(capsys.readouterr().out)
    assert len(compared["cells"]) == len(profiles.attackers) * len(profiles.targets) > 0
    assert compared["target_points"] == {u.name: u.points for u in imported.units}


def test_points_models_and_mixed_wargear(lists: Registry) -> None:
    imported = import_list(LISTS / "marines.ros", registry=lists)
    squad = next(u for u in imported.units if u.name == "Intercessor Squad")
    assert squad.points == 80 and squad.models == 5
    ranged = {w["name"]: w for w in squad.attackers["Intercessor Squad (ranged)"]["weapons"]}
    pistols = {w["name"]: w for w in squad.attackers["Intercessor Squad (pistols)"]["weapons"]}
    # The sergeant's bolt rifle and the four others' become one weapon fired by 5; his plasma pistol by 1.
    assert list(ranged) == ["Bolt rifle"]
    assert ranged["Bolt rifle"]["count"] == 5 and ranged["Bolt rifle"]["keywords"] == ["Assault, Heavy"]
    # A model shoots its Pistols or its other ranged weapons: the pistols are an attacker of their own.
    assert pistols["Plasma pistol - standard"]["count"] == 1 and pistols["Bolt pistol"]["count"] == 4
    melee = squad.attackers["Intercessor Squad (melee)"]["weapons"]
    assert [(w["name"], w["count"], w["type"]) for w in melee] == [("Close combat weapon", 5, "melee")]
    assert squad.target == {
        "name": "Intercessor Squad",
        "toughness": 4,
        "keywords": ["Infantry"],
        "models": [{"name": "Intercessor", "count": 5, "wounds": 2, "save": "3+"}],
    }
    captain = next(u for u in imported.units if u.name == "Captain")
    assert captain.points == 80 and captain.models == 1
    assert captain.target["models"] == [
        {"name": "Captain", "count": 1, "wounds": 5, "save": "3+", "invulnerable": "4+", "character": True}
    ]


def test_nothing_is_dropped_silently(lists: Registry) -> None:
    imported = import_list(LISTS / "orks.ros", registry=lists)
    reasons = {(u.unit, u.item): u.reason for u in imported.unmapped}
    assert (
        "is not a keyword of ruleset 'wh40k'"
        in reasons["Painboy", 'ability "Snikrot\'s Surprise" of weapon "\'Urty syringe"']
    )
    assert reasons["Boyz", "rule 'Waaagh!'"].startswith("not a characteristic")
    painboy = next(u for u in imported.units if u.name == "Painboy")
    syringe = painboy.attackers["Painboy (melee)"]["weapons"][1]
    assert syringe["keywords"] == ["Anti-Infantry 4+", "Extra Attacks", "Precision"]
    assert painboy.target["models"][0]["feel_no_pain"] == "5+"
    boyz = next(u for u in imported.units if u.name == "Boyz")
    assert list(boyz.attackers) == ["Boyz (ranged)", "Boyz (melee)"]  # sluggas alone are its ranged weapons
    assert boyz.target["models"] == [
        {"name": "Boss Nob", "count": 1, "wounds": 2, "save": "5+"},
        {"name": "Boy", "count": 9, "wounds": 1, "save": "5+"},
    ]
    text = imported.to_toml()
    for item in imported.unmapped:
        assert item.reason.split(";")[0] in text
    # A list prices the Boyz as a unit: its Boss Nob and Boys share the points evenly, and the notes say so.
    assert imported.notes == [
        "Boyz: the 80 points of the unit are spread evenly over its 10 models, whatever their"
        " profile; give a model entry of the target points = N to count its models for their"
        " own worth"
    ]
    assert "# Notes:\n#   Boyz: the 80 points of the unit are spread evenly" in text
    marines = import_list(LISTS / "marines.ros", registry=lists)
    assert not any("Plasma pistol" in str(u) for u in marines.unmapped)  # both modes are fired, none dropped
    assert any(u.item == "Battle Size" and "no Unit profile" in u.reason for u in marines.unmapped)


def _ros(tmp_path: Path, text: str, name: str = "bad.ros") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_truncated_roster_names_the_file_and_line(lists: Registry, tmp_path: Path) -> None:
    whole = (LISTS / "marines.ros").read_text(encoding="utf-8")
    path = _ros(tmp_path, whole[: len(whole) // 2])
    with pytest.raises(ScenarioError, match=r"bad\.ros: is not well-formed XML \(line \d+, column \d+\)"):
        import_list(path, registry=lists)
    json_path = tmp_path / "bad.json"
    whole_json = (LISTS / "orks20.newrecruit.json").read_text(encoding="utf-8")
    json_path.write_text(whole_json[:5000], encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"bad\.json: is not valid JSON \(line \d+"):
        import_list(json_path, registry=lists)
    zipped = tmp_path / "bad.rosz"
    zipped.write_bytes((LISTS / "necrons20.rosz").read_bytes()[:900])
    with pytest.raises(ScenarioError, match=r"bad\.rosz"):
        import_list(zipped, registry=lists)


def test_a_malformed_element_is_named(lists: Registry, tmp_path: Path) -> None:
    whole = (LISTS / "necrons.ros").read_text(encoding="utf-8")
    path = _ros(tmp_path, whole.replace('number="10" type="model"', 'number="ten" type="model"', 1))
    with pytest.raises(
        ScenarioError,
        match=r'field roster/forces/force\[0\]/selections/selection\[0\] "Necron Warriors"'
        r'/selections/selection\[0\] "Necron Warrior": number is \'ten\'',
    ):
        import_list(path, registry=lists)
    path = _ros(tmp_path, whole.replace('<characteristic name="T"', "<characteristic", 1))
    with pytest.raises(ScenarioError, match=r"characteristics/characteristic\[1\]: <characteristic> has no name="):
        import_list(path, registry=lists)
    doc = (LISTS / "necrons.listforge.json").read_text(encoding="utf-8").replace('"value": 90', '"value": "lots"', 1)
    bad = tmp_path / "bad.json"
    bad.write_text(doc, encoding="utf-8")
    with pytest.raises(
        ScenarioError, match=r"bad\.json, field roster\.forces\[0\]\.selections\[0\]\.costs\[0\]\.value"
    ):
        import_list(bad, registry=lists)


def test_the_command_line_names_a_bad_element(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    whole = (LISTS / "necrons.ros").read_text(encoding="utf-8")
    path = _ros(tmp_path, whole.replace('number="10" type="model"', 'number="ten" type="model"', 1))
    assert run_cli(["import", str(path), "-o", str(tmp_path / "units.toml")]) == 2
    assert "\"Necron Warrior\": number is 'ten'; expected a count" in capsys.readouterr().err


def test_nesting_past_the_limit_is_refused(lists: Registry, tmp_path: Path) -> None:
    depth = 40  # more than MAX_DEPTH: a file built to exhaust the reader's stack
    xml = (
        "<roster><forces><force><selections>"
        + '<selection name="x"><selections>' * depth
        + "</selections></selection>" * depth
        + "</selections></force></forces></roster>"
    )
    with pytest.raises(ScenarioError, match=r"deep\.ros, field roster/forces/force\[0\]/.*nests selections or forces"):
        import_list(_ros(tmp_path, xml, "deep.ros"), registry=lists)
    selection: dict[str, object] = {"name": "x"}
    for _ in range(depth):
        selection = {"name": "x", "selections": [selection]}
    deep = tmp_path / "deep.json"
    deep.write_text(json.dumps({"roster": {"forces": [{"selections": [selection]}]}}), encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"deep\.json, field roster\.forces\[0\]\.selections.*more than 32 deep"):
        import_list(deep, registry=lists)


def test_not_a_roster(lists: Registry, tmp_path: Path) -> None:
    with pytest.raises(
        ScenarioError,
        match=r"odd\.txt: is in no army-list format mathhammer knows; the formats known"
        r" are: BattleScribe zipped roster \(\.rosz\) \(battlescribe-zip\)",
    ):
        import_list(_ros(tmp_path, "name,points\nSquad,80\n", "odd.txt"), registry=lists)
    with pytest.raises(ScenarioError, match=r"other\.ros, field /: has a <catalogue> where a BattleScribe roster"):
        import_list(_ros(tmp_path, "<catalogue name='x'/>", "other.ros"), registry=lists)
    with pytest.raises(ScenarioError, match=r"empty\.ros, field roster: holds no <forces>"):
        import_list(_ros(tmp_path, "<roster name='x'></roster>", "empty.ros"), registry=lists)
    with pytest.raises(ScenarioError, match=r"field format: is 'gw-app'; the list formats known are: battlescribe-zip"):
        import_list(_ros(tmp_path, "x", "a.txt"), format="gw-app", registry=lists)


def test_entity_expansion_is_refused(lists: Registry, tmp_path: Path) -> None:
    laughs = (
        '<?xml version="1.0"?><!DOCTYPE roster [<!ENTITY a "haha"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>'
        "<roster><forces><force><selections><selection name='&b;'/></selections></force></forces></roster>"
    )
    with pytest.raises(ScenarioError, match=r"laughs\.ros: declares a document type"):
        import_list(_ros(tmp_path, laughs, "laughs.ros"), registry=lists)
    external = '<?xml version="1.0"?><!DOCTYPE roster SYSTEM "http://example.com/x.dtd"><roster/>'
    with pytest.raises(ScenarioError, match=r"external\.ros: declares a document type"):
        import_list(_ros(tmp_path, external, "external.ros"), registry=lists)


def test_a_zip_bomb_is_refused(lists: Registry, tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.rosz"  # 17 MiB of blanks deflate to a few kilobytes
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("bomb.ros", "<roster>" + " " * (17 * 1024 * 1024) + "</roster>")
    with pytest.raises(
        ScenarioError,
        match=r"bomb\.rosz: is refused: its directory says it unpacks to 17,825,809 bytes,"
        r" over the 16,777,216 bytes",
    ):
        import_list(bomb, registry=lists)
    # A directory that lies about the size: the member is never inflated past what it claims.
    liar = tmp_path / "liar.rosz"
    with zipfile.ZipFile(liar, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("liar.ros", "<roster>" + " " * (17 * 1024 * 1024) + "</roster>")
    raw = bytearray(liar.read_bytes())
    claimed = (1000).to_bytes(4, "little")
    raw[22:26] = claimed  # the local header's uncompressed size
    directory = raw.rfind(b"PK\x01\x02")
    raw[directory + 24 : directory + 28] = claimed  # the central directory's
    liar.write_bytes(bytes(raw))
    with pytest.raises(ScenarioError, match=r"liar\.rosz, field liar\.ros: cannot be unpacked \(Bad CRC-32"):
        import_list(liar, registry=lists)
    many = tmp_path / "many.rosz"
    with zipfile.ZipFile(many, "w") as archive:
        for i in range(17):  # one more than a zipped list may hold
            archive.writestr(f"{i}.ros", "<roster/>")
    with pytest.raises(ScenarioError, match=r"many\.rosz: holds 17 files"):
        import_list(many, registry=lists)
    none = tmp_path / "none.rosz"
    with zipfile.ZipFile(none, "w") as archive:
        archive.writestr("readme.txt", "hello")
    with pytest.raises(ScenarioError, match=r"none\.rosz: holds no \.ros file \(it holds readme\.txt\)"):
        import_list(none, registry=lists)


def test_the_readme_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    units = tmp_path / "units.toml"
    assert run_cli(["import", str(LISTS / "necrons.ros"), "-o", str(units)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"wrote {units}: 2 targets, 4 attackers, 230 points, from a BattleScribe roster")
    assert "Necron Warriors: rule 'Reanimation Protocols': not a characteristic" in out
    library = Path(__file__).resolve().parents[3] / "examples" / "profiles.toml"
    assert run_cli(["compare", str(units), "--target-library", str(library)]) == 0
    out = capsys.readouterr().out
    assert "Best and worst targets by expected models destroyed per 100 points" in out
    assert "Canoptek Doomstalker (ranged)" in out and "rhino" in out
    assert run_cli(["import", str(LISTS / "necrons.ros"), "-o", str(units), "--format", "nope"]) == 2
    assert "field format: is 'nope'; the list formats known are" in capsys.readouterr().err


def test_the_readme_list_example_runs_verbatim(tmp_path: Path) -> None:
    """The README's two commands, as printed, in a directory laid out as a clone after ``make install``."""
    root = Path(__file__).resolve().parents[3]
    readme = (root / "README.md").read_text(encoding="utf-8")
    block = readme.split("Load an army list", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    commands = [shlex.split(line) for line in block.splitlines() if line.strip()]
    assert [c[:2] for c in commands] == [[".venv/bin/mathhammer", "import"], [".venv/bin/mathhammer", "compare"]]
    (tmp_path / "examples").symlink_to(root / "examples")
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "bin").symlink_to(Path(sys.executable).parent)
    outputs = []
    for command in commands:
        done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False)
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    assert outputs[0].startswith("wrote units.toml: 2 targets, 4 attackers, 230 points")
    assert "Best and worst targets by expected models destroyed per 100 points" in outputs[1]
    assert "Which attacker most efficiently removes each target" in outputs[1]


def test_an_attached_leader_becomes_one_target(lists: Registry, tmp_path: Path) -> None:
    imported = import_list(LISTS / "marines.ros", registry=lists, attach=[("Captain", "Intercessor Squad")])
    combined = imported.units[-1]
    assert combined.name == "Captain + Intercessor Squad" and combined.parts == ("Captain", "Intercessor Squad")
    assert combined.points == 160 and combined.models == 6 and combined.attackers == {}
    assert combined.target == {
        "name": "Captain + Intercessor Squad",
        "toughness": 4,
        "keywords": ["Infantry"],
        "models": [
            {"name": "Intercessor", "count": 5, "wounds": 2, "save": "3+"},
            {
                "name": "Captain",
                "count": 1,
                "wounds": 5,
                "save": "3+",
                "invulnerable": "4+",
                "character": True,
                "points": 80,
            },
        ],
    }
    assert imported.notes[-1] == (
        "Captain + Intercessor Squad: the 80 points of Captain go to its own models; the 80 points of Intercessor"
        " Squad, given for the whole unit, are spread evenly over its 5 models"
    )
    library = tmp_path / "units.toml"
    imported.write(library)
    profiles = read_profiles([library])
    assert list(profiles.targets) == ["Captain + Intercessor Squad"]
    assert profiles.targets["Captain + Intercessor Squad"].points == 160
    assert "Captain (melee)" in profiles.attackers and "Intercessor Squad (ranged)" in profiles.attackers
    with pytest.raises(
        ScenarioError,
        match=r"marines\.ros, field attach: is 'Chaplain' leading 'Intercessor Squad';"
        r" name two different units of the list that are not yet attached: Intercessor Squad, Captain",
    ):
        import_list(LISTS / "marines.ros", registry=lists, attach=[("Chaplain", "Intercessor Squad")])


# -------------------------------------------------------------------------
# Real exports: every value asserted below is read from the file itself
# -------------------------------------------------------------------------


def _weapons_of(unit: ImportedUnit) -> dict[str, dict[str, object]]:
    return {w["name"]: w for attacker in unit.attackers.values() for w in attacker["weapons"]}


def _roster_points(path: Path) -> float:
    """The roster's own total, ``<roster><costs><cost name="pts" value=...>``, read with the standard library."""
    data = path.read_bytes()
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            data = archive.read(archive.namelist()[0])
    root = ElementTree.fromstring(data)
    ns = {"bs": "http://www.battlescribe.net/schema/rosterSchema"}
    return sum(float(c.get("value", "0")) for c in root.findall("bs:costs/bs:cost[@name='pts']", ns))


@pytest.mark.parametrize("name", sorted(REAL))
def test_a_real_export_keeps_the_rosters_points(lists: Registry, name: str) -> None:
    imported = import_list(LISTS / name, registry=lists)
    assert sum(u.points or 0 for u in imported.units) == _roster_points(LISTS / name) > 0


def test_a_real_necrons_roster(lists: Registry) -> None:
    imported = import_list(LISTS / "necrons-10e.ros", registry=lists)
    assert imported.format == "BattleScribe roster (.ros)"
    units = {u.name: u for u in imported.units}
    assert [(u.name, u.points, u.models) for u in imported.units] == [
        ("Overlord", 85, 1),
        ("Tesseract Vault", 425, 1),
        ("The Silent King", 470, 3),
        ("Doom Scythe", 225, 1),
    ]
    vault = units["Tesseract Vault"]
    assert vault.target == {
        "name": "Tesseract Vault",
        "toughness": 12,
        "keywords": ["Vehicle", "Fly"],
        "models": [{"name": "Tesseract Vault", "count": 1, "wounds": 24, "save": "2+", "invulnerable": "4+"}],
    }
    weapons = _weapons_of(vault)
    # Four Tesla spheres, one selection of number 4; their abilities as printed.
    assert weapons["Tesla sphere"] == {
        "name": "Tesla sphere",
        "type": "ranged",
        "count": 4,
        "attacks": "6",
        "skill": "3+",
        "strength": 7,
        "ap": 0,
        "damage": "1",
        "keywords": ["Anti-FLY 4+, Sustained Hits 2"],
    }
    # A C'tan power prints a weapon's characteristics under its own profile type; BS N/A is no roll (Torrent).
    assert weapons["Cosmic Fire"] == {
        "name": "Cosmic Fire",
        "type": "ranged",
        "count": 1,
        "attacks": "3D6",
        "strength": 6,
        "ap": -2,
        "damage": "1",
        "keywords": ["Ignores Cover, Devastating Wounds, Torrent"],
    }
    assert weapons["Armoured bulk"]["type"] == "melee" and weapons["Armoured bulk"]["skill"] == "4+"
    reasons = {(u.unit, u.item): u.reason for u in imported.unmapped}
    # The model picks one C'tan power a phase: each other power is an attacker of its own, never beside the first.
    vault = units["Tesseract Vault"]
    for other in ("Time's Arrow", "Antimatter Meteor"):
        assert not any(other in item for _, item in reasons)
        fired = [w["name"] for w in vault.attackers[f"Tesseract Vault (ranged, {other})"]["weapons"]]
        assert other in fired and "Cosmic Fire" not in fired
        assert f"Tesseract Vault: {other!r} is another mode of a weapon" in " ".join(imported.notes)
    assert "Cosmic Fire" in [w["name"] for w in vault.attackers["Tesseract Vault (ranged)"]["weapons"]]
    king = units["The Silent King"]
    assert [(m["name"], m["count"], m["wounds"]) for m in king.target["models"]] == [
        ("Szarekh", 1, 16),
        ("Triarchal Menhir", 2, 5),
    ]
    assert _weapons_of(king)["Annihilator beam"]["count"] == 2
    overlord = _weapons_of(units["Overlord"])
    assert (overlord["Tachyon arrow"]["strength"], overlord["Tachyon arrow"]["ap"]) == (16, -5)
    assert overlord["Tachyon arrow"]["damage"] == "D6+2"
    # A rule that explains a printed weapon ability is read with the weapon; other rules are listed.
    assert ("Doom Scythe", "rule 'Sustained Hits'") not in reasons
    assert ("Tesseract Vault", "rule 'Anti-'") not in reasons
    assert reasons["Doom Scythe", "rule 'Deadly Demise D3'"].startswith("not a characteristic")
    assert reasons["Overlord", "ability 'Leader'"].startswith("an export does not say which unit a Leader leads")


def test_a_real_votann_roster_with_mixed_wargear(lists: Registry) -> None:
    imported = import_list(LISTS / "votann-leviathan.rosz", registry=lists)
    assert imported.format == "BattleScribe zipped roster (.rosz)"
    units = {u.name: u for u in imported.units}
    warriors = units["Hearthkyn Warriors"]
    assert (warriors.points, warriors.models) == (110, 10)
    assert warriors.target["models"] == [
        {"name": "Hearthkyn Warriors", "count": 10, "wounds": 1, "save": "4+", "feel_no_pain": "6+"}
    ]
    counts = {name: w["count"] for name, w in _weapons_of(warriors).items()}
    assert counts == {
        "Ion blaster": 8,  # the warriors' 7 and the Theyn's, whose selection prints no profile of its own
        "L7 missile launcher - blast": 1,
        "Magna-rail rifle": 1,
        "Autoch-pattern bolt pistol": 9,
        "Etacarn plasma pistol": 1,
        "Close combat weapon": 10,
        "L7 missile launcher - focused": 1,  # the other mode, fired by an attacker of its own
    }
    rail = _weapons_of(warriors)["Magna-rail rifle"]
    assert (rail["skill"], rail["strength"], rail["ap"], rail["damage"]) == ("5+", 12, -3, "D3+3")
    assert rail["keywords"] == ["Devastating Wounds, Heavy"]
    # One selection holds two weapons, the Sagitaur missile launcher and the two-mode L7 missile launcher.
    sagitaur = _weapons_of(units["Sagitaur"])
    assert {"Sagitaur missile launcher", "L7 missile launcher - blast"} <= set(sagitaur)
    assert (sagitaur["Sagitaur missile launcher"]["strength"], sagitaur["Sagitaur missile launcher"]["damage"]) == (
        12,
        "3",
    )
    reasons = {(u.unit, u.item): u.reason for u in imported.unmapped}
    # The missile launcher fires blast or focused: the unit's ranged attacker fires the first, and one more
    # attacker fires its other mode beside the unit's other weapons, never both at once.
    for unit in ("Sagitaur", "Hearthkyn Warriors"):
        default = units[unit].attackers[f"{unit} (ranged)"]["weapons"]
        focused = units[unit].attackers[f"{unit} (ranged, L7 missile launcher - focused)"]["weapons"]
        switched = {"L7 missile launcher - blast": "L7 missile launcher - focused"}
        assert [w["name"] for w in focused] == [switched.get(w["name"], w["name"]) for w in default]
        assert not any("L7 missile launcher" in item for u, item in reasons if u == unit)
    assert ("Sagitaur", "weapon profile 'Sagitaur missile launcher'") not in reasons
    assert reasons["Hekaton Land Fortress", "Transport profile 'Hekaton Land Fortress'"].startswith("not a")
    pioneers = units["Hernkyn Pioneers"]
    assert [(m["name"], m["count"], m["wounds"]) for m in pioneers.target["models"]] == [
        ("Hernkyn Pioneer", 2, 3),
        ("Hernkyn Pioneer w/ ion beamer", 1, 4),
    ]


def test_a_real_marines_roster_with_an_attached_leader(lists: Registry, tmp_path: Path) -> None:
    imported = import_list(
        LISTS / "ultramarines-10e.rosz", registry=lists, attach=[("Primaris Captain", "Assault Intercessor Squad")]
    )
    combined = imported.units[-1]
    assert combined.name == "Primaris Captain + Assault Intercessor Squad"
    assert (combined.points, combined.models) == (160, 6)
    assert combined.target == {
        "name": "Primaris Captain + Assault Intercessor Squad",
        "toughness": 4,
        "keywords": ["Infantry"],
        "models": [
            {"name": "Assault Intercessor Squad", "count": 5, "wounds": 2, "save": "3+"},
            {
                "name": "Primaris Captain",
                "count": 1,
                "wounds": 5,
                "save": "3+",
                "invulnerable": "4+",
                "character": True,
                "points": 80,
            },
        ],
    }
    units = {u.name: u for u in imported.units}
    impulsor = _weapons_of(units["Impulsor"])
    assert impulsor["Bellicatus Missile Array - Frag"]["attacks"] == "D6"
    assert impulsor["Ironhail Heavy Stubber"]["keywords"] == ["Rapid Fire 3"]
    # A weapon of three modes: the unit's ranged attacker fires the first, one attacker each of the others.
    arrays = {
        name: [w["name"] for w in attacker["weapons"] if w["name"].startswith("Bellicatus")]
        for name, attacker in units["Impulsor"].attackers.items()
    }
    assert arrays == {
        "Impulsor (ranged)": ["Bellicatus Missile Array - Frag"],
        "Impulsor (ranged, Bellicatus Missile Array - Krak)": ["Bellicatus Missile Array - Krak"],
        "Impulsor (ranged, Bellicatus Missile Array - Icarus)": ["Bellicatus Missile Array - Icarus"],
        "Impulsor (melee)": [],
    }
    library = tmp_path / "units.toml"
    imported.write(library)
    profiles = read_profiles([library])
    assert profiles.targets["Primaris Captain + Assault Intercessor Squad"].points == 160
    assert "Assault Intercessor Squad" not in profiles.targets  # its target is the attached unit's
    # One master-crafted bolt rifle (A2, BS 2+, S4, AP -1, D2) at the Razorback (T9, 3+): hits on 2+, wounds
    # on 6+, the 3+ save fails on 1-3 against AP -1: 2 x 5/6 x 1/6 x 1/2 x 2 = 5/18 damage.
    comparison = compare.compare(
        [profiles.attackers["Primaris Captain (ranged)"]], [profiles.targets["Razorback"]], registry=lists
    )
    assert comparison.results["Primaris Captain (ranged)", "Razorback"].evaluator == "exact"
    assert comparison.matrix("damage")[0, 0] == pytest.approx(5 / 18, abs=1e-12)
    # Points removed from the attached unit: an Assault Intercessor is worth 80 / 5 = 16 points, the Captain 80.
    attached = profiles.targets["Primaris Captain + Assault Intercessor Squad"]
    guns = {"weapons": [{"name": "L", "attacks": "8", "skill": "2+", "strength": 12, "ap": -4, "damage": "6"}]}
    comparison = compare.compare([compare.Profile("guns", "wh40k", guns)], [attached], registry=lists)
    points, probability = comparison.points_removed("guns", attached.name)
    # Each unsaved shot kills one model, Intercessors first; the sixth kills the Captain: 80 + 80 points.
    assert points.tolist() == [0.0, 16.0, 32.0, 48.0, 64.0, 80.0, 160.0]
    assert probability[-1] > 0 and probability.sum() == pytest.approx(1.0, abs=1e-12)
    assert comparison.group_points[attached.name].points == (80.0, 80)


def test_a_listforge_export_names_its_builder_at_the_top(lists: Registry, tmp_path: Path) -> None:
    document = json.loads((LISTS / "orks.listforge.json").read_text(encoding="utf-8"))
    said = document.pop("generatedBy")
    assert said == "List Forge"
    late = tmp_path / "late.json"  # the roster first, past the bytes read to recognise a format
    late.write_text(json.dumps({**document, "generatedBy": said}, indent=2), encoding="utf-8")
    assert late.read_text(encoding="utf-8").index('"generatedBy"') > 4096
    assert import_list(late, registry=lists).format == "ListForge JSON export"
    anonymous = tmp_path / "anonymous.json"
    anonymous.write_text(json.dumps(document), encoding="utf-8")
    assert import_list(anonymous, registry=lists).format == "NewRecruit JSON export"


# -------------------------------------------------------------------------
# Wargear without a profile, invalid characteristics, Leaders
# -------------------------------------------------------------------------


def test_wargear_without_its_own_profile_takes_the_profile_of_its_name(lists: Registry, tmp_path: Path) -> None:
    imported = import_list(LISTS / "votann-leviathan.rosz", registry=lists)
    warriors = next(u for u in imported.units if u.name == "Hearthkyn Warriors")
    assert _weapons_of(warriors)["Ion blaster"]["count"] == 8
    assert not [u for u in imported.unmapped if "Ion blaster" in u.item]
    # A bare selection whose name no weapon of the unit or the list prints is listed, not dropped.
    whole = (LISTS / "necrons.ros").read_text(encoding="utf-8")
    bare = '<selection name="Tachyon arrow" number="1" type="upgrade"/>'
    path = _ros(tmp_path, whole.replace("<selections>", f"<selections>{bare}", 3))
    imported = import_list(path, registry=lists)
    listed = [u for u in imported.unmapped if u.item == "selection 'Tachyon arrow'"]
    assert listed and "prints no profile, and no weapon of that name is printed" in listed[0].reason


@pytest.mark.parametrize("value", ["-3", "0", "many"])
def test_an_invalid_wounds_characteristic_names_the_unit(lists: Registry, tmp_path: Path, value: str) -> None:
    whole = (LISTS / "necrons.ros").read_text(encoding="utf-8")
    old = '<characteristic name="W" typeId="00aa-a1b2-c3d4-e5f6">1<'
    path = _ros(tmp_path, whole.replace(old, old.replace(">1<", f">{value}<"), 1))
    with pytest.raises(
        ScenarioError,
        match=rf"unit 'Necron Warriors': Unit profile 'Necron Warrior' has W '{value}'; W must be a whole number"
        r" from 1 to",
    ):
        import_list(path, registry=lists)
    units = tmp_path / "units.toml"
    assert run_cli(["import", str(path), "-o", str(units)]) == 2
    assert not units.exists()  # no library with an invalid target


def test_an_invalid_toughness_names_the_unit(lists: Registry, tmp_path: Path) -> None:
    whole = (LISTS / "necrons.ros").read_text(encoding="utf-8")
    old = '<characteristic name="T" typeId="00a8-a1b2-c3d4-e5f6">4<'
    path = _ros(tmp_path, whole.replace(old, old.replace(">4<", ">0<"), 1))
    with pytest.raises(ScenarioError, match=r"unit 'Necron Warriors': Unit profile 'Necron Warrior' has T '0'"):
        import_list(path, registry=lists)


@pytest.mark.parametrize(
    ("weapon", "name", "printed"),
    [
        ("Gauss flayer", "BS", "BS is 'banana'"),
        ("Gauss flayer", "A", "A "),
        ("Gauss flayer", "D", "D "),
        ("Close combat weapon", "WS", "WS is 'banana'"),
    ],
)
def test_a_refused_weapon_characteristic_is_named(
    lists: Registry, tmp_path: Path, weapon: str, name: str, printed: str
) -> None:
    whole = (LISTS / "necrons.ros").read_text(encoding="utf-8")
    start = whole.index(f'<characteristic name="{name}"', whole.index(f'name="{weapon}"'))
    end = whole.index("</characteristic>", start)
    head = whole[start:end].rsplit(">", 1)[0]
    path = _ros(tmp_path, whole[:start] + head + ">banana" + whole[end:])
    imported = import_list(path, registry=lists)
    reasons = {u.item: u.reason for u in imported.unmapped if u.unit == "Necron Warriors"}
    assert reasons[f"weapon {weapon!r}"].startswith(printed), reasons
    assert "weapons" not in reasons  # the unit still has its other weapon


def test_only_a_leader_leads(lists: Registry) -> None:
    real = LISTS / "ultramarines-10e.rosz"
    with pytest.raises(
        ScenarioError,
        match=r"ultramarines-10e\.rosz, field attach: is 'Outrider Squad' leading 'Assault Intercessor Squad', but"
        r" the list gives 'Outrider Squad' no Leader ability",
    ):
        import_list(real, registry=lists, attach=[("Outrider Squad", "Assault Intercessor Squad")])
    alone = import_list(real, registry=lists)
    assert [u for u in alone.unmapped if u.unit == "Primaris Captain" and u.leads]
    attached = import_list(real, registry=lists, attach=[("Primaris Captain", "Assault Intercessor Squad")])
    assert not [u for u in attached.unmapped if u.unit == "Primaris Captain" and u.leads]
    assert not [u for u in attached.unmapped if u.unit == "Primaris Captain" and "Leader leads" in u.reason]
    # Another Leader, not attached, keeps its note.
    assert [u for u in attached.unmapped if u.unit == "Primaris Lieutenant" and u.leads]


def test_a_zipped_roster_of_two_lists_is_refused(lists: Registry, tmp_path: Path) -> None:
    path = tmp_path / "two.rosz"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("first.ros", (LISTS / "necrons.ros").read_bytes())
        archive.writestr("second.ros", (LISTS / "marines.ros").read_bytes())
    with pytest.raises(ScenarioError, match=r"two\.rosz: holds 2 \.ros files \(first\.ros, second\.ros\)"):
        import_list(path, registry=lists)


def test_a_unit_whose_weapons_are_all_refused_is_not_said_to_have_none(lists: Registry, tmp_path: Path) -> None:
    text = (LISTS / "necrons.ros").read_text(encoding="utf-8")
    for name, weapon in (("BS", "Gauss flayer"), ("WS", "Close combat weapon")):
        start = text.index(f'<characteristic name="{name}"', text.index(f'name="{weapon}"'))
        end = text.index("</characteristic>", start)
        text = text[:start] + text[start:end].rsplit(">", 1)[0] + ">banana" + text[end:]
    reasons = {u.item: u.reason for u in import_list(_ros(tmp_path, text), registry=lists).unmapped}
    assert reasons["weapons"] == "every weapon profile of the unit is refused (each listed); it is a target only"
