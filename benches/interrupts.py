"""How quickly Ctrl-C stops the command line, at each moment of simulate, compare and plot.

Each case starts the command in a child process that writes a readiness marker
(a file) once it is where the case wants it: at start-up, in a keyword's hook,
in a batch hook, in the exact evaluator, in the Monte Carlo trials. Then it
sends SIGINT and times how long the process takes to exit. The command must
exit 130 with one line on standard error and no traceback.

``tests/test_interrupts.py`` runs every case and allows 2 s; run this file to
see each latency against the 0.5 s goal::

    .venv/bin/python benches/interrupts.py

A marker written from a shim around the core's entry point (``_core.simulate``,
``_core.evaluate_exact``) or from a test plugin's hook says the phase has
begun; the signal is sent :data:`SETTLE` seconds later, so it lands inside it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOAL = 0.5
"""Seconds from SIGINT to exit the command should take."""
ALLOWED = 2.0
"""Seconds the test allows (a loaded machine is slower than the goal)."""
SETTLE = 0.3
"""Seconds between the marker and the signal."""
NEVER_ENDS = str(10**11)
"""Trials no Monte Carlo run finishes before the signal."""

BOLTGUNS = (ROOT / "examples" / "boltguns.toml").read_text()

SLOW_EXACT = (
    'ruleset = "wh40k"\n'
    + "".join(
        textwrap.dedent(
            f"""
        [[attacker.weapons]]
        name = "W{i}"
        type = "ranged"
        count = 3
        attacks = "D6"
        skill = "3+"
        strength = 5
        ap = -1
        damage = "D3"
        keywords = ["Devastating Wounds", "Sustained Hits 1"]
        """
        )
        for i in range(3)
    )
    + textwrap.dedent(
        """
    [target]
    name = "Mob"
    toughness = 4

    [[target.models]]
    name = "M0"
    count = 10
    wounds = 3
    save = "3+"

    [[target.models]]
    name = "M1"
    count = 10
    wounds = 3
    save = "4+"
    """
    )
)
"""A Plan the exact evaluator works on for seconds, until its work limit declines it (three pools of several dice
into two groups; more dice would be declined before it starts, too many outcomes to tabulate)."""

# The child: shims that write the marker, then the command line itself.
DRIVER = """
import sys, time
marker, where, *argv = sys.argv[1:]

def ready():
    with open(marker, "w") as f:
        f.write(where)

from importlib.metadata import entry_points

from mathhammer import _core, hookimpl, registry
from mathhammer.face import cli
from mathhammer.keywords import KeywordSpec
from mathhammer.registry import Registry

if where == "exact":
    real_exact = _core.evaluate_exact
    def evaluate_exact(plan, progress=None):
        ready()
        return real_exact(plan, progress)
    _core.evaluate_exact = evaluate_exact
if where == "monte_carlo":
    real_simulate = _core.simulate
    def simulate(plan, trials, seed, threads=0, progress=None, die_by_die=False):
        def watched(done, total):
            ready()
            if progress is not None:
                progress(done, total)
        return real_simulate(plan, trials, seed, threads, watched, die_by_die)
    _core.simulate = simulate

def slow_apply(rules):  # a keyword's hook that takes its time
    ready()
    while True:
        time.sleep(0.01)

def slow_batch(arrays):  # a batch hook that hangs
    ready()
    while True:
        time.sleep(0.01)

def batch_apply(rules):
    rules.add_batch_hook(slow_batch)

class Slow:
    @hookimpl
    def mathhammer_register_keywords(self, register):
        register(KeywordSpec("wh40k", "Slow", slow_apply))
        register(KeywordSpec("wh40k", "Slow Batch", batch_apply))

installed = [(ep.name, ep.load()) for ep in entry_points(group="mathhammer")]
registry._default = Registry.from_plugins([*installed, ("slow", Slow())])
sys.exit(cli.main(argv))
"""

# A script named like the command, as the installed one is: it imports the
# command line, and an import hook sends SIGINT in the middle of that, when
# numpy (which mathhammer imports after its start-up handler) starts loading.
STARTUP = """
import os, signal, sys, time
marker = sys.argv[1]

class InterruptDuringImport:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name == "numpy":
            sys.meta_path.remove(InterruptDuringImport)
            with open(marker, "w") as f:
                f.write(repr(time.time()))
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.1)
        return None

