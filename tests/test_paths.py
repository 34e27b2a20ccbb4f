"""Which Monte Carlo path every example takes, and why those that roll every die do.

Monte Carlo draws a pool's outcomes from exact tables (the fast path) unless
the Plan needs every die: a batch hook (which sees every die), a scripted
replay, or one of the exceptions ``docs/architecture.md`` names under "What
still runs die by die", each with its measured rate. These tests compile
every example scenario, every benchmark scenario and every pairing of the
example profile libraries, ask the core which path Monte Carlo takes
(``CompiledPlan.why_die_by_die``), and require each die-by-die reason to be
one the documentation names. The statistical tests that hold each path to
the exact evaluator are ``rust/core/tests/paths.rs`` and those the
documentation's table lists.
"""

from __future__ import annotations

import copy
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import mathhammer
from mathhammer.plan import AttackPool
from mathhammer.profiles import Profile, is_library, pairing, read_profiles
from mathhammer.simulate import prepare

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
ARCHITECTURE = ROOT / "docs" / "architecture.md"

#: Each reason the core gives for rolling every die (a phrase of its words)
#: and the words ``docs/architecture.md`` names it with.
DOCUMENTED = {
    "calls a batch hook": "Plans with a batch hook",
    "tests, and a table holds at most": "a pool with more than four tests",
    "attack dice can make up to": "1,024 tokens or more",
    "one-die table passes the work": "one-die table passes 2·10^7 multiply-adds",
    "tables together pass": "the tables of all its pools together pass",
    "mixes kinds of harm outside the save": "harm outside the save of more than one kind",
    "it counts a status": "a `count` effect",
    "a roll's dice depend on marks": "a roll whose dice depend on marks",
}


def documented_exceptions() -> str:
    """The section of ``docs/architecture.md`` that names what still runs die by die, joined onto one line."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    start = text.index("**What still runs die by die")
    end = text.index("- **Whole trials**", start)
    return re.sub(r"\s+", " ", text[start:end])


def undocumented(why: str) -> list[str]:
    """The parts of a die-by-die reason (one per pool) that no documented exception covers."""
    return [part for part in why.split("; ") if not any(phrase in part for phrase in DOCUMENTED)]


def scenario_files() -> Iterator[Path]:
    for path in [*sorted(EXAMPLES.glob("*.toml")), *sorted((ROOT / "benches" / "scenarios").glob("*.toml"))]:
        is_sweep = "libraries" in tomllib.loads(path.read_text(encoding="utf-8"))
        if not is_library(path) and not is_sweep:
            yield path


def library_files() -> list[Path]:
    paths = [*sorted(EXAMPLES.glob("*.toml")), *sorted((EXAMPLES / "datasheets").glob("*.toml"))]
    return [p for p in paths if is_library(p)]


def path_of(scenario: object) -> tuple[bool, str | None]:
    """Whether the compiled Plan takes the fast path, and why not; the two must agree."""
    core = prepare(scenario).core
    why = core.why_die_by_die()
    assert core.uses_fast_path() == (why is None) or core.has_batch_hooks, why
    if core.has_batch_hooks:
        assert why is not None and "batch hook" in why, why
    return why is None, why


def test_every_documented_exception_is_in_the_documentation() -> None:
    section = documented_exceptions()
    missing = [words for words in DOCUMENTED.values() if words not in section]
    assert not missing, f"docs/architecture.md no longer names: {missing}"


@pytest.mark.parametrize("path", list(scenario_files()), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_example_scenario_takes_a_documented_path(path: Path) -> None:
    fast, why = path_of(mathhammer.load_scenario(path))
    assert fast or not undocumented(why or ""), f"{path.name} runs die by die for a reason not documented: {why}"


def pairings() -> Iterator[tuple[Profile, Profile]]:
    """Every attacker of the example libraries against every target of its ruleset."""
    attackers: list[Profile] = []
    targets: list[Profile] = []
    for path in library_files():
        profiles = read_profiles([path])
        attackers += profiles.attackers.values()
        targets += profiles.targets.values()
    for attacker in attackers:
        for target in targets:
            if attacker.ruleset == target.ruleset:
                yield attacker, target


def test_every_pairing_of_the_example_libraries_takes_a_documented_path() -> None:
    seen, slow = 0, {}
    for attacker, target in pairings():
        fast, why = path_of(pairing(attacker, target))
        seen += 1
        if not fast:
            slow[attacker.ruleset, f"{attacker.name} into {target.name}"] = why or ""
    assert seen > 1_000
    bad = {cell: why for cell, why in slow.items() if undocumented(why)}
    assert not bad, f"pairings that run die by die for reasons not documented: {bad}"
    # Today only the d12 skill-dice profiles roll every die (they count statuses).
    assert {ruleset for ruleset, _ in slow} <= {"skilldice"}, slow


def test_the_skill_dice_examples_run_die_by_die_for_their_statuses_and_marks() -> None:
    """What the documentation says of them, held to what the core reports."""
    reasons: dict[str, str] = {}
    for path in scenario_files():
        _, why = path_of(mathhammer.load_scenario(path))
        if why is not None:
            reasons[path.name] = why
    assert set(reasons) == {"skilldice-fight.toml", "skilldice-vanguard.toml", "skilldice-warband.toml"}, reasons
    assert all("it counts a status" in why for why in reasons.values()), reasons
    assert "a roll's dice depend on marks" in reasons["skilldice-warband.toml"]


def test_a_hooked_plan_reports_its_hook() -> None:
    def unchanged(arrays: dict[str, Any]) -> dict[str, Any]:
        return {}

    plan = copy.deepcopy(prepare(mathhammer.load_scenario(EXAMPLES / "boltguns.toml")).compiled.plan)
    assert plan.compile().why_die_by_die() is None
    pool = plan.sequences[0]
    assert isinstance(pool, AttackPool)
    pool.batch_hook = plan.add_hook(unchanged)
    why = plan.compile().why_die_by_die()
    assert why is not None and "batch hook" in why
    assert not undocumented(why)
