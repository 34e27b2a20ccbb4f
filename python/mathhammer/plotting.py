"""Charts of Results with matplotlib: distributions, cumulative P(>= k), comparison heatmaps.

Figures are built with :class:`matplotlib.figure.Figure` directly, never
through ``pyplot``, so nothing depends on a display or a global backend
(plots work the same on a headless CI machine) and no figure outlives its
caller. Jupyter shows a returned Figure inline.

matplotlib is an optional dependency: ``pip install 'mathhammer[plot]'``.
"""

from __future__ import annotations

import html
import io
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np
import numpy.typing as npt

from mathhammer.display import printable
from mathhammer.exceptions import MathhammerError
from mathhammer.extras import require
from mathhammer.result import DISTRIBUTION_STAGES, Result

if TYPE_CHECKING:
    from matplotlib.figure import Figure

FORMATS = (".png", ".svg", ".html")
"""File types :func:`save` writes, chosen by the file's suffix."""

TAIL = 5e-4
"""Values ``k`` are plotted while P(>= k) is at least this in some Result: long thin tails would squash the chart."""

MAX_BARS = 120
"""The most bars one series of a chart draws: a wider distribution is drawn in bins of several values, so a
chart of any distribution the core accepts stays small (an HTML page well under 1 MB) and quick to draw."""


def _figure_class() -> type[Figure]:
    require("matplotlib", "plot", feature="plotting")
    from matplotlib.figure import Figure

    return Figure


def _last_shown(results: Sequence[Result], stage: str) -> int:
    return max((result[stage].last_shown(TAIL) for result in results), default=0)


def _first_shown(results: Sequence[Result], stage: str) -> int:
    """The smallest ``k`` with P(<= k) of at least :data:`TAIL` in some Result."""
    firsts = [int(np.searchsorted(np.cumsum(result[stage].pmf), TAIL)) for result in results]
    return min(firsts, default=0)


def _binned(values: npt.NDArray[np.float64], first: int, width: int, bins: int) -> npt.NDArray[np.float64]:
    """Sums of ``values`` over ``bins`` bins of ``width`` values from ``first``."""
    padded = _padded(values[first:], bins * width)
    sums: npt.NDArray[np.float64] = padded.reshape(bins, width).sum(axis=1)
    return sums


def distribution_figure(results: Mapping[str, Result], stages: Sequence[str] = DISTRIBUTION_STAGES) -> Figure:
    """One row per stage: P(exactly k) as bars on the left, P(at least k) on the right.

    Args:
        results: Results by the name the legend gives them; one name is a
            single scenario, several are a comparison (bars side by side).
        stages: Stage names to chart, each a row.

    Raises:
        MissingDependencyError: when matplotlib is not installed.
    """
    Figure = _figure_class()
    named = list(results.items())
    figure = Figure(figsize=(11, 3.6 * len(stages)), layout="constrained")
    axes = figure.subplots(len(stages), 2, squeeze=False)
    width = 0.8 / max(1, len(named))
    for row, stage_name in enumerate(stages):
        shown = [r for _, r in named]
        last = _last_shown(shown, stage_name)
        # Up to MAX_BARS values, one bar each from 0; past that, from the start
        # of the distribution's body, in bins of `step` values: a bar is then
        # P(k <= number < k + step), drawn at k.
        first, step = 0, 1
        if last + 1 > MAX_BARS:
            first = min(_first_shown(shown, stage_name), last)
            step = math.ceil((last - first + 1) / MAX_BARS)
        bins = math.ceil((last - first + 1) / step)
        k = first + step * np.arange(bins)
        exactly, at_least = axes[row]
        label = _safe(named[0][1][stage_name].label if named else stage_name)
        for i, (name, result) in enumerate(named):
            stage = result[stage_name]
            if not stage.distribution_known:
                raise ValueError(
                    f"{stage_name!r} has only an exact mean here, no distribution to chart; simulate it with Monte"
                    " Carlo, or chart the weapons' means (Result.plot_weapons)"
                )
            pmf = _binned(stage.pmf, first, step, bins)
            tail = _padded(stage.p_at_least()[first::step], bins)
            offset = (i - (len(named) - 1) / 2) * width * step
            exactly.bar(k + offset, pmf, width=width * step, label=_safe(name))
            at_least.plot(k, tail, marker="o" if bins <= 60 else "", markersize=3, label=_safe(name))
        binned = f", in bins of {step}" if step > 1 else ""
        exactly.set_title(f"{label}: P(exactly k){binned}")
        at_least.set_title(f"{label}: P(at least k)")
        for ax in (exactly, at_least):
            ax.set_xlabel(label)
            ax.set_xticks(k if bins <= 30 and step == 1 else np.linspace(first, last, 11).round())
            ax.grid(axis="y", alpha=0.3)
        at_least.set_ylim(0, 1.02)
        if len(named) > 1:
            if len(named) <= LEGEND_INSIDE:
                exactly.legend(fontsize="small")
            else:  # many series: the legend beside the charts, not over them
                at_least.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.02, 1.0), ncols=2)
    return figure


