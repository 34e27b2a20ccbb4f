"""Comparing attackers against targets: profile libraries, scenario files, the matrix, and its errors."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Literal

import pytest

import mathhammer
from mathhammer import DeclinedError, Registry, ScenarioError
from mathhammer.compare import Comparison, Pairings, compare, pairing, read_profiles

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
LIBRARY = EXAMPLES / "profiles.toml"


def test_the_library_holds_a_dozen_classic_profiles() -> None:
    profiles = read_profiles([LIBRARY])
    assert len(profiles.attackers) + len(profiles.targets) >= 12
    assert "lascannons" in profiles.attackers and "terminators" in profiles.targets


def test_a_library_cell_is_the_scenario_file_of_that_pairing(installed: Registry) -> None:
    # examples/boltguns.toml is 10 boltguns into 10 Intercessors; the same pairing
    # from the library must give the same exact distribution.
    profiles = read_profiles([LIBRARY, EXAMPLES / "boltguns.toml"])
    comparison = compare(
        profiles.select("attacker", ["boltguns"]), profiles.select("target", ["intercessors"]), registry=installed
    )
    direct = mathhammer.evaluate_exact(mathhammer.load_scenario(EXAMPLES / "boltguns.toml", registry=installed))
    cell = comparison.results["boltguns", "intercessors"]
    assert cell.evaluator == "exact"
    assert cell["models_destroyed"].mean == pytest.approx(direct["models_destroyed"].mean, abs=1e-12)


def test_every_pairing_of_the_library_is_evaluated_in_order() -> None:
    profiles = read_profiles([LIBRARY])
    comparison = compare(list(profiles.attackers.values()), list(profiles.targets.values()))
    assert comparison.attackers == list(profiles.attackers) and comparison.targets == list(profiles.targets)
    matrix = comparison.matrix("models_destroyed")
    assert matrix.shape == (len(profiles.attackers), len(profiles.targets))
    # Lascannons kill Rhinos more often than bolt rifles do; nothing kills Guardsmen like Custodians.
    lascannons, bolt_rifles = comparison.attackers.index("lascannons"), comparison.attackers.index("bolt-rifles")
    rhino = comparison.targets.index("rhino")
    wipes = comparison.matrix("p_unit_destroyed")
    assert wipes[lascannons, rhino] > 0.3 > wipes[bolt_rifles, rhino]


def test_an_attackers_own_scenario_keys_apply_to_its_pairings() -> None:
    # The meltaguns fire at half range (Melta 2: D6+2 damage); the library's [context] says not.
    profiles = read_profiles([LIBRARY])
    assert profiles.attackers["meltaguns"].scenario["context"] == {"half_range": True}
    assert profiles.attackers["bolt-rifles"].scenario["context"] == {"half_range": False}
    far = dataclasses.replace(profiles.attackers["meltaguns"], name="far", scenario={"context": {"half_range": False}})
    comparison = compare([profiles.attackers["meltaguns"], far], profiles.select("target", ["rhino"]))
    near, away = comparison.results["meltaguns", "rhino"], comparison.results["far", "rhino"]
    # Each of 5 shots: hits on 3+, wounds on 4+ (S9 against T9), and Sv 3+ at AP-4 always fails.
    assert near["failed_saves"].mean == pytest.approx(5 * 2 / 3 * 1 / 2) == away["failed_saves"].mean
    assert near["damage"].mean > away["damage"].mean + 1  # D6+2 against D6, less what the Rhino's 10 W absorb


def test_a_grid_of_pairings_loads_each_equal_pairing_once() -> None:
    profiles = read_profiles([LIBRARY])
    attackers = profiles.select("attacker", ["bolt-rifles", "lascannons"])
    targets = profiles.select("target", ["rhino", "terminators"])
    load = Pairings()
    grid = {(a.name, t.name): load(a, t) for a in attackers for t in targets}
    # The very scenarios pairing() loads one at a time, and the same again from another grid.
    assert all(grid[a.name, t.name] is pairing(a, t) for a in attackers for t in targets)
    assert Pairings()(attackers[1], targets[0]) is grid["lascannons", "rhino"]
    # A profile with other data, even under the same name, is another pairing.
    lascannons = attackers[1]
    two = dataclasses.replace(
        lascannons, table={**lascannons.table, "weapons": [{**lascannons.table["weapons"][0], "count": 2}]}
    )
    fewer = load(two, targets[0])
    assert fewer is not grid["lascannons", "rhino"]
    assert fewer.attacker.weapons[0].count == 2


def test_monte_carlo_cells_are_seeded_one_by_one() -> None:
    profiles = read_profiles([LIBRARY])
    pick = profiles.select("attacker", ["bolt-rifles", "lascannons"]), profiles.select("target", ["rhino"])
    first = compare(*pick, evaluator="monte_carlo", trials=2000, seed=9)
    again = compare(*pick, evaluator="monte_carlo", trials=2000, seed=9)
    assert [r.seed for r in first.results.values()] == [9, 10]
    assert (first.matrix("damage") == again.matrix("damage")).all()


def test_exact_declines_name_the_pairing(tmp_path: Path) -> None:
    text = LIBRARY.read_text()
    for i in range(3):  # four allocation groups: beyond the exact evaluator
        text += f'\n[[targets.rhino.models]]\nname = "Extra {i}"\nwounds = {i + 2}\nsave = "{i + 3}+"\n'
    library = tmp_path / "library.toml"
    library.write_text(text)
    profiles = read_profiles([library])
    with pytest.raises(DeclinedError, match=r"lascannons against rhino: .*more than 3 allocation groups"):
        compare(profiles.select("attacker", ["lascannons"]), profiles.select("target", ["rhino"]), evaluator="exact")


def test_a_bad_field_in_a_library_names_its_place_in_the_library(installed: Registry, tmp_path: Path) -> None:
    library = tmp_path / "library.toml"
    library.write_text(LIBRARY.read_text().replace('name = "Lascannon"\ncount = 4', 'name = "Lascannon"\ncount = 0'))
    profiles = read_profiles([library])
    with pytest.raises(ScenarioError) as info:
        compare(profiles.select("attacker", ["lascannons"]), profiles.select("target", ["rhino"]), registry=installed)
    assert info.value.source == str(library)
    assert info.value.field == "attackers.lascannons.weapons[0].count"


def test_unknown_names_list_the_known_ones() -> None:
    profiles = read_profiles([LIBRARY])
    with pytest.raises(ScenarioError, match="no target named 'titan'; the targets read are: guardsmen, intercessors"):
        profiles.select("target", ["titan"])


def test_one_name_twice_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match=r"second attacker named 'bolt-rifles'.*rename one"):
        read_profiles([LIBRARY, LIBRARY])


def test_a_file_with_neither_profiles_nor_a_scenario(tmp_path: Path) -> None:
    empty = tmp_path / "empty.toml"
    empty.write_text('ruleset = "wh40k"\n')
    with pytest.raises(ScenarioError, match=r"empty\.toml: holds no \[attacker\] or \[target\]"):
        read_profiles([empty])


def test_a_comparison_as_data_frame_and_json() -> None:
    profiles = read_profiles([LIBRARY])
    comparison = compare(
        profiles.select("attacker", ["lascannons"]), profiles.select("target", ["rhino", "leman-russ"])
    )
    frame = comparison.to_pandas()
    assert list(frame.index) == [("lascannons", "rhino"), ("lascannons", "leman-russ")]
    assert frame.loc[("lascannons", "rhino"), "evaluator"] == "exact"
    d = comparison.to_dict()
    assert [(c["attacker"], c["target"]) for c in d["cells"]] == [("lascannons", "rhino"), ("lascannons", "leman-russ")]
    assert d["cells"][0]["result"]["evaluator"] == "exact"


def test_jupyter_shows_a_table_per_metric() -> None:
    profiles = read_profiles([LIBRARY])
    comparison = compare(
        profiles.select("attacker", ["lascannons"]), profiles.select("target", ["rhino", "leman-russ"])
    )
    page = comparison._repr_html_()
    assert page.count("<table>") == 3 and "<th>rhino</th><th>leman-russ</th>" in page
    assert "<p><b>P(unit destroyed)</b></p>" in page and "<th style='text-align:left'>lascannons</th>" in page


def test_plot_draws_one_heatmap_per_metric() -> None:
    profiles = read_profiles([LIBRARY])
    comparison = compare(profiles.select("attacker", ["lascannons"]), profiles.select("target", ["rhino"]))
    figure = comparison.plot(["damage"])
    assert [ax.get_title() for ax in figure.axes if ax.get_title()] == ["Expected damage"]


def test_a_bad_thread_count_is_named() -> None:
    profiles = read_profiles([LIBRARY])
    with pytest.raises(ScenarioError, match="threads is -1; it must be 0 "):
        compare(profiles.select("attacker", ["plasma"]), profiles.select("target", ["rhino"]), threads=-1)


@pytest.mark.parametrize(
    ("p", "shown"), [(0.0, "0.0%"), (4e-5, "<0.1%"), (0.5, "50.0%"), (0.99985, ">99.9%"), (1.0, "100.0%")]
)
def test_a_possibility_is_never_rounded_away(p: float, shown: str) -> None:
    """P(unit destroyed) prints 0.0% and 100.0% only when exact; a rare outcome reads <0.1%."""
    from mathhammer.compare import METRICS

    assert METRICS["p_unit_destroyed"][1].format(p) == shown


def test_an_exact_evaluation_off_the_main_thread_is_cancelled_through_its_progress_callback(
    installed: Registry,
) -> None:
    # compare evaluates cells on worker threads, which Ctrl-C does not reach:
    # it cancels them by raising from their progress callback. Three pools of
    # several dice into two groups keep the exact evaluator busy for seconds.
    import importlib.util
    import sys
    import threading
    import tomllib

    path = Path(__file__).resolve().parents[1] / "benches" / "interrupts.py"
    spec = importlib.util.spec_from_file_location("interrupt_cases_for_compare", path)
    assert spec is not None and spec.loader is not None
    cases = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = cases
    spec.loader.exec_module(cases)
    registry = installed
    scenario = mathhammer.scenario_from_data(tomllib.loads(cases.SLOW_EXACT), registry=registry)
    calls: list[threading.Thread] = []

    def cancel(done: int, total: int) -> None:
        calls.append(threading.current_thread())
        raise LookupError("no longer wanted")

    outcome: list[BaseException] = []

    def work() -> None:
        try:
            mathhammer.evaluate_exact(scenario, registry=registry, progress=cancel)
        except BaseException as exc:
            outcome.append(exc)

    worker = threading.Thread(target=work)
    worker.start()
    worker.join(timeout=5)
    assert not worker.is_alive()
    assert calls and isinstance(outcome[0], LookupError)


def test_the_documented_example_of_compare_runs_as_written() -> None:
    import doctest

    import mathhammer.compare

    failed, tried = doctest.testmod(mathhammer.compare, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert tried >= 5 and failed == 0


def test_each_result_of_a_comparison_is_named_after_its_row_and_column() -> None:
    profiles = read_profiles([EXAMPLES / "profiles.toml"])
    comparison = compare(profiles.select("attacker", ["lascannons"]), profiles.select("target", ["rhino"]))
    result = comparison.results["lascannons", "rhino"]
    assert (result.attacker, result.target) == ("lascannons", "rhino")
    assert result.to_dict()["attacker"] == "lascannons"


def test_a_scenario_file_s_attacker_is_named_by_its_name_field(tmp_path: Path) -> None:
    text = (EXAMPLES / "boltguns.toml").read_text()
    named = text.replace("[[attacker.weapons]]", '[attacker]\nname = "Tac squad"\n\n[[attacker.weapons]]', 1)
    (tmp_path / "named.toml").write_text(named.replace('name = "Intercessor Squad"', 'name = "Other squad"'))
    profiles = read_profiles([tmp_path / "named.toml", EXAMPLES / "boltguns.toml"])
    assert list(profiles.attackers) == ["Tac squad", "boltguns"]  # without a name, the file's


class Stopped(Exception):
    """What the caller's poll raises to stop a comparison."""


@pytest.mark.parametrize("evaluator", ["exact", "monte_carlo"])
@pytest.mark.parametrize("stops", [True, False])
def test_poll_is_called_in_either_phase_and_its_exception_stops_the_comparison(
    installed: Registry, evaluator: Literal["exact", "monte_carlo"], stops: bool
) -> None:
    profiles = read_profiles([LIBRARY])
    attackers, targets = profiles.select("attacker", ["bolt-rifles"]), profiles.select("target", ["intercessors"])
    calls = 0

    def poll() -> None:
        nonlocal calls
        calls += 1
        if stops:
            raise Stopped

    def run(poll: Callable[[], object] | None = None) -> Comparison:
        return compare(attackers, targets, evaluator=evaluator, trials=10_000, seed=1, registry=installed, poll=poll)

    if stops:
        with pytest.raises(Stopped):
            run(poll=poll)
        assert calls == 1
    else:
        # A poll that returns changes nothing.
        assert (run(poll=poll).matrix("damage") == run().matrix("damage")).all()
        assert calls > 0
