"""Charts: distributions of one Result or several, heatmaps, and the files they are saved as."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pytest

from mathhammer import MathhammerError, Result
from mathhammer.plotting import (
    MAX_OVERLAID,
    chart_title,
    distribution_figure,
    heatmap_figure,
    legend_names,
    save,
    small_multiples_figure,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def result(pmf: list[float]) -> Result:
    return Result.from_pmfs(
        [np.array(pmf), np.array(pmf)],
        ["damage", "models_destroyed"],
        {"damage": "Damage dealt", "models_destroyed": "Models destroyed"},
        ruleset="toy",
        evaluator="exact",
        trials=0,
        seed=None,
        target_models=len(pmf) - 1,
    )


def test_a_comparison_puts_each_result_side_by_side_with_a_legend() -> None:
    figure = distribution_figure({"lascannon": result([0.5, 0.5]), "meltagun": result([0.25, 0.5, 0.25])})
    exactly = figure.axes[0]
    legend = exactly.get_legend()
    assert legend is not None
    assert [t.get_text() for t in legend.get_texts()] == ["lascannon", "meltagun"]
    assert len(exactly.patches) == 2 * 3  # k = 0, 1, 2 for each


def test_long_thin_tails_are_cut_from_the_chart() -> None:
    figure = distribution_figure({"x": result([0.9, 0.0999, 0.0001])})
    assert len(figure.axes[0].patches) == 2  # k = 2 has P(>=2) = 0.0001, below the chart's tail


def test_a_heatmap_labels_rows_columns_and_cells() -> None:
    panels = [
        ("Expected damage", np.array([[1.0, 2.5]]), "{:.2f}"),
        ("P(unit destroyed)", np.array([[0, 0.5]]), "{:.0%}"),
    ]
    figure = heatmap_figure(panels, ["Lascannon"], ["Rhino", "Knight"])
    damage, wiped = figure.axes[:2]  # then the colour bars
    assert damage.get_title() == "Expected damage" and wiped.get_title() == "P(unit destroyed)"
    assert [t.get_text() for t in damage.get_xticklabels()] == ["Rhino", "Knight"]
    assert [t.get_text() for t in damage.texts] == ["1.00", "2.50"]
    assert [t.get_text() for t in wiped.texts] == ["0%", "50%"]


@pytest.mark.parametrize(("name", "start"), [("out.png", b"\x89PNG"), ("out.svg", b"<?xml")])
def test_png_and_svg(tmp_path: Path, name: str, start: bytes) -> None:
    path = save(result([0.5, 0.5]).plot(), tmp_path / name)
    assert path.read_bytes().startswith(start)


def test_html_is_one_self_contained_page(tmp_path: Path) -> None:
    r = result([0.5, 0.5])
    page = save(r.plot(), tmp_path / "out.html", title="Boltguns", extra_html=r._repr_html_()).read_text()
    assert page.startswith("<!DOCTYPE html>") and "<h1>Boltguns</h1>" in page
    assert "<svg" in page and "<?xml" not in page and "mathhammer-result" in page
    assert "<script" not in page and "src=" not in page and "<link" not in page


def test_an_unknown_suffix_says_which_to_use(tmp_path: Path) -> None:
    with pytest.raises(MathhammerError, match=r"out\.jpg: cannot write a \.jpg file; name it \.png, \.svg or \.html"):
        save(result([1.0]).plot(), tmp_path / "out.jpg")


def test_many_series_put_the_legend_beside_the_charts_and_save_without_a_warning(tmp_path: Path) -> None:
    """Above eight series the legend moves off the P(exactly k) chart, and the crowded figure saves
    cleanly (warnings are errors in these tests)."""
    many = {f"attacker {i}": result([0.1 * (i % 9), 1 - 0.1 * (i % 9)]) for i in range(MAX_OVERLAID)}
    figure = distribution_figure(many)
    assert figure.axes[0].get_legend() is None
    assert figure.axes[1].get_legend() is not None
    save(figure, tmp_path / "many.png")


def test_more_series_than_one_chart_can_show_are_refused_naming_small_multiples() -> None:
    many = {f"attacker {i}": result([0.5, 0.5]) for i in range(MAX_OVERLAID + 1)}
    with pytest.raises(MathhammerError, match=r"13 results are too many to overlay on one chart.*small multiples"):
        distribution_figure(many)
    few = distribution_figure({"a": result([0.5, 0.5]), "b": result([0.2, 0.8])})
    assert few.axes[0].get_legend() is not None and few.axes[1].get_legend() is None


def suptitle(figure: Figure) -> str:
    """The figure's title, its wrapping undone."""
    return " ".join(figure.get_suptitle().split())


