"""Sweep speed: cells per second here and on a Dask cluster of 1 and 2 workers, in one run.

The sweep is 200 Monte Carlo cells of 1,000,000 trials each: the ten
attackers of ``examples/profiles.toml`` and ``examples/more-profiles.toml``
against their ten targets, in the open and in cover. It runs

- here, on a thread pool of ``--workers`` tasks (one core thread each);
- on a ``LocalCluster`` of 1 worker process, then of 2, one thread each,
  on 127.0.0.1.

Both clusters are started, and their workers load their plugins, before
the clock starts: the times are the sweeps' alone. The three runs go round
after round (``--rounds``), so a busy machine slows them alike, and the
table shows medians. Every run writes a fresh dataset, and its rows must
equal the first local run's (else the script fails), so the times compare
like for like. Prints a markdown table with the ratio of each time to the
local run's (and writes it to ``--output``).

    python benches/sweep.py [--trials 1000000] [--rounds 3] [--output target/sweep.md]

``make bench`` runs it after the other benchmarks. With the cells spread
evenly, a cluster of n workers of one core each should take about the
local time on one core divided by n, plus the scheduling cost per task
(a few milliseconds, against tasks sized to last 100 ms or more).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import mathhammer
from mathhammer.sweeps import load_sweep, worker_plugins

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent / "examples"


def description(folder: Path, trials: int) -> Path:
    """The benchmark's sweep description, written into ``folder``."""
    path = folder / "bench-sweep.toml"
    libraries = ", ".join(f'"{EXAMPLES / name}"' for name in ("profiles.toml", "more-profiles.toml"))
    path.write_text(
        f"libraries = [{libraries}]\n"
        f'evaluator = "monte_carlo"\ntrials = {trials}\nseed = 1\n'
        "[contexts.open]\n[contexts.cover]\nin_cover = true\n",
        encoding="utf-8",
    )
    return path


def rows(directory: Path) -> list[dict[str, Any]]:
    table: list[dict[str, Any]] = mathhammer.read_sweep(directory).sort_by("key").to_pylist()
    return table


def timed(path: Path, out: Path, **kwargs: Any) -> tuple[float, int]:
    """Seconds one sweep took, and its cells."""
    start = time.perf_counter()
    summary = mathhammer.sweep(path, out, **kwargs)
    seconds = time.perf_counter() - start
    if summary.failed or summary.written != summary.cells:
        raise SystemExit(f"the sweep wrote {summary.written} of {summary.cells} cells, {summary.failed} failed")
    return seconds, summary.cells


def cluster(workers: int) -> tuple[Any, Any]:
    """A LocalCluster of ``workers`` one-thread workers on 127.0.0.1 and its client."""
    import distributed

    started = distributed.LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        dashboard_address=None,
        host="127.0.0.1",
        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
    )
    return started, distributed.Client(started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=1_000_000, help="trials per cell (default 1,000,000)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the three runs (default 3; medians shown)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="tasks at once in the local run")
    parser.add_argument("--output", type=Path, help="also write the table here")
    args = parser.parse_args()
    runs = (f"local, {args.workers} tasks at once", "1 worker", "2 workers")
    times: dict[str, list[float]] = {name: [] for name in runs}
    clusters = {runs[1]: cluster(1), runs[2]: cluster(2)}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            path = description(folder, args.trials)
            rulesets = load_sweep(path).rulesets
            for _, client in clusters.values():
                client.run(worker_plugins, rulesets)  # each worker imports mathhammer and its plugins
            cells = 0
            for n in range(args.rounds):
                # Round after round, so that a busy machine slows every run alike.
                for name in runs:
                    out = folder / f"{n}-{name.split(',')[0].replace(' ', '-')}"
                    client = clusters[name][1] if name in clusters else None
                    options = {"client": client} if client is not None else {"workers": args.workers}
                    seconds, cells = timed(path, out, **options)
                    times[name].append(seconds)
                    if rows(out) != rows(folder / "0-local"):
                        raise SystemExit(f"the rows of {name} differ from the local run's")
    finally:
        for started, client in clusters.values():
            client.close()
            started.close()
    median = {name: statistics.median(values) for name, values in times.items()}
    lines = [
        f"Sweep of {cells} Monte Carlo cells of {args.trials:,} trials on {os.cpu_count()} cores,"
        f" median of {args.rounds} interleaved rounds",
        "",
        "| run | seconds | cells/s | time / local |",
        "| --- | ---: | ---: | ---: |",
    ]
    for name in runs:
        seconds = median[name]
        lines.append(f"| {name} | {seconds:.2f} | {cells / seconds:.1f} | {seconds / median[runs[0]]:.2f} |")
    table = "\n".join(lines)
    print(table)
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(table + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