sys.meta_path.insert(0, InterruptDuringImport)
from mathhammer.face.cli import main
sys.exit(main(sys.argv[2:]))
"""


@dataclass(frozen=True)
class Case:
    """One moment to interrupt: the command, the files it reads, and where its marker is written."""

    name: str
    argv: tuple[str, ...]
    where: str
    files: tuple[tuple[str, str], ...] = ()
    lines: int = 1
    """Lines on standard error: a batch hook interrupted says so first, naming the hook, then stops."""
    twice: bool = False
    """Send a second SIGINT once the first is reported, and time from it (a hung hook stops only then)."""

    def ended_well(self, outcome: Outcome) -> bool:
        """Exit 130, no traceback, and the expected lines, each saying the command was interrupted."""
        lines = outcome.stderr.strip().splitlines()
        return (
            outcome.returncode == 130
            and "Traceback" not in outcome.stderr
            and "panicked" not in outcome.stderr
            and len(lines) == self.lines
            and all(line.startswith("mathhammer: interrupted") for line in lines)
        )


def _with_keyword(text: str, keyword: str) -> str:
    return text.replace('damage = "1"', f'damage = "1"\nkeywords = ["{keyword}"]')


CASES = (
    Case("simulate: start-up", ("simulate", "boltguns.toml"), "startup", (("boltguns.toml", BOLTGUNS),)),
    Case(
        "simulate: a keyword's hook",
        ("simulate", "slow.toml"),
        "hook",
        (("slow.toml", _with_keyword(BOLTGUNS, "Slow")),),
    ),
    Case(
        "simulate: a batch hook",
        ("simulate", "batch.toml", "--trials", NEVER_ENDS),
        "hook",
        (("batch.toml", _with_keyword(BOLTGUNS, "Slow Batch")),),
        lines=2,
        twice=True,
    ),
    Case(
        "simulate: the exact evaluator",
        ("simulate", "exact.toml", "--trials", NEVER_ENDS),
        "exact",
        (("exact.toml", SLOW_EXACT),),
    ),
    Case(
        "simulate: Monte Carlo",
        ("simulate", "boltguns.toml", "--monte-carlo", "--trials", NEVER_ENDS),
        "monte_carlo",
        (("boltguns.toml", BOLTGUNS),),
    ),
    Case(
        "compare: the exact phase",
        ("compare", "exact.toml", "boltguns.toml", "--trials", NEVER_ENDS),
        "exact",
        (("exact.toml", SLOW_EXACT), ("boltguns.toml", BOLTGUNS)),
    ),
    Case(
        "compare: Monte Carlo",
        ("compare", "boltguns.toml", "--monte-carlo", "--trials", NEVER_ENDS),
        "monte_carlo",
        (("boltguns.toml", BOLTGUNS),),
    ),
    Case(
        "plot: the exact evaluator",
        ("plot", "exact.toml", "-o", "chart.svg", "--trials", NEVER_ENDS),
        "exact",
        (("exact.toml", SLOW_EXACT),),
    ),
    Case(
        "plot: Monte Carlo",
        ("plot", "boltguns.toml", "-o", "chart.svg", "--monte-carlo", "--trials", NEVER_ENDS),
        "monte_carlo",
        (("boltguns.toml", BOLTGUNS),),
    ),
)


@dataclass(frozen=True)
class Outcome:
    """How the interrupted command ended."""

    returncode: int
    stderr: str
    seconds: float
    """From SIGINT to exit."""


def interrupt(case: Case, *, settle: float = SETTLE, ready_within: float = 60.0) -> Outcome:
    """Run ``case``, send SIGINT ``settle`` seconds after its marker appears, and time the exit."""
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        for name, text in case.files:
            (directory / name).write_text(text)
        marker = directory / "ready"
        if case.where == "startup":
            script = directory / "mathhammer"  # the name the command's script has
            script.write_text(STARTUP)
            argv = [sys.executable, str(script), str(marker), *case.argv]
        else:
            driver = directory / "driver.py"
            driver.write_text(DRIVER)
            argv = [sys.executable, str(driver), str(marker), case.where, *case.argv]
        env = {**os.environ, "COLUMNS": "100"}
        env.pop("MATHHAMMER_LOAD_PLUGINS", None)
        process = subprocess.Popen(
            argv, cwd=directory, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        try:
            if case.where == "startup":  # the script interrupts itself, and says when
                _, err = process.communicate(timeout=30)
                return Outcome(process.returncode, err, time.time() - float(marker.read_text()))
            else:
                deadline = time.monotonic() + ready_within
                while not marker.exists():
                    if process.poll() is not None or time.monotonic() > deadline:
                        _, err = process.communicate(timeout=10)
                        raise RuntimeError(f"{case.name}: no readiness marker; exit {process.returncode}: {err}")
                    time.sleep(0.01)
                time.sleep(settle)
                start = time.monotonic()
                process.send_signal(signal.SIGINT)
                if case.twice:
                    assert process.stderr is not None
                    first = process.stderr.readline()  # the hook interrupted, named
                    start = time.monotonic()
                    process.send_signal(signal.SIGINT)
                    _, err = process.communicate(timeout=30)
                    return Outcome(process.returncode, first + err, time.monotonic() - start)
            _, err = process.communicate(timeout=30)
            return Outcome(process.returncode, err, time.monotonic() - start)
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate()


def main() -> int:
    """Print each case's latency against :data:`GOAL`; exit 1 if any misses how it must end."""
    failed = 0
    print(f"{'case':<32} {'exit':>4} {'seconds':>8}  goal {GOAL} s")
    for case in CASES:
        outcome = interrupt(case)
        clean = case.ended_well(outcome)
        verdict = "ok" if clean and outcome.seconds <= GOAL else ("slow" if clean else "WRONG")
        failed += not clean
        print(f"{case.name:<32} {outcome.returncode:>4} {outcome.seconds:>8.3f}  {verdict}")
        if not clean:
            print(textwrap.indent(outcome.stderr, "    "))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
