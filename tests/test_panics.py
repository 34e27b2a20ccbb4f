"""No panic in the Rust core reaches Python as a panic, or kills the interpreter.

``_core._panic_for_tests`` panics on purpose; it exists for these tests only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import mathhammer
from mathhammer import InternalError, MathhammerError, _core
from mathhammer.face import cli
from mathhammer.plan import AttackPool, Attacks, Group, Plan, Save, Target, Test

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def hooked_plan() -> _core.CompiledPlan:
    plan = Plan(counters=["attacks"], target=Target(groups=[Group("A", models=5, wounds=2, save=3)], order=[0]))
    pool = AttackPool(
        name="Gun",
        attacks=[Attacks(models=10, dice="2")],
        attacks_counter="attacks",
        steps=[Test(name="hit", target=3, natural_fail=1, critical=6)],
        save=Save(ap=0),
        damage="1",
    )

    def unchanged(arrays: dict[str, Any]) -> dict[str, Any]:
        return {}

    pool.batch_hook = plan.add_hook(unchanged)
    plan.sequences.append(pool)
    return plan.compile()


def test_a_panic_on_the_calling_thread_is_an_internal_error() -> None:
    with pytest.raises(InternalError, match=r"panicked: a test panicked on purpose at .*please report it") as info:
        _core._panic_for_tests("caller")
    assert isinstance(info.value, MathhammerError)
    assert mathhammer.parse_dice("D6").max == 6  # the interpreter and the core carry on


def test_a_panic_on_a_worker_thread_is_an_internal_error() -> None:
    with pytest.raises(InternalError, match="a worker thread panicked: a test hook panicked on purpose"):
        _core._panic_for_tests("worker", hooked_plan())
    assert _core.simulate(hooked_plan(), 10_000, 1)[0].sum() == 10_000


def test_the_command_line_reports_an_internal_error_in_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli, "load_scenario", lambda *a, **k: _core._panic_for_tests("caller"))
    code = cli.main(["simulate", str(EXAMPLES / "boltguns.toml")])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1
    assert err.startswith("mathhammer: internal error: the core panicked: a test panicked on purpose")


def test_the_command_line_catches_a_panic_that_escaped_the_guard(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli, "load_scenario", lambda *a, **k: _core._panic_for_tests("unguarded"))
    code = cli.main(["simulate", str(EXAMPLES / "boltguns.toml")])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1 and "Traceback" not in err
    assert "the Rust core panicked: a test panicked on purpose" in err
