"""Monte Carlo speed as ratios, measured side by side in one run.

Runs the three reference scenarios (``benches/scenarios/s1.toml`` to ``s3``)
through the public API on one thread, and, given the reference
implementations' folder, numpy's vectorised Monte Carlo and the native
count-sampling and literal-dice programs beside them, round after round, so
that a noisy machine slows all of them alike. Then the attack-count sweep:
the S1 profile with 10 to 2,000 attacks into 100 one-wound models. Prints a
markdown table (and writes it to ``--output``).

Each scenario runs twice: as written (one weapon, one group of models), and
with its per-group and per-weapon tallies doing work: the weapons split into
two profiles (the second adding Assault, which does nothing unless the
attacker advanced) and one target model made a CHARACTER group of its own
(allocated last, as its models are alike it changes nothing). Every total
keeps its distribution exactly, so the same references measure both.

    python benches/ratios.py --reference DIR [--trials 10000000] [--rounds 3]

``make bench REFERENCE=DIR`` runs it after the other benchmarks.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

import mathhammer

HERE = Path(__file__).resolve().parent
SCENARIOS = ("S1", "S2", "S3")
SWEEP = (10, 100, 230, 500, 1000, 2000)


def project_rate(scenario: Any, trials: int) -> float:
    """Trials per second of one run on one thread, after a short warm-up."""
    mathhammer.simulate(scenario, trials=1_000, seed=1, threads=1)
    start = time.perf_counter()
    mathhammer.simulate(scenario, trials=trials, seed=1, threads=1)
    return trials / (time.perf_counter() - start)


def reference_rate(command: list[str]) -> float:
    """Trials per second a reference program prints (its JSON lines, best run)."""
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    rates = [json.loads(line)["trials_per_s"] for line in out.splitlines() if line.startswith("{")]
    if not rates:
        raise SystemExit(f"no timing from {' '.join(command)}")
    return max(rates)


def native_rate(native: Path, scenario: str, src: str, trials: int) -> float:
    """Trials per second of the native reference's ``src`` implementation of ``scenario``, one thread, one run."""
    command = [str(native), "scenario", "--scn", scenario, "--src", src, "--threads", "1", "--runs", "1"]
    return reference_rate([*command, "--trials", str(trials)])


def build_native(reference: Path) -> Path:
    """Build the native references (into this checkout's target folder) and return the binary."""
    target = HERE.parent / "target" / "bench-reference"
    env = {**os.environ, "CARGO_TARGET_DIR": str(target)}
    manifest = reference / "native" / "Cargo.toml"
    subprocess.run(["cargo", "build", "--quiet", "--release", "--manifest-path", str(manifest)], check=True, env=env)
    return target / "release" / "bench"


def sweep_scenario(attacks: int) -> Any:
    """The S1 profile with ``attacks`` attacks into 100 one-wound models."""
    data = tomllib.loads((HERE / "scenarios" / "s1.toml").read_text())
    data["attacker"]["weapons"][0].update(count=attacks, attacks="1")
    data["target"]["models"][0].update(count=100, wounds=1)
    return mathhammer.scenario_from_data(data)


def tallied(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with two weapon profiles and two target groups, every total's distribution unchanged."""
    data = {**data, "attacker": dict(data["attacker"]), "target": dict(data["target"])}
    [weapon] = data["attacker"]["weapons"]
    half = weapon["count"] // 2
    second = {**weapon, "count": weapon["count"] - half, "name": f"{weapon['name']} (assault)"}
    second["keywords"] = [*weapon.get("keywords", []), "Assault"]
    data["attacker"]["weapons"] = [{**weapon, "count": half}, second]
    [model] = data["target"]["models"]
    leader = {**model, "count": 1, "name": f"{model['name']} Sergeant", "character": True}
    data["target"]["models"] = [{**model, "count": model["count"] - 1}, leader]
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", type=Path, help="the reference implementations' folder")
    parser.add_argument("--trials", type=int, default=10_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--output", type=Path, help="also write the markdown table here")
    args = parser.parse_args()

    native = build_native(args.reference) if args.reference else None
    scenarios = {name: mathhammer.load_scenario(HERE / "scenarios" / f"{name.lower()}.toml") for name in SCENARIOS}
    with_tallies = {
        name: mathhammer.scenario_from_data(
            tallied(tomllib.loads((HERE / "scenarios" / f"{name.lower()}.toml").read_text()))
        )
        for name in SCENARIOS
    }
    rates: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.rounds):
        for name, scenario in scenarios.items():
            rates.setdefault((name, "project"), []).append(project_rate(scenario, args.trials))
            rates.setdefault((name, "tallied"), []).append(project_rate(with_tallies[name], args.trials))
            if args.reference is None or native is None:
                continue
            numpy = [sys.executable, str(args.reference / "mc_numpy.py"), "--scn", name, "--runs", "1"]
            numpy += ["--trials", str(args.trials), "--bitgen", "SFC64"]
            rates.setdefault((name, "numpy"), []).append(reference_rate(numpy))
            for src in ("counts", "swar"):
                rates.setdefault((name, src), []).append(native_rate(native, name, src, args.trials))
    median = {key: statistics.median(values) for key, values in rates.items()}

    lines = [
        f"One thread, {args.trials:,} trials a call, median of {args.rounds} interleaved rounds.",
        "",
        "| | " + " | ".join(SCENARIOS) + " |",
        "| --- |" + " --- |" * len(SCENARIOS),
        "| project, M trials/s | " + " | ".join(f"{median[s, 'project'] / 1e6:.1f}" for s in SCENARIOS) + " |",
        "| with tallies, M trials/s | " + " | ".join(f"{median[s, 'tallied'] / 1e6:.1f}" for s in SCENARIOS) + " |",
    ]
    for src, label in (("numpy", "numpy vectorised"), ("counts", "native count sampling"), ("swar", "native dice")):
        if (SCENARIOS[0], src) in median:
            ratios = " | ".join(f"{median[s, 'project'] / median[s, src]:.2f}" for s in SCENARIOS)
            lines.append(f"| project ÷ {label} | {ratios} |")
            ratios = " | ".join(f"{median[s, 'tallied'] / median[s, src]:.2f}" for s in SCENARIOS)
            lines.append(f"| with tallies ÷ {label} | {ratios} |")
    sweep = {n: project_rate(sweep_scenario(n), 200_000) for n in SWEEP}
    lines += [
        "",
        "Attack-count sweep (S1 profile into 100 one-wound models, one thread, 200,000 trials):",
        "",
        "| attacks | " + " | ".join(f"{n:,}" for n in SWEEP) + " |",
        "| --- |" + " --- |" * len(SWEEP),
        "| M trials/s | " + " | ".join(f"{sweep[n] / 1e6:.2f}" for n in SWEEP) + " |",
        "| ÷ rate at 100 | " + " | ".join(f"{sweep[n] / sweep[100]:.2f}" for n in SWEEP) + " |",
    ]
    table = "\n".join(lines)
    print(table)
    if args.output:
        args.output.write_text(table + "\n")


if __name__ == "__main__":
    main()
