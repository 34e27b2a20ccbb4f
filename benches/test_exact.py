"""The exact evaluator on the three reference scenarios, timed and checked.

S1: 20 attacks BS3+ S4 AP-1 D1 into 10 models T4 Sv3+ W2.
S2: S1 with Sustained Hits 1, Lethal Hits, Devastating Wounds (10th edition's
2024 wording, spilling over) and D2.
S3: 10 attacks BS3+ S8 AP-2 D6 into 3 models T9 W12 Sv2+ and a 4+ invulnerable save.

Each asserts the reference mean of models destroyed (to 5e-7). Run with
``make bench``.
"""

from __future__ import annotations

import numpy as np
import pytest

import mathhammer
from mathhammer.versions import VersionChoice
from mathhammer_wh40k import Attacker, ModelProfile, Scenario, Target, Weapon

S1 = Scenario(
    attacker=Attacker(weapons=(Weapon("Boltgun", "2", 3, 4, "1", ap=-1, count=10),)),
    target=Target("Intercessors", 4, (ModelProfile("Intercessor", wounds=2, save=3, count=10),)),
)
S2 = Scenario(
    attacker=Attacker(
        weapons=(
            Weapon(
                "Boltgun",
                "2",
                3,
                4,
                "2",
                ap=-1,
                count=10,
                keywords=("Sustained Hits 1", "Lethal Hits", "Devastating Wounds"),
            ),
        )
    ),
    target=S1.target,
    rules=VersionChoice(rules={"Devastating Wounds": "10e-2024-spill"}),
)
S3 = Scenario(
    attacker=Attacker(weapons=(Weapon("Lascannon", "1", 3, 8, "D6", ap=-2, count=10),)),
    target=Target("Knights", 9, (ModelProfile("Knight", wounds=12, save=2, invulnerable=4, count=3),)),
)


@pytest.mark.benchmark(group="exact")
@pytest.mark.parametrize(
    ("name", "scenario", "expected"), [("S1", S1, 1.416742), ("S2", S2, 6.050784), ("S3", S3, 0.047692)]
)
def test_exact(benchmark: pytest.FixtureDef, name: str, scenario: Scenario, expected: float) -> None:  # type: ignore[type-arg]
    result = benchmark(mathhammer.evaluate_exact, scenario)
    assert result.evaluator == "exact"
    assert abs(result["models_destroyed"].mean - expected) < 5e-7
    assert abs(float(np.sum(result["models_destroyed"].pmf)) - 1) < 1e-12
