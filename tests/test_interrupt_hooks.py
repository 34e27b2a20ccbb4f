"""Ctrl-C during a batch hook that never returns: the first says which hook, the second quits at once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

# A batch hook that writes a readiness marker, then sleeps "forever" (a sleep
# in C, which no exception raised inside the hook can stop).
SCRIPT = """
import pathlib, sys, time
from mathhammer import _core
from mathhammer.plan import AttackPool, Attacks, Group, Plan, Save, Target, Test

def sleeps_forever(arrays):
    pathlib.Path(sys.argv[1]).write_text("ready")
    time.sleep(10**6)
    return {}

sleeps_forever.__module__ = "mathhammer_sleepy.hooks"
plan = Plan(counters=["attacks"], target=Target(groups=[Group("A", models=5, wounds=2, save=3)], order=[0]))
pool = AttackPool(name="Gun", attacks=[Attacks(models=10, dice="2")], attacks_counter="attacks",
                  steps=[Test(name="hit", target=3, natural_fail=1, critical=6)], save=Save(ap=0), damage="1")
pool.batch_hook = plan.add_hook(sleeps_forever)
plan.sequences.append(pool)
_core.simulate(plan.compile(), 10**6, 1, 2)
"""


def wait_for(path: Path, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.02)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a process is POSIX")
def test_a_hung_hook_is_named_by_the_first_ctrl_c_and_the_second_quits(tmp_path: Path) -> None:
    marker = tmp_path / "ready"
    with subprocess.Popen(
        [sys.executable, "-c", SCRIPT, str(marker)],
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    ) as proc:
        assert proc.stderr is not None
        try:
            wait_for(marker, 30)
            proc.send_signal(signal.SIGINT)
            first = proc.stderr.readline()
            assert 'interrupted while batch hook "sleeps_forever" of plugin "mathhammer_sleepy" was running' in first
            assert "press Ctrl-C again to quit at once" in first
            assert proc.poll() is None, "the hook still sleeps, so the run waits for it"
            start = time.monotonic()
            proc.send_signal(signal.SIGINT)
            code = proc.wait(timeout=2)
            assert time.monotonic() - start < 2
        finally:
            proc.kill()
        rest = proc.stderr.read()
    assert code == 130
    hook = 'batch hook "sleeps_forever" of plugin "mathhammer_sleepy"'
    assert rest.splitlines() == [f"mathhammer: interrupted again; quitting without waiting for {hook}"]