def named(attacker: str, target: str, pmf: list[float], trials: int = 0) -> Result:
    r = result(pmf)
    if trials:
        r = dataclasses.replace(r, evaluator="monte_carlo", trials=trials, seed=1)
    return dataclasses.replace(r, attacker=attacker, target=target)


def test_every_chart_names_the_attacker_the_target_the_evaluator_and_the_trials() -> None:
    one = named("Lascannons", "Rhino", [0.5, 0.5], trials=200_000)
    assert suptitle(one.plot()) == "Lascannons vs Rhino · Monte Carlo, 200,000 trials"
    both = {"a": one, "b": named("Meltaguns", "Rhino", [0.25, 0.75])}
    title = suptitle(distribution_figure(both))
    assert title == "Lascannons, Meltaguns vs Rhino · 1 exact, 1 by Monte Carlo (200,000 trials)"
    assert chart_title([named(f"a{i}", "t", [1.0]) for i in range(5)]) == "5 attackers vs t · exact"
    heat = heatmap_figure([("Expected damage", np.array([[1.0]]), "{:.2f}")], ["Lascannons"], ["Rhino"], title=title)
    assert suptitle(heat) == title
    assert heat.axes[0].get_xlabel() == "target" and heat.axes[0].get_ylabel() == "attacker"


def test_legends_name_the_scenarios_and_add_the_file_only_to_tell_two_alike_apart() -> None:
    into_rhino = [named("Lascannons", "Rhino", [1.0]), named("Meltaguns", "Rhino", [1.0])]
    assert legend_names(into_rhino, ["a.toml", "b.toml"]) == ["Lascannons", "Meltaguns"]
    from_one = [named("Lascannons", "Rhino", [1.0]), named("Lascannons", "Knight", [1.0])]
    assert legend_names(from_one) == ["Rhino", "Knight"]
    mixed = [named("Lascannons", "Rhino", [1.0]), named("Meltaguns", "Knight", [1.0])]
    assert legend_names(mixed) == ["Lascannons vs Rhino", "Meltaguns vs Knight"]
    twins = [named("Lascannons", "Rhino", [1.0]), named("Lascannons", "Rhino", [0.5, 0.5])]
    assert legend_names(twins, ["a.toml", "b.toml"]) == ["Lascannons (a.toml)", "Lascannons (b.toml)"]


IMPORTED = [
    "Impulsor (ranged, Bellicatus Missile Array - Icarus)",
    "Impulsor (ranged, Bellicatus Missile Array - Krak)",
    "Primaris Captain + Assault Intercessor Squad",
]


def test_long_names_keep_their_ends_and_never_read_alike() -> None:
    # Imported profiles differ at the end; cutting the end would give two rows one label.
    figure = heatmap_figure([("Expected damage", np.ones((3, 1)), "{:.2f}")], IMPORTED, ["Rhino"])
    rows = [t.get_text() for t in figure.axes[0].get_yticklabels()]
    assert len(set(rows)) == 3
    assert rows[0].endswith("Icarus)") and rows[1].endswith("Krak)") and "…" in rows[0]
    assert rows[0].startswith("Impulsor (ranged")
    assert all(len(label) <= 40 for label in rows)


