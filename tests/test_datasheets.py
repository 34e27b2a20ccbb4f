"""The datasheet library (examples/datasheets/): well-known 40k units that load, run and drop no ability.

Each file is a profile library holding one unit, as an attacker and as a
target. The files are 40k data, reached as a user reaches them: through the
installed plugins (see conftest.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

import mathhammer
from mathhammer.compare import Profile, compare, pairing, read_profiles
from mathhammer.face.cli import main
from mathhammer.plugin import split_keywords
from mathhammer.registry import Registry

ROOT = Path(__file__).resolve().parents[1]
DATASHEETS = sorted((ROOT / "examples" / "datasheets").glob("*.toml"))
LIBRARY = ROOT / "examples" / "profiles.toml"
LIBRARY_TARGETS = ("guardsmen", "intercessors", "plague-marines", "terminators", "rhino", "leman-russ")
FACTIONS = {"Space Marines", "Necrons", "Orks", "Tyranids", "Astra Militarum", "Aeldari", "Chaos Space Marines"}
FACTIONS |= {"T'au Empire"}


def faction(path: Path) -> str:
    """The faction the file's first line names: ``# Boyz (Orks).``"""
    found = re.fullmatch(r"# .+ \((.+)\)\.", path.read_text(encoding="utf-8").splitlines()[0])
    assert found, f"{path.name}: the first line names the unit and its faction"
    return found.group(1)


def only(profiles: Mapping[str, Profile]) -> Profile:
    assert len(profiles) == 1
    return next(iter(profiles.values()))


def test_the_library_holds_thirty_well_known_units_from_several_factions() -> None:
    assert len(DATASHEETS) >= 30
    assert FACTIONS <= {faction(p) for p in DATASHEETS}


@pytest.mark.parametrize("path", DATASHEETS, ids=lambda p: p.stem)
def test_every_profile_says_it_is_written_from_memory_and_names_no_address(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert (
        "# Profile written from memory of the 10th-edition datasheet; not checked\n# against a published source."
        in text
    )
    assert not re.search(r"https?:|www\.|\.com\b|\.org\b", text)


@pytest.mark.parametrize("path", DATASHEETS, ids=lambda p: p.stem)
def test_every_datasheet_attacks_and_is_attacked(path: Path, installed: Registry) -> None:
    unit = read_profiles([path])
    library = read_profiles([LIBRARY])
    attacker, target = only(unit.attackers), only(unit.targets)
    assert attacker.name == target.name == target.table["name"]
    runs = [
        compare([attacker], [library.targets["intercessors"]], trials=2_000, seed=1, threads=1, registry=installed),
        compare([library.attackers["lascannons"]], [target], trials=2_000, seed=1, threads=1, registry=installed),
    ]
    for run in runs:
        (result,) = run.results.values()
        assert result.evaluator in ("exact", "monte_carlo")
        assert abs(float(result["models_destroyed"].pmf.sum()) - 1) < 1e-9
        assert result["attacks"].mean > 0


def weapons_without(table: Mapping[str, Any], weapon: int, ability: str) -> dict[str, Any]:
    """The attacker table with ``ability`` taken out of one weapon's keywords (the others kept, one a string)."""
    kept = [a for listed in table["weapons"][weapon].get("keywords", []) for a in split_keywords(listed)]
    kept.remove(ability)
    weapons = [dict(w) for w in table["weapons"]]
    weapons[weapon]["keywords"] = kept
    return {**table, "weapons": weapons}


@pytest.mark.parametrize("path", DATASHEETS, ids=lambda p: p.stem)
def test_every_ability_changes_the_calculation_or_is_reported_as_having_no_effect(
    path: Path, installed: Registry
) -> None:
    """Against Intercessors (INFANTRY) in each unit's own situation, no ability is dropped silently:
    taking it out changes the compiled Plan, or the Result lists it under "No effect on this calculation"."""
    attacker = only(read_profiles([path]).attackers)
    target = read_profiles([LIBRARY]).targets["intercessors"]

    def compiled(table: Mapping[str, Any]) -> mathhammer.Compiled:
        profile = Profile(attacker.name, attacker.ruleset, table, attacker.scenario, attacker.source, attacker.field)
        return mathhammer.compile_scenario(pairing(profile, target, registry=installed), registry=installed)

    whole = compiled(attacker.table)
    plan = whole.plan.to_json()
    for i, weapon in enumerate(attacker.table["weapons"]):
        for listed in weapon.get("keywords", []):
            for ability in split_keywords(listed):
                try:
                    changed = compiled(weapons_without(attacker.table, i, ability)).plan.to_json() != plan
                except mathhammer.ScenarioError:  # without Torrent the weapon needs a BS: it mattered
                    changed = True
                idle = [n for n in whole.no_effect if n.keyword == ability and n.where == weapon["name"]]
                assert changed != bool(idle), f"{path.name}: {weapon['name']}: {ability!r} " + (
                    "changed the Plan yet is reported as having no effect" if idle else "was dropped silently"
                )


def test_abilities_with_no_effect_are_listed_in_the_result_with_their_reason(installed: Registry) -> None:
    library = read_profiles([LIBRARY])

    def no_effect(unit: str) -> dict[str, str]:
        attacker = only(read_profiles([ROOT / "examples" / "datasheets" / f"{unit}.toml"]).attackers)
        scenario = pairing(attacker, library.targets["intercessors"], registry=installed)
        result = mathhammer.simulate(scenario, trials=1_000, seed=1, registry=installed)
        return {n.keyword: n.reason for n in result.no_effect}

    assert "one firing per battle" in no_effect("leman-russ-battle-tank")["ONE SHOT"]
    assert "the target is not FLY" in no_effect("redemptor-dreadnought")["ANTI-FLY 2+"]
    assert "the unit is not engaged" in no_effect("gretchin")["PISTOL"]
    assert "as well as another" in no_effect("carnifex")["EXTRA ATTACKS"]


def test_compare_runs_every_datasheet_against_the_profile_library_s_targets(
    capsys: pytest.CaptureFixture[str],
) -> None:
    picks = [arg for name in LIBRARY_TARGETS for arg in ("-t", name)]
    files = [str(p) for p in DATASHEETS] + [str(LIBRARY)]
    code = main(["compare", *files, *picks, "--monte-carlo", "--trials", "1000", "--seed", "1", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads(out)
    assert data["targets"] == list(LIBRARY_TARGETS)
    assert {only(read_profiles([p]).attackers).name for p in DATASHEETS} <= set(data["attackers"])
    assert len(data["cells"]) == len(data["attackers"]) * len(LIBRARY_TARGETS)
    for cell in data["cells"]:
        assert abs(sum(cell["result"]["models_destroyed"]["pmf"]) - 1) < 1e-9
