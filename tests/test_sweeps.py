"""Sweeps: the description, cells and their keys and seeds, the Parquet dataset, resuming, and Dask.

The sweeps here cross the example libraries (40k profiles), reached through
the installed plugins as a user reaches them: a Dask worker is another
process, which evaluates with the plugins installed there.
"""

from __future__ import annotations

import dataclasses
import os
import re
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import mathhammer
from mathhammer import PluginMismatchError, Registry, ScenarioError, _core
from mathhammer.compare import pairing
from mathhammer.registry import load_registry
from mathhammer.sweeps import TASK_CHUNKS, Sweep, cell_seed, load_sweep, plugin_versions, read_sweep, sweep
from mathhammer.testing import run_cli

pa = pytest.importorskip("pyarrow")
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
LIBRARIES = [str(EXAMPLES / "profiles.toml"), str(EXAMPLES / "more-profiles.toml")]


def describe(tmp_path: Path, body: str, *, name: str = "sweep.toml") -> Path:
    """A sweep description over the example libraries, with ``body`` after the libraries line."""
    path = tmp_path / name
    libraries = ", ".join(f'"{p}"' for p in LIBRARIES)
    path.write_text(f"libraries = [{libraries}]\n{body}", encoding="utf-8")
    return path


SMALL = """
attackers = ["bolt-rifles", "lascannons", "flamers"]
targets = ["guardsmen", "rhino"]
trials = 20_000
seed = 7
[contexts.open]
[contexts.cover]
in_cover = true
[versions.11e]
edition = "11e"
[versions.10e]
edition = "10e"
"""


def content(directory: Path) -> list[dict[str, Any]]:
    """Every row of a dataset, in key order: what two runs of one sweep must agree on."""
    rows: list[dict[str, Any]] = read_sweep(directory).sort_by("key").to_pylist()
    return rows


# -------------------------------------------------------------------------
# The description
# -------------------------------------------------------------------------


def test_the_example_sweep_crosses_ten_attackers_ten_targets_two_contexts_two_versions() -> None:
    plan = load_sweep(EXAMPLES / "sweep.toml")
    assert (len(plan.attackers), len(plan.targets), len(plan.contexts), len(plan.versions)) == (10, 10, 2, 2)
    assert plan.contexts["cover"] == {"in_cover": True} and plan.versions["10e"] == {"edition": "10e"}


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ('evaluator = "fast"', "evaluator", "is 'fast'; expected 'auto', 'exact' or 'monte_carlo'"),
        ("trials = 0", "trials", "is 0; it must be a whole number from 1"),
        ("seed = -1", "seed", "is -1; it must be a whole number from 0 to 2**64-1"),
        ("colour = 1", "colour", "is not a sweep key; the keys are attackers, contexts"),
        ('attackers = "lascannons"', "attackers", "must be a list of names"),
        ("contexts = 3", "contexts", "must be tables named after each entry: [contexts.NAME]"),
        ("[contexts]\nopen = 1", "contexts.open", "must be a table ([contexts.open]), not 1"),
    ],
)
def test_bad_descriptions_are_refused_naming_the_field(tmp_path: Path, body: str, field: str, message: str) -> None:
    path = describe(tmp_path, body + "\n")
    with pytest.raises(ScenarioError, match=re.escape(message)) as e:
        load_sweep(path)
    assert (e.value.source, e.value.field) == (str(path), field)


def test_an_unknown_profile_is_refused_listing_those_read(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="no target named 'titan'; the targets read are: guardsmen"):
        load_sweep(describe(tmp_path, 'targets = ["titan"]\n'))


# -------------------------------------------------------------------------
# Cells: keys, seeds and rows
# -------------------------------------------------------------------------


def test_a_cells_seed_derives_from_its_key_never_from_its_position(installed: Registry, tmp_path: Path) -> None:
    plan = load_sweep(describe(tmp_path, SMALL))
    versions = plugin_versions(installed, plan.rulesets)
    cells = plan.cells(versions)
    assert len(cells) == 3 * 2 * 2 * 2 == len({c.key for c in cells})
    reordered = dataclasses.replace(plan, attackers=plan.attackers[::-1], targets=plan.targets[::-1])
    assert {c.key: c.seed for c in reordered.cells(versions)} == {c.key: c.seed for c in cells}
    assert all(c.seed == cell_seed(7, c.key) for c in cells)
    assert len({c.seed for c in cells}) == len(cells)
    # Another plugin version is another key: the row would not be the same.
    other = {**versions, "plugin wh40k": "mathhammer-wh40k 99"}
    assert not {c.key for c in plan.cells(other)} & {c.key for c in cells}


