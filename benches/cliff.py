"""Monte Carlo without cliffs, per-call overhead and two cores, as ratios in one run.

``benches/ratios.py`` measures the fast path on the three reference
scenarios; this script measures what lies around it, each part a ratio of
two timings taken side by side:

- **Die by die** (every die rolled, as scripted replays and batch hooks
  need) on S1 to S3, against the native literal-dice reference (``--src
  swar``), given the references' folder: each side's fastest run of at
  least seven interleaved rounds, whatever ``--rounds`` says.
- **No cliffs**: the S1 profile from 10 to 2,000 attacks (models of two
  attacks into 100 models T4 Sv3+ W2), trials per second as a ratio to 100
  attacks, and which path ran.
- **Rulesets**: The Ninth Age and the d12 skill-dice examples, trials per
  second and which path ran (the skill-dice Plans run die by die;
  ``docs/architecture.md`` says why).
- **Overhead**: a 1,000-trial call on a reused Scenario against numpy's
  1,000-trial call (given the references' folder); how many times ``auto``
  and ``compare`` compile a scenario; ``compare`` per cell against a warm
  exact call of each cell.
- **Two cores**: S1 on one thread and on two, with the process's CPU time,
  so a reader can tell whether the second core was free (CPU time ÷ wall
  time near 2) when the speed-up was measured.

Prints a markdown table (and writes it to ``--output``).

    python benches/cliff.py [--reference DIR] [--rounds 3] [--output target/cliff.md]
"""

from __future__ import annotations

import argparse
import importlib
import os
import resource
import statistics
import sys
import time
import tomllib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ratios import build_native, native_rate, reference_rate  # the sibling script, run from this folder

import mathhammer
from mathhammer import _core
from mathhammer.plan import Plan

# The modules, not the functions of the same names the package exports.
simulate_module = importlib.import_module("mathhammer.simulate")
compare_module = importlib.import_module("mathhammer.compare")
HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent / "examples"
SCENARIOS = ("S1", "S2", "S3")
ATTACKS = (10, 100, 230, 500, 1000, 2000)
RULESETS = ("t9a-greatswords.toml", "skilldice-vanguard.toml", "skilldice-fight.toml", "skilldice-warband.toml")


def load(name: str) -> Any:
    return mathhammer.load_scenario(HERE / "scenarios" / f"{name.lower()}.toml")