def test_names_alike_but_for_their_middle_are_shown_whole() -> None:
    middle = ["Squad " + "A" * 30 + " with " + "B" * 30 + " tail", "Squad " + "A" * 30 + " wiht " + "B" * 30 + " tail"]
    results = {(a, "Rhino"): named(a, "Rhino", [0.5, 0.5]) for a in middle}
    figure = small_multiples_figure(results)
    assert [figure.axes[i].get_ylabel() for i in range(2)] == middle


def test_small_multiples_draw_one_panel_per_pairing_attackers_down_targets_across() -> None:
    attackers, targets = [f"attacker {i}" for i in range(3)], [f"target {j}" for j in range(2)]
    results = {(a, t): named(a, t, [0.5, 0.25, 0.25]) for a in attackers for t in targets}
    figure = small_multiples_figure(results)
    assert len(figure.axes) == 6
    assert all(len(ax.patches) == 3 for ax in figure.axes)  # k = 0, 1, 2 in each panel
    assert [figure.axes[j].get_title() for j in range(2)] == targets  # the first row names the columns
    assert [figure.axes[2 * i].get_ylabel() for i in range(3)] == attackers  # the first column names the rows
    assert figure.axes[0].texts[0].get_text() == "mean 0.75"
    assert (
        suptitle(figure) == "Models destroyed: P(exactly k) · attacker 0, attacker 1, attacker 2 vs "
        "target 0, target 1 · exact"
    )


def test_more_pairings_than_small_multiples_can_show_ask_for_a_filter() -> None:
    results = {(f"a{i}", f"t{j}"): named(f"a{i}", f"t{j}", [1.0]) for i in range(11) for j in range(6)}
    with pytest.raises(MathhammerError, match=r"66 pairings are too many to chart readably.*-a NAME -t NAME"):
        small_multiples_figure(results)


def test_a_stage_only_some_results_have_is_drawn_for_those() -> None:
    fight = Result.from_pmfs(
        [np.array([0.5, 0.5]), np.array([0.5, 0.5]), np.array([0.0, 0.25, 0.75])],
        ["damage", "models_destroyed", "rounds"],
        {"rounds": "Rounds fought"},
        ruleset="toy",
        evaluator="exact",
        trials=0,
        seed=None,
        target_models=1,
    )
    figure = distribution_figure({"strike": result([0.5, 0.5]), "fight": fight}, ["damage", "rounds"])
    rounds = figure.axes[2]
    assert rounds.get_title() == "Rounds fought: P(exactly k)" and len(rounds.patches) == 3  # the fight's alone
    fight_damage = figure.axes[0].patches[-1]  # the second series' last bar in the first row
    assert rounds.patches[0].get_facecolor() == fight_damage.get_facecolor()  # one colour per series throughout


def test_the_ways_a_run_ends_are_charted_across_the_top() -> None:
    """Chances a ruleset marks as the run's ends (who wins a fight) are a row of bars of their own;
    two Results matched by position, a label they spell differently showing both spellings, and
    a Result without them draws none."""
    from mathhammer.result import Chance

    def ending(p_win: float, rounds: int) -> Result:
        base = result([1 - p_win, p_win])
        return dataclasses.replace(
            base,
            chances=(
                Chance("P(attacker wins)", "models_destroyed", exactly=1, outcome=True),
                Chance(f"P(both stand after {rounds} rounds)", "models_destroyed", exactly=0, outcome=True),
                Chance("P(hit) per attack", "damage", per="damage"),
            ),
        )

    figure = distribution_figure({"a": ending(0.25, 10), "b": ending(0.5, 2), "c": result([0.5, 0.5])})
    ends = figure.axes[0]
    assert ends.get_title() == "How it ends"
    assert [t.get_text() for t in ends.get_yticklabels()] == [
        "P(attacker wins)",
        "P(both stand after 10 rounds) / P(both stand after 2 rounds)",
    ]
    from matplotlib.patches import Rectangle

    widths = [bar.get_width() for bar in ends.patches if isinstance(bar, Rectangle)]
    assert widths == pytest.approx([0.25, 0.75, 0.5, 0.5])
    assert len(figure.axes) == 1 + 2 * 2
    assert len(distribution_figure({"c": result([0.5, 0.5])}).axes) == 2 * 2