def test_every_row_is_the_cells_own_evaluation(installed: Registry, tmp_path: Path) -> None:
    path = describe(tmp_path, SMALL.replace("trials = 20_000", 'trials = 20_000\nevaluator = "auto"'))
    summary = sweep(path, tmp_path / "out", registry=installed)
    assert (summary.cells, summary.written, summary.skipped, summary.failed) == (24, 24, 0, 0)
    rows = {(r["attacker"], r["target"], r["context"], r["version"]): r for r in content(tmp_path / "out")}
    assert len(rows) == 24
    plan = load_sweep(path)
    by_name = {p.name: p for p in (*plan.attackers, *plan.targets)}
    for (attacker, target, context, version), r in rows.items():
        # The same pairing written out by hand: the context's keys over the attacker's own, the version's as rules.
        a = by_name[attacker]
        own = dict(a.scenario)
        own["context"] = {**own.get("context", {}), **plan.contexts[context]}
        own["rules"] = dict(plan.versions[version])
        scenario = pairing(dataclasses.replace(a, scenario=own), by_name[target], registry=installed)
        if r["evaluator"] == "exact":
            expected = mathhammer.evaluate_exact(scenario, registry=installed)
        else:  # Monte Carlo at the cell's own seed: the same numbers, bit for bit
            expected = mathhammer.simulate(scenario, trials=20_000, seed=r["seed"], registry=installed)
        assert r["models_destroyed_pmf"] == expected["models_destroyed"].pmf.tolist()
        assert r["damage_pmf"] == expected["damage"].pmf.tolist()
        assert r["models_destroyed"] == expected["models_destroyed"].mean
        assert r["p_unit_destroyed"] == expected.p_unit_destroyed
        assert r["error"] is None
        assert f'"Heavy": "{version}"' in r["rule_versions"] or attacker == "flamers"  # the others are Heavy
    # Cover changes what bolt rifles do to Guardsmen (a better save), and the editions are recorded apart.
    assert (
        rows["bolt-rifles", "guardsmen", "cover", "11e"]["damage"]
        < rows["bolt-rifles", "guardsmen", "open", "11e"]["damage"]
    )
    assert {r["evaluator"] for r in rows.values()} == {"exact"}


def test_a_cell_that_raises_is_recorded_with_its_error_and_the_sweep_goes_on(
    installed: Registry, tmp_path: Path
) -> None:
    body = SMALL.replace('[versions.10e]\nedition = "10e"', '[versions.broken]\nedition = "9e"')
    summary = sweep(describe(tmp_path, body), tmp_path / "out", registry=installed)
    assert (summary.written, summary.failed) == (24, 12)
    rows = content(tmp_path / "out")
    broken = [r for r in rows if r["version"] == "broken"]
    assert len(broken) == 12 and all("edition" in r["error"] and "'9e'" in r["error"] for r in broken)
    assert all(r["models_destroyed"] is None for r in broken)
    assert all(r["error"] is None and r["models_destroyed"] is not None for r in rows if r["version"] == "11e")


# -------------------------------------------------------------------------
# The dataset: complete part files, resuming, seeds
# -------------------------------------------------------------------------


def test_an_interrupted_sweep_keeps_its_rows_and_resumes_where_it_stopped(installed: Registry, tmp_path: Path) -> None:
    path = describe(tmp_path, SMALL.replace("trials = 20_000", 'trials = 20_000\nevaluator = "monte_carlo"'))
    seen: list[int] = []

    def stop_after_five(done: int, total: int) -> None:
        seen.append(done)
        if done == 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        sweep(path, tmp_path / "out", registry=installed, progress=stop_after_five)
    assert seen == [1, 2, 3, 4, 5]
    files = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert files and all(name.startswith("part-") and name.endswith(".parquet") for name in files)
    assert len(read_sweep(tmp_path / "out")) == 5
    resumed = sweep(path, tmp_path / "out", registry=installed)
    assert (resumed.skipped, resumed.written) == (5, 19)
    whole = sweep(path, tmp_path / "whole", registry=installed)
    assert whole.written == 24
    assert content(tmp_path / "out") == content(tmp_path / "whole")


