"""The exact evaluator against icepool, as ratios measured side by side in one run.

Times ``mathhammer.evaluate_exact`` (the public API on a loaded Scenario,
whose compiled Plan it keeps, the Result built on every call; best of three
calls), the core's evaluation alone on the
compiled Plan (what the API spends in Rust), and icepool computing the same
models-destroyed distribution, on

- the three reference scenarios (``benches/scenarios/s1.toml`` to ``s3``);
- the attack-count sweep: the S1 profile (BS3+ S4 AP-1 D1) with 10 to 2,000
  attacks into 20 two-wound models and into 100 one-wound models.

Each icepool program is the plain one a user would write: a die per attack
for the failed saves (hit, wound and save rolls), summed over the attacks,
then mapped to models destroyed (S3 folds its D6 damage through the models
one failed save at a time). icepool sums n dice either as ``n @ die`` or as
``die.pool(n).sum()``; both are timed where ``@`` is practical (it recurses
once per die) and the faster is used. Every pair of answers must agree (mean
models destroyed to 1e-9), else the script fails: the ratios compare like
for like. Times are medians of ``--rounds`` interleaved runs (one icepool run
past 500 attacks, where one takes seconds). Prints a markdown table and
writes it to ``--output``.

    python benches/exact_sweep.py [--rounds 5] [--output target/exact-sweep.md]

``make bench`` runs it after the other benchmarks.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import icepool
from icepool import Die, d6

import mathhammer
from mathhammer import _core
from mathhammer.simulate import prepare

HERE = Path(__file__).resolve().parent
ATTACKS = (10, 20, 50, 100, 200, 320, 500, 1000, 2000)
TARGETS = ((20, 2), (100, 1))
TOLERANCE = 1e-9


def scenario(name: str, attacks: int | None = None, models: int = 0, wounds: int = 0) -> Any:
    """A reference scenario, or the S1 profile with ``attacks`` attacks into ``models`` models of ``wounds``."""
    data = tomllib.loads((HERE / "scenarios" / f"{name.lower()}.toml").read_text())
    if attacks is not None:
        data["attacker"]["weapons"][0].update(count=attacks, attacks="1")
        data["target"]["models"][0].update(count=models, wounds=wounds)
    return mathhammer.scenario_from_data(data)


def summed(one: Die, n: int, matmul: bool) -> Die:
    """The sum of ``n`` rolls of ``one``, by icepool's ``@`` or its pool sum."""
    return n @ one if matmul else one.pool(n).sum()


def icepool_s1(attacks: int, models: int, wounds: int, matmul: bool) -> Die:
    """Models destroyed by the S1 profile (D1): failed saves over the wounds a model has."""
    failed = (d6 >= 3) & (d6 >= 4) & (d6 <= 3)  # hit 3+, wound 4+, save 4+ (3+ at AP-1) failed
    return summed(failed, attacks, matmul).map(lambda f: min(f // wounds, models))


def icepool_s2(matmul: bool) -> Die:
    """S2: each failed save (D2) and each Devastating Wound (2 mortal wounds) slays one two-wound model."""
    wound = d6.map(lambda w: 1 if w == 6 else ((d6 <= 3) if w >= 4 else 0))
    lethal = d6 <= 3
    per_attack = d6.map(lambda h: 0 if h <= 2 else (wound if h < 6 else lethal + wound))
    return summed(per_attack, 20, matmul).map(lambda k: min(k, 10))


def icepool_s3(matmul: bool) -> Die:
    """S3: failed saves, each D6 damage on the front Knight (excess lost), folded in turn."""
    failed = (d6 >= 3) & (d6 >= 5) & (d6 <= 3)  # hit 3+, wound 5+, 4++ failed

    def hit(state: tuple[int, int], damage: int) -> tuple[int, int]:
        slain, left = state
        if slain >= 3:
            return state
        return (slain + 1, 12) if damage >= left else (slain, left - damage)

    after = [Die([(0, 12)])]
    for _ in range(10):
        after.append(icepool.map(hit, after[-1], d6))
    return summed(failed, 10, matmul).map(lambda f: after[f].map(lambda s: s[0]))


def seconds(run: Callable[[], Any]) -> tuple[float, Any]:
    """Seconds one call took, and what it returned."""
    start = time.perf_counter()
    out = run()
    return time.perf_counter() - start, out


def project_mean(case: Any) -> float:
    return float(mathhammer.evaluate_exact(case)["models_destroyed"].mean)


def core_seconds(case: Any) -> float:
    """Seconds of the core's exact evaluation of the compiled Plan, best of a few calls."""
    core = prepare(case).core
    return min(seconds(lambda: _core.evaluate_exact(core, None))[0] for _ in range(5))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="runs of each, interleaved (default 5; medians shown)")
    parser.add_argument("--output", type=Path, help="also write the markdown table here")
    args = parser.parse_args()

    cases: list[tuple[str, Any, list[Callable[[], Die]]]] = [
        ("S1", scenario("S1"), [lambda m=m: icepool_s1(20, 10, 2, m) for m in (True, False)]),
        ("S2", scenario("S2"), [lambda m=m: icepool_s2(m) for m in (True, False)]),
        ("S3", scenario("S3"), [lambda m=m: icepool_s3(m) for m in (True, False)]),
    ]
    for models, wounds in TARGETS:
        for n in ATTACKS:
            ways = (True, False) if n <= 320 else (False,)
            cases.append(
                (
                    f"S1 profile, {n:,} attacks into {models} models W{wounds}",
                    scenario("S1", n, models, wounds),
                    [lambda n=n, m=m, models=models, wounds=wounds: icepool_s1(n, models, wounds, m) for m in ways],
                )
            )

    project: dict[str, list[float]] = {}
    core: dict[str, list[float]] = {}
    ice: dict[str, list[float]] = {}
    for round_ in range(args.rounds):
        for name, case, programs in cases:
            # Best of three, as for the core: a single call right after icepool's
            # work often pays for Python's garbage collection of icepool's objects.
            timed = [seconds(lambda case=case: project_mean(case)) for _ in range(3)]
            took, mean = min(timed)
            project.setdefault(name, []).append(took)
            core.setdefault(name, []).append(core_seconds(case))
            slow = "attacks" in name and int(name.split(",")[1].split()[0].replace(",", "")) > 500
            if slow and round_ > 0:
                continue
            best = float("inf")
            for program in programs:
                took, die = seconds(lambda program=program: program().mean())
                best = min(best, took)
                if abs(float(die) - mean) > TOLERANCE * max(1.0, abs(mean)):
                    raise SystemExit(f"{name}: icepool's mean {float(die)} is not the project's {mean}")
            ice.setdefault(name, []).append(best)

    lines = [
        f"Exact evaluator (API: mathhammer.evaluate_exact on a loaded Scenario, the Result built each call, best of"
        f" three; core: its Rust"
        f" evaluation of the compiled Plan) and icepool {icepool.__version__},"
        f" median of {args.rounds} interleaved runs (one icepool run past 500 attacks); equal means checked.",
        "",
        "| case | API ms | core ms | icepool ms | icepool ÷ API | icepool ÷ core |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, _, _ in cases:
        p, c, i = (statistics.median(t[name]) for t in (project, core, ice))
        lines.append(f"| {name} | {p * 1000:.2f} | {c * 1000:.3f} | {i * 1000:.1f} | {i / p:.1f} | {i / c:.0f} |")
    table = "\n".join(lines)
    print(table)
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(table + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