def timed(call: Callable[[], object]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def die_by_die(reference: Path | None, rounds: int, trials: int) -> list[str]:
    """Die-by-die trials per second on S1-S3, and their ratio to the literal-dice reference.

    Each round times the project and then the reference on each scenario, back to back. A shared
    machine only ever slows a run down, and by more than a tenth from one second to the next, so each
    side's fastest run of the rounds is the one compared: the speed it has when the machine lets it.
    """
    native = build_native(reference) if reference else None
    plans = {name: simulate_module.prepare(load(name)).core for name in SCENARIOS}
    rates: dict[tuple[str, str], list[float]] = {}
    for _ in range(rounds):
        for name, plan in plans.items():
            _core.simulate(plan, 1_000, 1, 1, None, True)
            seconds = timed(lambda plan=plan: _core.simulate(plan, trials, 1, 1, None, True))
            rates.setdefault((name, "project"), []).append(trials / seconds)
            if native is not None:
                rates.setdefault((name, "swar"), []).append(native_rate(native, name, "swar", 10 * trials))
    fastest = {key: max(values) for key, values in rates.items()}
    lines = [
        f"Die by die, one thread, {trials:,} trials a call, the fastest of {rounds} interleaved rounds:",
        "",
        "| | " + " | ".join(SCENARIOS) + " |",
        "| --- |" + " --- |" * len(SCENARIOS),
        "| die by die, M trials/s | " + " | ".join(f"{fastest[s, 'project'] / 1e6:.2f}" for s in SCENARIOS) + " |",
    ]
    if native is not None:
        shown = " | ".join(f"{fastest[s, 'project'] / fastest[s, 'swar']:.2f}" for s in SCENARIOS)
        lines.append(f"| die by die ÷ native dice | {shown} |")
    return lines


def attack_scenario(attacks: int, **weapon_fields: Any) -> Any:
    """The S1 profile: ``attacks`` attacks (models of two, or one model of one) into 100 models W2."""
    data = tomllib.loads((HERE / "scenarios" / "s1.toml").read_text())
    weapon = data["attacker"]["weapons"][0]
    weapon.update(count=attacks // 2, attacks="2") if attacks % 2 == 0 else weapon.update(count=attacks, attacks="1")
    weapon.update(weapon_fields)
    data["target"]["models"][0].update(count=100)
    return mathhammer.scenario_from_data(data)


def rate(scenario: Any, trials: int, threads: int = 1) -> tuple[float, bool]:
    """Trials per second of one run after a short warm-up, and whether it took the fast path."""
    mathhammer.simulate(scenario, trials=1_000, seed=1, threads=threads)
    result: Any = None

    def run() -> None:
        nonlocal result
        result = mathhammer.simulate(scenario, trials=trials, seed=1, threads=threads)

    seconds = timed(run)
    return trials / seconds, bool(result.fast_path)


def cliffs(rounds: int, trials: int) -> list[str]:
    """Trials per second from 10 to 2,000 attacks, as ratios to 100 attacks."""
    scenarios = {n: attack_scenario(n) for n in ATTACKS}
    rates: dict[int, list[float]] = {}
    fast: dict[int, bool] = {}
    for _ in range(rounds):
        for n, scenario in scenarios.items():
            r, fast[n] = rate(scenario, trials)
            rates.setdefault(n, []).append(r)
    median = {n: statistics.median(v) for n, v in rates.items()}
    return [
        f"No cliffs: the S1 profile into 100 models W2, one thread, {trials:,} trials, median of {rounds} rounds:",
        "",
        "| attacks | " + " | ".join(f"{n:,}" for n in ATTACKS) + " |",
        "| --- |" + " --- |" * len(ATTACKS),
        "| M trials/s | " + " | ".join(f"{median[n] / 1e6:.2f}" for n in ATTACKS) + " |",
        "| ÷ rate at 100 | " + " | ".join(f"{median[n] / median[100]:.2f}" for n in ATTACKS) + " |",
        "| path | " + " | ".join("fast" if fast[n] else "die by die" for n in ATTACKS) + " |",
        "",
        "The same with D3 damage, and with the unit's one-die re-rolls (die by die until they were drawn on"
        " the fast path: `docs/architecture.md`):",
        "",
        "| weapon | 100 attacks, M trials/s | path | 1,000 attacks, M trials/s | path | 1,000 ÷ 100 |",
        "| --- | ---: | --- | ---: | --- | ---: |",
        *(rerolled(label, fields, trials) for label, fields in ONE_DIE_REROLLS),
    ]


ONE_DIE_REROLLS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("D3 damage, no re-roll", {"damage": "D3"}),
    ("the unit's one hit re-roll", {"modifiers": {"reroll_one_hit": True}}),
    ("the unit's one damage re-roll, D3 damage", {"damage": "D3", "modifiers": {"reroll_one_damage": True}}),
)


def rerolled(label: str, fields: dict[str, Any], trials: int) -> str:
    """One row of that table: rates at 100 and 1,000 attacks, and their paths."""
    (low, fast_low), (high, fast_high) = (rate(attack_scenario(n, **fields), trials // 10) for n in (100, 1000))
    path = {True: "fast", False: "die by die"}
    return f"| {label} | {low / 1e6:.3f} | {path[fast_low]} | {high / 1e6:.3f} | {path[fast_high]} | {high / low:.2f} |"


def rulesets(trials: int) -> list[str]:
    """The other rulesets' examples: trials per second as run, the path taken, and die by die beside it."""
    lines = [
        f"Other rulesets, one thread, {trials:,} trials:",
        "",
        "| example | M trials/s | path | die by die, M trials/s | ÷ die by die |",
        "| --- | ---: | --- | ---: | ---: |",
    ]
    for name in RULESETS:
        scenario = mathhammer.load_scenario(EXAMPLES / name)
        r, fast = rate(scenario, trials)
        plan = simulate_module.prepare(scenario).core
        _core.simulate(plan, 1_000, 1, 1, None, True)
        slow = trials / timed(lambda plan=plan: _core.simulate(plan, trials, 1, 1, None, True))
        path = "fast" if fast else "die by die"
        lines.append(f"| {name} | {r / 1e6:.2f} | {path} | {slow / 1e6:.2f} | {r / slow:.2f} |")
    return lines


@contextmanager
def counted_compiles() -> Iterator[list[str]]:
    """Count ruleset compiles and core compiles while the block runs."""
    seen: list[str] = []
    ruleset, core = simulate_module.compile_scenario, Plan.compile

    def ruleset_compile(*args: Any, **kwargs: Any) -> Any:
        seen.append("ruleset")
        return ruleset(*args, **kwargs)

    def core_compile(self: Plan) -> Any:
        seen.append("core")
        return core(self)

    simulate_module.compile_scenario = ruleset_compile  # type: ignore[assignment]
    Plan.compile = core_compile  # type: ignore[method-assign]
    try:
        yield seen
    finally:
        simulate_module.compile_scenario = ruleset
        Plan.compile = core  # type: ignore[method-assign]


def overhead(reference: Path | None, rounds: int) -> list[str]:
    """Per-call costs: a short run, compiles per evaluation, compare per cell."""
    lines = ["Overhead, one thread, the fastest of the calls (numpy's as it reports them):", ""]
    lines += ["| measure | value | target |", "| --- | ---: | --- |"]
    s2 = load("S2")
    calls = [timed(lambda: mathhammer.simulate(s2, trials=1_000, seed=1, threads=1)) for _ in range(10 * rounds)]
    ours = min(calls)
    lines.append(f"| S2, 1,000-trial call on a reused Scenario, ms | {ours * 1e3:.2f} | |")
    if reference is not None:
        command = [sys.executable, str(reference / "mc_numpy.py"), "--scn", "S2", "--trials", "1000"]
        command += ["--runs", str(10 * rounds), "--bitgen", "SFC64"]
        numpy = 1_000 / reference_rate(command)
        lines.append(f"| numpy's 1,000-trial S2 call, ms | {numpy * 1e3:.2f} | |")
        lines.append(f"| ours ÷ numpy's | {ours / numpy:.2f} | ≤ 1 |")
    # A fight too large for the exact evaluator: auto declines, then simulates.
    data = tomllib.loads((EXAMPLES / "skilldice-fight.toml").read_text())
    for side in ("attacker", "target"):
        data[side].update(models=60, hp_per_model=6)
        data[side]["weapons"][0]["models"] = 60
    data["fight"]["rounds"] = 2
    fight = mathhammer.scenario_from_data(data)
    with counted_compiles() as seen:
        mathhammer.evaluate(fight, trials=2_000, seed=1, threads=1)
    lines.append(
        f"| compiles in one `auto` call (declined, then simulated): ruleset, core | "
        f"{seen.count('ruleset')}, {seen.count('core')} | ≤ 1 each |"
    )
    profiles = compare_module.read_profiles([EXAMPLES / "profiles.toml"])
    attackers, targets = profiles.select("attacker", None), profiles.select("target", None)
    cells = len(attackers) * len(targets)
    with counted_compiles() as seen:
        comparison = compare_module.compare(attackers, targets, seed=1, threads=1)
    lines.append(
        f"| compiles in one `compare` of {cells} cells: ruleset, core | "
        f"{seen.count('ruleset')}, {seen.count('core')} | ≤ {cells} each |"
    )
    exact = [(a, t) for a in attackers for t in targets if comparison.results[a.name, t.name].evaluator == "exact"]
    chosen = [a for a in attackers if all((a, t) in exact for t in targets)]
    scenarios = [compare_module.pairing(a, t) for a in chosen for t in targets]
    sweeps, singles = [], []
    for _ in range(5 * rounds):
        # Interleaved, and the fastest of each kept: a busy machine only adds.
        sweeps.append(timed(lambda: compare_module.compare(chosen, targets, seed=1, threads=1)))
        singles.append(sum(timed(lambda s=s: mathhammer.evaluate_exact(s)) for s in scenarios))
    lines.append(
        f"| `compare` per exact cell ÷ one warm exact call ({len(scenarios)} cells, fastest of"
        f" {5 * rounds}) | {min(sweeps) / min(singles):.2f} | ≤ 1.2 |"
    )
    return lines


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def two_cores(rounds: int, trials: int) -> list[str]:
    """S1 on one thread and on two: wall time, CPU time, and the speed-up.

    A shared machine's speed drifts by more than ten per cent from one second
    to the next, so each round times one thread and then two back to back, and
    the speed-up is the median of the rounds' own ratios. Work done on two
    threads beyond one thread's (one thread's CPU ÷ two threads' CPU) is the
    part of the speed-up the code, rather than the machine, decides.
    """
    s1 = load("S1")
    mathhammer.simulate(s1, trials=1_000, seed=1, threads=2)
    wall: dict[int, list[float]] = {1: [], 2: []}
    cpu: dict[int, list[float]] = {1: [], 2: []}
    for _ in range(rounds):
        for threads in (1, 2):
            before = cpu_seconds()
            wall[threads].append(timed(lambda t=threads: mathhammer.simulate(s1, trials=trials, seed=1, threads=t)))
            cpu[threads].append(cpu_seconds() - before)
    speed_up = statistics.median(a / b for a, b in zip(wall[1], wall[2], strict=True))
    work = statistics.median(a / b for a, b in zip(cpu[1], cpu[2], strict=True))
    busy = statistics.median(c / w for c, w in zip(cpu[2], wall[2], strict=True))
    load_1 = os.getloadavg()[0]
    return [
        f"Two cores: S1, {trials:,} trials a call, {rounds} rounds of one thread then two"
        f" ({os.cpu_count()} cores, load average {load_1:.1f}):",
        "",
        "| threads | wall s | CPU s | CPU ÷ wall |",
        "| --- | ---: | ---: | ---: |",
        *(
            f"| {t} | {statistics.median(wall[t]):.3f} | {statistics.median(cpu[t]):.3f} |"
            f" {statistics.median(c / w for c, w in zip(cpu[t], wall[t], strict=True)):.2f} |"
            for t in (1, 2)
        ),
        "",
        f"Two threads ÷ one, median of the rounds' ratios: {speed_up:.2f}x (target ≥ 1.8x with the"
        f" second core free; CPU ÷ wall of {busy:.2f} on two threads says how much of two cores the"
        f" run got). One thread's CPU ÷ two threads' CPU: {work:.2f} (1.00 means no work is added by"
        " splitting the run).",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", type=Path, help="the reference implementations' folder")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--trials", type=int, default=1_000_000, help="trials a die-by-die call")
    parser.add_argument("--output", type=Path, help="also write the markdown table here")
    args = parser.parse_args()
    sections = [
        die_by_die(args.reference, max(args.rounds, 7), args.trials),
        cliffs(args.rounds, 200_000),
        rulesets(200_000),
        overhead(args.reference, args.rounds),
        two_cores(max(args.rounds, 9), 300_000_000),
    ]
    table = "\n\n".join("\n".join(section) for section in sections)
    print(table)
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(table + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