def test_a_dataset_of_another_seed_is_refused(installed: Registry, tmp_path: Path) -> None:
    sweep(describe(tmp_path, SMALL), tmp_path / "out", registry=installed)
    other = describe(tmp_path, SMALL.replace("seed = 7", "seed = 8"), name="other.toml")
    with pytest.raises(ScenarioError, match="holds cells of a sweep with seed 7, and this sweep's seed is 8") as e:
        sweep(other, tmp_path / "out", registry=installed)
    assert e.value.field == "seed"


def test_the_command_line_sweeps_and_then_skips_what_is_there(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = describe(tmp_path, SMALL)
    assert run_cli(["sweep", str(path), "-o", str(tmp_path / "out")]) == 0
    assert capsys.readouterr().out.startswith(f"24 cells: wrote 24, to {tmp_path / 'out'} in ")
    assert run_cli(["sweep", str(path), "-o", str(tmp_path / "out"), "--workers", "1"]) == 0
    assert capsys.readouterr().out.startswith("24 cells: wrote 0; 24 were there already, to ")
    assert run_cli(["sweep", str(tmp_path / "missing.toml"), "-o", str(tmp_path / "out")]) == 2
    assert "missing.toml" in capsys.readouterr().err


@pytest.mark.parametrize(("done", "said"), [(3, "after 3 of 24 cells"), (0, "before a cell finished")])
def test_ctrl_c_on_the_command_line_says_how_far_the_sweep_got_and_how_to_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, done: int, said: str
) -> None:
    def interrupted(*args: Any, progress: Any, **kwargs: Any) -> None:
        if done:
            progress(done, 24)
        raise KeyboardInterrupt

    monkeypatch.setattr("mathhammer.sweeps.sweep", interrupted)
    assert run_cli(["sweep", str(describe(tmp_path, SMALL)), "-o", str(tmp_path / "out")]) == 130
    err = capsys.readouterr().err
    assert err.startswith(f"mathhammer: interrupted {said}; the rows finished are in ")
    assert err.rstrip().endswith("run the same command again to resume") and err.count("\n") == 1


def test_a_large_monte_carlo_cell_runs_in_parts_that_merge_into_one_run(installed: Registry, tmp_path: Path) -> None:
    trials = 5 * TASK_CHUNKS * _core.CHUNK_TRIALS + 3
    body = f'attackers = ["heavy-bolters"]\ntargets = ["intercessors"]\nevaluator = "monte_carlo"\ntrials = {trials}\n'
    path = describe(tmp_path, body)
    summary = sweep(path, tmp_path / "out", registry=installed, workers=2)
    assert summary.written == 1
    [r] = content(tmp_path / "out")
    plan = load_sweep(path)
    scenario = pairing(plan.attackers[0], plan.targets[0], registry=installed)
    local = mathhammer.simulate(scenario, trials=trials, seed=r["seed"], registry=installed)
    assert r["damage_pmf"] == local["damage"].pmf.tolist()
    assert r["models_destroyed_pmf"] == local["models_destroyed"].pmf.tolist()


# -------------------------------------------------------------------------
# On Dask: a LocalCluster of two worker processes on 127.0.0.1
# -------------------------------------------------------------------------

distributed = pytest.importorskip("distributed")


def local_cluster() -> Any:
    """Two worker processes of one thread each, on 127.0.0.1 alone.

    Even without its dashboard the scheduler serves HTTP (health checks), by
    default on port 8787 of every interface: here on a free port of 127.0.0.1,
    so two clusters (or another program on 8787) never collide.
    """
    return distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        dashboard_address=None,
        host="127.0.0.1",
        processes=True,
        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
    )


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with local_cluster() as cluster, distributed.Client(cluster) as c:
        yield c


def test_a_sweep_on_dask_writes_what_the_local_sweep_writes(installed: Registry, client: Any, tmp_path: Path) -> None:
    body = """
attackers = ["bolt-rifles", "heavy-bolters", "plasma", "lascannons", "meltaguns", "boyz", "custodians",
             "autocannons", "storm-bolters", "flamers"]
evaluator = "monte_carlo"
trials = 20_000
seed = 11
[contexts.open]
[contexts.cover]
in_cover = true
"""
    path = describe(tmp_path, body)
    local = sweep(path, tmp_path / "local", registry=installed)
    remote = sweep(path, tmp_path / "dask", client=client, registry=installed)
    assert local.written == remote.written == 10 * 10 * 2
    assert content(tmp_path / "dask") == content(tmp_path / "local")


