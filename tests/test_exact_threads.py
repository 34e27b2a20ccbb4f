"""The threads the exact evaluator runs on, kept between calls.

A small evaluation runs on the caller's thread; one past a millisecond or two
starts again on a parked worker thread while the caller polls for Ctrl-C
(``rust/core/src/exact/worker.rs``). These pin what keeping threads could
break: callers on several threads at once each get their own answer, and a
child made by ``fork`` (which has none of its parent's threads) still answers
rather than wait on a thread that is not there.
"""

from __future__ import annotations

import multiprocessing
import tomllib
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

import mathhammer
from mathhammer import _core
from mathhammer.simulate import prepare

ROOT = Path(__file__).resolve().parents[1]


def _cores() -> list[_core.CompiledPlan]:
    """Compiled Plans of a small example scenario, answered on the caller's thread, and of one that takes
    about 20 ms, answered on a worker: 40 boltguns with Sustained Hits and Devastating Wounds."""
    data = tomllib.loads((ROOT / "examples" / "boltguns.toml").read_text())
    data["attacker"]["weapons"][0].update(count=40, keywords=["Devastating Wounds", "Sustained Hits 1"])
    small = mathhammer.load_scenario(ROOT / "examples" / "boltguns.toml")
    return [prepare(small).core, prepare(mathhammer.scenario_from_data(data)).core]


def _workers() -> int:
    """The evaluator's worker threads in this process, by the name the core gives them (Linux shows it)."""
    tasks = Path("/proc/self/task")
    return sum((task / "comm").read_text().startswith("mathhammer-exac") for task in tasks.iterdir())


def _answer(core: _core.CompiledPlan) -> list[np.ndarray]:
    return [np.asarray(x) for x in _core.evaluate_exact(core, None)]


def _same(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
    return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def test_callers_on_many_threads_at_once_each_get_their_own_answer() -> None:
    cores = _cores()
    expected = [_answer(c) for c in cores]
    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(lambda i: _answer(cores[i % 2]), range(24)))
    for i, got in enumerate(answers):
        assert _same(got, expected[i % 2]), f"call {i}"


def _child(queue: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    queue.put([x.tolist() for x in _answer(_cores()[1])])


def test_a_forked_child_evaluates_without_its_parents_threads() -> None:
    expected = _answer(_cores()[1])
    if Path("/proc/self/task").exists():  # where the threads can be seen (Linux)
        assert _workers() >= 1, "the evaluation left no worker parked in this process"
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    with warnings.catch_warnings():
        # Python 3.12 warns that forking a process with threads may deadlock:
        # the evaluator's parked threads are what this test forks beside.
        warnings.simplefilter("ignore", DeprecationWarning)
        child = context.Process(target=_child, args=(queue,))
        child.start()
    child.join(timeout=60)
    if child.is_alive():
        child.kill()
        child.join()
        raise AssertionError("the forked child's exact evaluation did not finish in 60 s")
    assert child.exitcode == 0
    got = [np.asarray(x) for x in queue.get(timeout=5)]
    assert _same(got, expected)


def _simulated(core: _core.CompiledPlan, die_by_die: bool) -> list[np.ndarray]:
    return [np.asarray(h) for h in _core.simulate(core, 20_000, 3, 1, None, die_by_die)]


def test_memory_made_in_an_exact_evaluation_is_freed_outside_one_and_the_other_way() -> None:
    # The extension takes memory from mimalloc while an exact evaluation runs
    # and from the system allocator otherwise (rust/py/src/allocator.rs), and
    # each block must go back to the allocator that made it. Plans compiled,
    # evaluated, simulated and dropped on threads at once mix the two: a
    # Plan made outside an evaluation is dropped during another's, and the
    # other way round.
    expected_exact = [_answer(c) for c in _cores()]
    expected_simulated = [_simulated(c, d) for c in _cores() for d in (False, True)]

    def work(i: int) -> bool:
        cores = _cores()  # compiled on this thread, while others evaluate or not
        if i % 3 == 0:
            return _same(_answer(cores[i % 2]), expected_exact[i % 2])
        d = i % 3 == 2
        return _same(_simulated(cores[i % 2], d), expected_simulated[2 * (i % 2) + d])

    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(work, range(36)))
    assert all(results), [i for i, ok in enumerate(results) if not ok]
