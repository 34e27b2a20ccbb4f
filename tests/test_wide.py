"""Wide distributions: tables of at most 60 rows and small charts, for anything the core accepts.

A distribution can span a hundred thousand values (thousands of attacks into a
target of a million wounds). Printed a row per value it took a minute and
hundreds of megabytes; these tests count rows and bytes, not seconds.
"""

from __future__ import annotations

import io
import itertools
import re
from pathlib import Path

import numpy as np
import pytest
from rich.console import Console

from mathhammer import Result
from mathhammer.face import cli, report
from mathhammer.plotting import distribution_figure, save
from mathhammer.result import MAX_ROWS

WIDE = """
ruleset = "wh40k"

[[attacker.weapons]]
name = "Storm"
type = "ranged"
count = 100
attacks = "100"
skill = "3+"
strength = 8
ap = -3
damage = "D6"

[target]
name = "Horde"
toughness = 4

[[target.models]]
name = "Giant"
count = 10000
wounds = 100
save = "6+"
"""

ROW = re.compile(r"^\s*(\d+)(?:-(\d+))?\s+(\d\.\d{4})\s+(\d\.\d{4})")


def wide(width: int = 119_000) -> Result:
    """Damage spread over ``width`` values around its middle (a discretised normal), one model never destroyed."""
    k = np.arange(width)
    pmf = np.exp(-0.5 * ((k - width / 2) / (width / 8)) ** 2)
    return Result.from_pmfs(
        [pmf / pmf.sum(), np.array([1.0])],
        ["damage", "models_destroyed"],
        {},
        ruleset="toy",
        evaluator="exact",
        trials=0,
        seed=None,
        target_models=1,
    )


def tables(text: str) -> list[list[tuple[int, int, float, float]]]:
    """The rows of each distribution table printed (tables are separated by a blank line)."""
    return [rows for block in text.split("\n\n") if (rows := table_rows(block))]


def table_rows(text: str) -> list[tuple[int, int, float, float]]:
    rows = []
    for line in text.splitlines():
        m = ROW.match(line)
        if m:
            low = int(m.group(1))
            rows.append((low, int(m.group(2) or low), float(m.group(3)), float(m.group(4))))
    return rows


def test_a_wide_distribution_is_shown_in_at_most_60_rows_of_bins() -> None:
    stage = wide()["damage"]
    rows = stage.rows()
    assert len(rows) <= MAX_ROWS
    # The rows cover 0 to the end, one after another, and hold all the probability.
    assert rows[0].low == 0 and rows[-1].high == len(stage.pmf) - 1
    assert all(a.high + 1 == b.low for a, b in itertools.pairwise(rows))
    assert sum(row.p for row in rows) == pytest.approx(1.0, abs=1e-12)
    # Each row's P(>= low) is the sum of its own and every later row's.
    for i, row in enumerate(rows):
        assert row.p_at_least == pytest.approx(sum(r.p for r in rows[i:]), abs=1e-12)
    assert len(stage.rows(None)) == stage.last_shown() + 1  # --full: every value


def test_a_narrow_distribution_keeps_a_row_per_value() -> None:
    stage = wide(50)["damage"]
    assert [row.label for row in stage.rows()] == [str(k) for k in range(stage.last_shown() + 1)]


def test_the_printed_table_has_at_most_60_rows() -> None:
    out = io.StringIO()
    Console(file=out, width=100, highlight=False).print(report.render(wide()))
    damage, models = tables(out.getvalue())
    assert 10 < len(damage) <= MAX_ROWS and len(models) == 1
    assert len(out.getvalue().splitlines()) < 100
    assert damage[1][1] > damage[1][0]  # bins are labelled low-high


def test_the_chart_of_a_wide_distribution_is_small(tmp_path: Path) -> None:
    result = wide()
    path = save(distribution_figure({"wide": result}), tmp_path / "wide.html", extra_html=result._repr_html_())
    assert path.stat().st_size < 1_000_000
    svg = save(distribution_figure({"a": result, "b": wide(60_000)}), tmp_path / "wide.svg")
    assert svg.stat().st_size < 1_000_000


def test_simulate_and_plot_a_wide_scenario(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    scenario = tmp_path / "wide.toml"
    scenario.write_text(WIDE)
    options = ["--monte-carlo", "--trials", "2000", "--seed", "1"]
    assert cli.main(["simulate", str(scenario), *options]) == 0
    shown = tables(capsys.readouterr().out)
    assert len(shown) == 2 and all(0 < len(rows) <= MAX_ROWS for rows in shown)
    narrower = tmp_path / "narrower.toml"  # still wide, but quicker to print whole
    narrower.write_text(WIDE.replace("count = 100\n", "count = 3\n"))
    assert cli.main(["simulate", str(narrower), *options]) == 0
    assert max(len(rows) for rows in tables(capsys.readouterr().out)) <= MAX_ROWS
    assert cli.main(["simulate", str(narrower), *options, "--full"]) == 0
    full = tables(capsys.readouterr().out)
    assert max(len(rows) for rows in full) > 2 * MAX_ROWS  # every value
    html = tmp_path / "wide.html"
    assert cli.main(["plot", str(scenario), *options, "-o", str(html)]) == 0
    assert html.stat().st_size < 1_000_000
