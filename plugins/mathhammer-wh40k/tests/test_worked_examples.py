"""The specification's two worked examples, replayed with scripted dice.

Each narrated step is asserted: how many dice hit and wound, which group each
save roll goes to and in what order, which models are destroyed.
The characteristics the text leaves out are recorded in the example files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mathhammer
from mathhammer import Registry

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def events(replay: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [e for e in replay["events"] if e["event"] == kind]


def per_sequence(replay: dict[str, Any]) -> list[list[dict[str, Any]]]:
    chunks: list[list[dict[str, Any]]] = []
    for e in replay["events"]:
        if e["event"] == "sequence":
            chunks.append([])
        chunks[-1].append(e)
    return chunks


def test_boltguns_bolt_pistol_and_heavy_bolter(registry: Registry) -> None:
    scenario = mathhammer.load_scenario(EXAMPLES / "attack-sequence-example.toml", registry=registry)
    dice = [
        3,
        5,
        6,
        2,
        4,  # five hit rolls for the boltguns and bolt pistol, BS3+: four hit
        1,
        3,
        5,
        6,  # four wound rolls, 3+ (S4 vs T3): three wound
        4,
        2,
        6,  # three save rolls
        4,
        1,
        5,  # three hit rolls for the heavy bolter, BS4+: two hit
        3,
        6,  # two wound rolls, 3+ (S5 vs T3): both wound
        5,
        3,  # two save rolls
    ]
    r = mathhammer.replay(scenario, dice, registry=registry)
    assert r["dice_used"] == len(dice)
    first, second = per_sequence(r)
    assert first[0]["name"] == "Boltgun + Bolt pistol"
    assert [e["count"] for e in first if e["event"] == "attacks"] == [5]
    hits = [e for e in first if e["event"] == "test" and e["step"] == 0]
    wounds = [e for e in first if e["event"] == "test" and e["step"] == 1]
    assert sum(e["outcome"] != "fail" for e in hits) == 4
    assert sum(e["outcome"] != "fail" for e in wounds) == 3
    saves = [(e["roll"], e["saved"]) for e in first if e["event"] == "save"]
    # Lowest first: the 2 is below InSv 5+ and Sv 3+ and inflicts damage; the 4
    # is below InSv but reaches Sv 3+; the 6 reaches InSv.
    assert saves == [(2, False), (4, True), (6, True)]
    resolved = [e["event"] for e in first if e["event"] in ("save", "damage", "model_destroyed")]
    assert resolved == ["save", "damage", "model_destroyed", "save", "save"]

    assert second[0]["name"] == "Heavy bolter"
    assert sum(e["outcome"] != "fail" for e in second if e["event"] == "test" and e["step"] == 0) == 2
    assert sum(e["outcome"] != "fail" for e in second if e["event"] == "test" and e["step"] == 1) == 2
    # The 3 becomes 2 after AP-1, below Sv 3+ (and InSv 5+): a D2 attack destroys
    # the model. The 5 equals InSv 5+ and fails to damage.
    assert [(e["roll"], e["saved"]) for e in second if e["event"] == "save"] == [(3, False), (5, True)]
    damage = [e for e in second if e["event"] == "damage"]
    assert damage == [{"event": "damage", "side": "target", "group": "BLUE trooper", "amount": 2, "lost": 2}]
    assert r["models_destroyed"] == 2
    assert r["counters"] == {"attacks": 8, "hits": 6, "wounds": 5, "failed_saves": 2, "mortal_wounds": 0}


def test_attached_unit_of_saint_celestine(registry: Registry) -> None:
    scenario = mathhammer.load_scenario(EXAMPLES / "attached-unit-example.toml", registry=registry)
    dice = [
        4,
        5,
        6,
        4,
        5,
        2,  # six heavy bolter hit rolls (2 x A3), BS4+: five hit
        3,
        4,
        5,
        6,
        3,  # five wound rolls, 3+: five wound
        1,
        3,
        1,
        6,
        4,  # the five save rolls, resolved lowest first
        *[1] * 14,  # the boltguns' fourteen attack dice (not narrated): all miss
        1,  # the plasma pistol (not narrated): misses
    ]
    r = mathhammer.replay(scenario, dice, registry=registry)
    heavy = per_sequence(r)[0]
    assert heavy[0]["name"] == "Heavy bolter"
    assert [e["count"] for e in heavy if e["event"] == "attacks"] == [6]
    # Groups and declared order: Geminae Superia first, Seraphim second, Saint
    # Celestine (a CHARACTER) last.
    assert [e["groups"] for e in heavy if e["event"] == "order"] == [["Geminae Superia", "Seraphim", "Saint Celestine"]]
    saves = [(e["roll"], e["group"], e["saved"]) for e in heavy if e["event"] == "save"]
    assert saves == [
        (1, "Geminae Superia", False),  # both 1s go to the current group, the Geminae Superia,
        (1, "Geminae Superia", False),  # inflict damage and destroy both
        (3, "Seraphim", False),  # the 3 goes to the Seraphim; with AP-1 it inflicts damage
        (4, "Seraphim", True),  # the remaining attacks fail
        (6, "Seraphim", True),
    ]
    destroyed = [(e["group"], e["left_in_group"]) for e in heavy if e["event"] == "model_destroyed"]
    assert destroyed == [("Geminae Superia", 1), ("Geminae Superia", 0), ("Seraphim", 4)]
    # The next pools declare a new order without the destroyed group.
    later = [e["groups"] for e in r["events"] if e["event"] == "order"]
    assert later == [["Geminae Superia", "Seraphim", "Saint Celestine"]]  # no wounds later, so no later order
    assert r["models_destroyed"] == 3 and r["damage"] == 5
