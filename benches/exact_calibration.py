"""Calibrate the exact evaluator's work estimate against the work it takes.

The exact evaluator admits or declines a Plan from an estimate of its work
made before it starts, and stops an admitted one that takes four times its
estimate (``rust/core/src/exact/estimate.rs``). This script draws Plans of
many shapes (one to three groups of up to 20 models, fixed and random damage,
Feel No Pain, saves that differ between groups, mortal wounds and held harm)
plus every example scenario, runs each through the core's measuring entry
point (the ``exact_calibration`` example) and reports how the work taken
compares with the estimate:

    .venv/bin/python benches/exact_calibration.py --plans 600

It counts the ways the estimate can fail a user: a Plan that finishes within
the budget but would be declined for its estimate, one that would be stopped
for taking four times its estimate, and one past the budget that the estimate
admits (it then runs until the budget stops it). The figures are quoted in
``docs/architecture.md``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

from mathhammer import load_scenario
from mathhammer.plan import AttackPool, Attacks, Effect, Group, MortalWounds, Plan, Save, Target, Test
from mathhammer.simulate import compile_scenario

ROOT = Path(__file__).resolve().parent.parent
MAX_WORK = 10_000_000
ADMIT = 5 * MAX_WORK
OVERRUN = 4
FLOOR = MAX_WORK // 40


def random_plan(rng: np.random.Generator) -> Plan:
    """A Plan of a random shape, large enough that its work varies over orders of magnitude."""
    n = int(rng.integers(1, 4))
    groups = [
        Group(
            name=f"G{i}",
            models=int(rng.integers(1, 21)),
            wounds=int(rng.choice([1, 1, 2, 3, 4, 6, 10, 12])),
            tier=int(rng.choice([0, 0, 1])),
            save=rng.choice([None, 2, 3, 4, 5]),
            invulnerable=rng.choice([None, None, 4, 5]),
            feel_no_pain=rng.choice([None, None, None, 5, 6]),
        )
        for i in range(n)
    ]
    for g in groups:
        g.save = None if g.save is None else int(g.save)
        g.invulnerable = None if g.invulnerable is None else int(g.invulnerable)
        g.feel_no_pain = None if g.feel_no_pain is None else int(g.feel_no_pain)
    sequences: list[Any] = []
    held_used = False
    for i in range(int(rng.integers(1, 4))):
        wound_effects: list[Effect] = []
        kind = rng.choice(["none", "mortal", "unsaved"])
        after_all = bool(rng.random() < 0.3) and not held_used
        held_used |= after_all and kind != "none"
        if kind == "mortal":
            wound_effects.append(
                Effect(
                    on="critical",
                    action="mortal",
                    spill=bool(rng.random() < 0.5),
                    ends_attack=True,
                    after_all=after_all,
                )
            )
        elif kind == "unsaved":
            wound_effects.append(Effect(on="critical", action="unsaved", after_all=after_all))
        sequences.append(
            AttackPool(
                name=f"P{i}",
                attacks=[
                    Attacks(models=int(rng.integers(1, 21)), dice=str(rng.choice(["1", "2", "3", "D3", "D6", "2D6"])))
                ],
                steps=[
                    Test(name="hit", target=int(rng.integers(2, 6)), natural_fail=1, critical=6),
                    Test(
                        name="wound", target=int(rng.integers(2, 6)), natural_fail=1, critical=6, effects=wound_effects
                    ),
                ],
                save=Save(ap=int(rng.integers(-3, 1))),
                damage=str(rng.choice(["1", "2", "3", "D3", "D6", "D6+1", "2D6", "D3+3"])),
            )
        )
    if rng.random() < 0.3:
        sequences.insert(0, MortalWounds("Smite", str(rng.choice(["1", "D3", "D6", "2D6"]))))
    order = sorted(range(n), key=lambda g: groups[g].tier)
    return Plan(counters=[], target=Target(groups=groups, order=order), sequences=sequences)


def example_plans() -> list[Plan]:
    """Every example scenario's Plan (those whose ruleset is installed)."""
    plans = []
    for path in sorted((ROOT / "examples").rglob("*.toml")) + sorted((ROOT / "benches" / "scenarios").glob("*.toml")):
        try:
            plans.append(compile_scenario(load_scenario(path)).plan)
        except Exception:
            continue
    return plans


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--plans", type=int, default=600, help="random Plans to draw (default 600)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--output", type=Path, default=ROOT / "target" / "exact-calibration.jsonl")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    plans = example_plans() + [random_plan(rng) for _ in range(args.plans)]
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text("".join(p.to_json() + "\n" for p in plans))
    run = subprocess.run(
        [
            "cargo",
            "run",
            "--quiet",
            "--release",
            "--locked",
            "-p",
            "mathhammer-core",
            "--example",
            "exact_calibration",
            str(args.output),
        ],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    )
    rows = [line.split("\t") for line in run.stdout.splitlines()]
    measured = [
        (int(e), int(w), f == "true", float(ms)) for e, w, f, ms in (r for r in rows if r[0] != "error") if int(e) > 0
    ]
    finished = [m for m in measured if m[2]]
    ratios = np.array([w / max(e, 1) for e, w, _, _ in finished])
    declined_wrongly = [m for m in finished if m[0] > ADMIT]
    overrun = [m for m in finished if m[1] > OVERRUN * max(m[0], FLOOR)]
    slow = [m for m in measured if not m[2]]
    kept = [m for m in slow if m[0] <= ADMIT]
    rate = sum(w for _, w, _, _ in finished) / max(sum(ms for *_, ms in finished), 1e-9) * 1000
    print(f"Plans measured: {len(measured)} ({len(finished)} finished within {MAX_WORK:,} steps)")
    print(f"Steps a second: {rate:,.0f}")
    print(
        "Work taken / estimated, finished Plans: "
        + ", ".join(f"p{q} {np.percentile(ratios, q):.3f}" for q in (0, 5, 50, 95, 100))
    )
    print(f"Finished but estimated over {ADMIT:,} (declined up front): {len(declined_wrongly)}")
    for e, w, _, ms in sorted(declined_wrongly, key=lambda m: -m[3])[:5]:
        print(f"  estimate {e:,}  work {w:,}  {ms:.0f} ms")
    print(f"Finished but over {OVERRUN}x their estimate (stopped early): {len(overrun)}")
    for e, w, _, ms in sorted(overrun, key=lambda m: -m[3])[:5]:
        print(f"  estimate {e:,}  work {w:,}  {ms:.0f} ms")
    print(f"Past the budget: {len(slow)}, of which admitted by the estimate (stopped by the budget): {len(kept)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