def test_a_1e8_trial_cell_split_across_workers_equals_the_local_run_bit_for_bit(
    installed: Registry, client: Any, tmp_path: Path
) -> None:
    # Heavy bolters into Intercessors draw whole trials at once: about a second per 10^8 trials on one core.
    body = (
        'attackers = ["heavy-bolters"]\ntargets = ["intercessors"]\nevaluator = "monte_carlo"\ntrials = 100_000_000\n'
    )
    path = describe(tmp_path, body)
    summary = sweep(path, tmp_path / "dask", client=client, registry=installed)
    assert summary.written == 1
    [r] = content(tmp_path / "dask")
    plan = load_sweep(path)
    scenario = pairing(plan.attackers[0], plan.targets[0], registry=installed)
    local = mathhammer.simulate(scenario, trials=100_000_000, seed=r["seed"], registry=installed)
    assert r["damage_pmf"] == local["damage"].pmf.tolist()
    assert r["models_destroyed_pmf"] == local["models_destroyed"].pmf.tolist()
    assert (r["damage"], r["damage_se"]) == (local["damage"].mean, local["damage"].se)
    # And it is right: 12 shots hit on 4+ (Sustained Hits 1: a 6 is two hits), wound on 4+, Sv3+ at AP-1 fails
    # on 1-3, 2 damage each into 2-wound models: a model per failed save, 10 at most (checked exactly).
    exact = mathhammer.evaluate_exact(scenario, registry=installed)
    assert abs(r["models_destroyed"] - exact["models_destroyed"].mean) < 5 * r["models_destroyed_se"]


def test_workers_with_other_plugin_versions_are_refused_by_name(client: Any, tmp_path: Path) -> None:
    here = load_registry()
    here.plugins = [
        dataclasses.replace(info, version="0.0.0.dev1") if info.name == "wh40k" else info for info in here.plugins
    ]
    with pytest.raises(PluginMismatchError, match=r"worker tcp://127\.0\.0\.1:\d+ has plugin wh40k mathhammer-wh40k"):
        sweep(describe(tmp_path, SMALL), tmp_path / "out", client=client, registry=here)
    assert not list((tmp_path / "out").glob("part-*"))


def test_killing_a_worker_mid_sweep_still_completes_it(installed: Registry, client: Any, tmp_path: Path) -> None:
    body = """
attackers = ["bolt-rifles", "heavy-bolters", "plasma", "boyz", "custodians", "storm-bolters"]
evaluator = "monte_carlo"
trials = 100_000
seed = 5
"""
    path = describe(tmp_path, body)
    local = sweep(path, tmp_path / "local", registry=installed)
    pids = client.run(os.getpid)
    killed: list[tuple[int, int]] = []

    def kill_once(done: int, total: int) -> None:
        # At the first row at which a worker holds tasks (running, waiting, or finished but not yet fetched),
        # that worker dies at once, as on a power cut.
        if killed:
            return
        processing, held = client.processing(), client.has_what()
        tasks = {address: len(processing.get(address, ())) + len(held.get(address, ())) for address in pids}
        address = max(tasks, key=lambda a: tasks[a])
        if tasks[address]:
            killed.append((pids[address], tasks[address]))
            os.kill(pids[address], signal.SIGKILL)

    remote = sweep(path, tmp_path / "dask", client=client, registry=installed, progress=kill_once)
    client.wait_for_workers(2, timeout=60)  # its nanny starts another, for the tests after this one
    [(victim, tasks)] = killed
    assert tasks > 0 and victim not in client.run(os.getpid).values()
    assert remote.written == local.written == 60 and remote.failed == 0
    assert content(tmp_path / "dask") == content(tmp_path / "local")


def test_a_sweep_object_runs_like_its_file(installed: Registry, tmp_path: Path) -> None:
    plan = load_sweep(describe(tmp_path, SMALL))
    assert isinstance(plan, Sweep)
    sweep(plan, tmp_path / "a", registry=installed)
    sweep(describe(tmp_path, SMALL, name="again.toml"), tmp_path / "b", registry=installed)
    assert content(tmp_path / "a") == content(tmp_path / "b")
