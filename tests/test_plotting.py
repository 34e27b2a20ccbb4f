"""Charts: distributions of one Result or several, heatmaps, and the files they are saved as."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mathhammer import MathhammerError, Result
from mathhammer.plotting import distribution_figure, heatmap_figure, save


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
    many = {f"attacker {i}": result([0.1 * (i % 9), 1 - 0.1 * (i % 9)]) for i in range(42)}
    figure = distribution_figure(many)
    assert figure.axes[0].get_legend() is None
    assert figure.axes[1].get_legend() is not None
    save(figure, tmp_path / "many.png")
    few = distribution_figure({"a": result([0.5, 0.5]), "b": result([0.2, 0.8])})
    assert few.axes[0].get_legend() is not None and few.axes[1].get_legend() is None