def weapons_figure(result: Result) -> Figure:
    """The mean wounds the target lost to each weapon, and the mean mortal wounds each inflicted, as bars
    (with a 95% interval, ± 1.96 standard errors, when simulated).

    Raises:
        MissingDependencyError: when matplotlib is not installed.
        ValueError: when the Result lists no weapon.
    """
    weapons = result.weapons
    if not weapons:
        raise ValueError("this Result lists no weapon aimed at the target")
    Figure = _figure_class()
    figure = Figure(figsize=(11, 1.2 + 0.5 * len(weapons)), layout="constrained")
    axes = figure.subplots(1, 2, squeeze=False)[0]
    names = [_safe(w.name) for w in weapons]
    y = np.arange(len(weapons))
    for ax, title, stages in (
        (axes[0], "Mean damage (wounds lost)", [w.damage for w in weapons]),
        (axes[1], "Mean mortal wounds", [w.mortal_wounds for w in weapons]),
    ):
        means = [s.mean for s in stages]
        errors = [1.96 * s.se for s in stages]
        ax.barh(y, means, xerr=errors if any(errors) else None, color="#4c78a8")
        ax.set_yticks(y, names)
        ax.invert_yaxis()
        ax.set_title(title)
        ax.grid(axis="x", alpha=0.3)
    return figure


LABEL_CHARACTERS = 40
"""Names longer than this are cut short (with an ellipsis) in a chart, so no name crowds the plot out."""


def _safe(text: str) -> str:
    """User text for a chart: controls escaped, cut to :data:`LABEL_CHARACTERS`, and ``$`` kept from
    starting matplotlib's mathtext."""
    shown = printable(text, lines=False)
    if len(shown) > LABEL_CHARACTERS:
        shown = shown[: LABEL_CHARACTERS - 1] + "…"
    return shown.replace("$", r"\$")


def _padded(values: npt.NDArray[np.float64], size: int) -> npt.NDArray[np.float64]:
    out = np.zeros(size)
    n = min(size, len(values))
    out[:n] = values[:n]
    return out


class Formatter(Protocol):
    """Formats one number of a heatmap (``"{:.2f}"`` or a :class:`mathhammer.compare.Percent`)."""

    def format(self, value: float, /) -> str: ...


Panel = tuple[str, "npt.NDArray[np.float64]", Formatter]
"""One heatmap: its title, the matrix, and a format for each cell (``"{:.2f}"``)."""


def heatmap_figure(panels: Sequence[Panel], rows: Sequence[str], columns: Sequence[str]) -> Figure:
    """Matrices of numbers (attackers down, targets across) as labelled heatmaps, one under another.

    Raises:
        MissingDependencyError: when matplotlib is not installed.
    """
    Figure = _figure_class()
    row_labels = [_safe(r) for r in rows]
    column_labels = [_safe(c) for c in columns]
    # Room for the names: about 0.09 inch a character beside the rows, and
    # half that under the columns (their labels are slanted).
    beside = 0.09 * max((len(r) for r in row_labels), default=0)
    under = 0.045 * max((len(c) for c in column_labels), default=0)
    height = 1.2 + 0.4 * len(rows) + under
    figure = Figure(figsize=(3 + 1.3 * len(columns) + beside, height * len(panels)), layout="constrained")
    axes = figure.subplots(len(panels), 1, squeeze=False)[:, 0]
    for ax, (title, values, fmt) in zip(axes, panels, strict=True):
        image = ax.imshow(values, cmap="viridis", aspect="auto")
        ax.set_xticks(range(len(columns)), labels=column_labels, rotation=30, ha="right")
        ax.set_yticks(range(len(rows)), labels=row_labels)
        ax.set_title(_safe(title))
        middle = (float(np.nanmax(values)) + float(np.nanmin(values))) / 2 if values.size else 0.0
        for (i, j), v in np.ndenumerate(values):
            colour = "black" if v > middle else "white"
            ax.text(j, i, fmt.format(v), ha="center", va="center", color=colour, fontsize=8)
        figure.colorbar(image, ax=ax)
    return figure


def check_output(path: str | Path) -> Path:
    """``path`` as a Path, if :func:`save` can write its type (check before a long evaluation).

    Raises:
        MathhammerError: for a suffix other than those in :data:`FORMATS`.
    """
    path = Path(path)
    if path.suffix.lower() not in FORMATS:
        raise MathhammerError(
            f"{path}: cannot write a {path.suffix or 'suffix-less'} file; name it .png, .svg or .html"
        )
    return path


LEGEND_INSIDE = 8
"""Above this many series the legend goes beside the charts."""


def save(figure: Figure, path: str | Path, *, title: str = "mathhammer", extra_html: str = "") -> Path:
    """Write ``figure`` to ``path``: PNG, SVG, or a self-contained HTML page.

    The HTML page holds the chart as inline SVG and ``extra_html`` (such as
    :meth:`Result._repr_html_` tables) and loads nothing from the network.

    Raises:
        MathhammerError: for a suffix other than those in :data:`FORMATS`.
    """
    path = check_output(path)
    suffix = path.suffix.lower()
    if suffix == ".html":
        svg = io.StringIO()
        figure.savefig(svg, format="svg")
        body = svg.getvalue()
        body = body[body.index("<svg") :]  # drop the XML prologue and doctype: invalid inside HTML
        path.write_text(
            "<!DOCTYPE html>\n<html><head><meta charset='utf-8'>"
            f"<title>{html.escape(title)}</title></head>\n"
            f"<body style='font-family: sans-serif'>\n<h1>{html.escape(title)}</h1>\n"
            f"{body}\n{extra_html}\n</body></html>\n",
            encoding="utf-8",
        )
    else:
        figure.savefig(path, format=suffix[1:], dpi=120 if suffix == ".png" else None)
    return path
