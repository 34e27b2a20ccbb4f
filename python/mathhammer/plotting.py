"""Charts of Results with matplotlib: distributions, cumulative P(>= k), small multiples, comparison heatmaps.

Every chart says who attacked whom and how the numbers were found (the
evaluator, and the trials of a Monte Carlo run) in its title, and its legend
names each series after its scenario (the attacker, the target), never a file.

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
import textwrap
from collections import Counter
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
    from matplotlib.axes import Axes
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


MAX_OVERLAID = 12
"""The most Results one distribution chart overlays; more are drawn as small multiples
(:func:`small_multiples_figure`), one panel each."""

MAX_PANELS = 64
"""The most panels small multiples draw: more would each be too small to read, so a filter is asked for."""


def how_evaluated(results: Sequence[Result]) -> str:
    """How ``results`` were evaluated, in a few words: ``"exact"``, ``"Monte Carlo, 200,000 trials"``,
    or ``"3 exact, 2 by Monte Carlo (200,000 trials each)"``."""
    exact = sum(r.evaluator == "exact" for r in results)
    simulated = [r for r in results if r.evaluator != "exact"]
    if not simulated:
        return "exact"
    trials = sorted({r.trials for r in simulated})
    counts = f"{trials[0]:,}" if len(trials) == 1 else f"{trials[0]:,} to {trials[-1]:,}"
    if not exact and len(simulated) == 1:
        return f"Monte Carlo, {counts} trials"
    each = " each" if len(simulated) > 1 else ""
    if not exact:
        return f"Monte Carlo, {counts} trials{each}"
    return f"{exact} exact, {len(simulated)} by Monte Carlo ({counts} trials{each})"


def _side(names: Sequence[str], kind: str) -> str:
    """Up to three names, else how many: ``"Lascannons, Meltaguns"`` or ``"7 attackers"``."""
    unique = list(dict.fromkeys(n for n in names if n))
    if not unique:
        return f"the {kind}" if kind == "target" else "an attacker"
    return ", ".join(unique) if len(unique) <= 3 else f"{len(unique)} {kind}s"


def chart_title(results: Sequence[Result]) -> str:
    """``"<attackers> vs <targets> · <how evaluated>"``: the title of every chart of ``results``."""
    sides = f"{_side([r.attacker for r in results], 'attacker')} vs {_side([r.target for r in results], 'target')}"
    return f"{sides} · {how_evaluated(results)}"


def legend_names(results: Sequence[Result], fallbacks: Sequence[str] = ()) -> list[str]:
    """What a legend calls each of ``results``: the attacker when they share one target, the target when
    they share one attacker, else ``attacker vs target``; a name two Results share gets its
    ``fallbacks`` entry (such as the file) after it, so no two series look alike."""
    attackers = {r.attacker for r in results}
    targets = {r.target for r in results}
    if len(targets) == 1 and all(r.attacker for r in results):
        names = [r.attacker for r in results]
    elif len(attackers) == 1 and all(r.target for r in results):
        names = [r.target for r in results]
    else:
        names = [r.name for r in results]
    counts = {n: names.count(n) for n in names}
    return [f"{n} ({fallbacks[i]})" if counts[n] > 1 and i < len(fallbacks) else n for i, n in enumerate(names)]


def distribution_figure(
    results: Mapping[str, Result], stages: Sequence[str] = DISTRIBUTION_STAGES, *, title: str | None = None
) -> Figure:
    """One row per stage: P(exactly k) as bars on the left, P(at least k) on the right.

    Results whose ruleset reports how a run can end (:attr:`Result.outcomes`: who wins a fight)
    get a first row across the figure with each end's chance as a bar.

    Args:
        results: Results by the name the legend gives them; one name is a
            single scenario, several are a comparison (bars side by side).
        stages: Stage names to chart, each a row.
        title: The figure's title; by default :func:`chart_title`, naming the
            attackers, the targets, the evaluator and the trials.

    Raises:
        MathhammerError: for more than :data:`MAX_OVERLAID` Results, which one chart cannot show
            readably (draw them with :func:`small_multiples_figure`, or pick fewer).
        MissingDependencyError: when matplotlib is not installed.
    """
    if len(results) > MAX_OVERLAID:
        raise MathhammerError(
            f"{len(results)} results are too many to overlay on one chart (at most {MAX_OVERLAID}); "
            "draw them as small multiples, one panel each, or pick fewer"
        )
    Figure = _figure_class()
    from matplotlib import colormaps

    named = list(results.items())
    legend = dict(zip(results, _safe_all(list(results)), strict=True))
    ending = [(n, legend[name], r) for n, (name, r) in enumerate(named) if r.outcomes]
    top = OUTCOME_HEIGHT if ending else 0.0
    figure = Figure(figsize=(11, 3.6 * len(stages) + 0.4 + top), layout="constrained")
    _suptitle(figure, title if title is not None else chart_title([r for _, r in named]))
    grid = figure.add_gridspec(len(stages) + bool(ending), 2, height_ratios=[top] * bool(ending) + [3.6] * len(stages))
    if ending:
        _outcomes(figure.add_subplot(grid[0, :]), ending, len(named))
    axes = [[figure.add_subplot(grid[row + bool(ending), col]) for col in (0, 1)] for row in range(len(stages))]
    for row, stage_name in enumerate(stages):
        # A row shows the Results that have its stage: a fight's rounds, say,
        # beside a scenario that has none.
        having = [(n, name, r) for n, (name, r) in enumerate(named) if stage_name in r.stages]
        shown = [r for _, _, r in having]
        width = 0.8 / max(1, len(having))
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
        label = _safe(shown[0][stage_name].label if shown else stage_name)
        for i, (n, name, result) in enumerate(having):
            stage = result[stage_name]
            if not stage.distribution_known:
                raise ValueError(
                    f"{stage_name!r} has only an exact mean here, no distribution to chart; simulate it with Monte"
                    " Carlo, or chart the weapons' means (Result.plot_weapons)"
                )
            pmf = _binned(stage.pmf, first, step, bins)
            tail = _padded(stage.p_at_least()[first::step], bins)
            offset = (i - (len(having) - 1) / 2) * width * step
            # A series keeps its colour in every row, present or not in the others;
            # past the ten colours of the default cycle, twenty distinct ones.
            colour = f"C{n}" if len(named) <= 10 else colormaps["tab20"](n % 20)
            exactly.bar(k + offset, pmf, width=width * step, label=legend[name], color=colour)
            at_least.plot(k, tail, marker="o" if bins <= 60 else "", markersize=3, label=legend[name], color=colour)
        binned = f", in bins of {step}" if step > 1 else ""
        exactly.set_title(f"{label}: P(exactly k){binned}")
        at_least.set_title(f"{label}: P(at least k)")
        for ax in (exactly, at_least):
            ax.set_xlabel(label)
            ax.set_xticks(k if bins <= 30 and step == 1 else np.linspace(first, last, 11).round())
            ax.grid(axis="y", alpha=0.3)
        at_least.set_ylim(0, 1.02)
        if len(named) > 1 and having:
            if len(named) <= LEGEND_INSIDE:
                exactly.legend(fontsize="small")
            else:  # many series: the legend beside the charts, not over them
                at_least.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.02, 1.0), ncols=2)
    return figure


OUTCOME_HEIGHT = 2.4
"""Inches of the row that charts how runs end (who wins a fight)."""


def _outcomes(ax: Axes, ending: Sequence[tuple[int, str, Result]], series: int) -> None:
    """Each Result's chance of each way the run ends, as horizontal bars (with a 95% interval,
    ± 1.96 standard errors, when simulated); ends are matched by position, and a label two
    Results spell differently (their units' names) shows both spellings. ``ending`` names each
    Result as its legend shows it (already made safe for a chart)."""
    from matplotlib import colormaps

    rows = max(len(r.outcomes) for _, _, r in ending)
    height = 0.8 / len(ending)
    for i, (n, name, result) in enumerate(ending):
        chances = [c.of(result.stages) for c in result.outcomes]
        y = np.arange(len(chances)) + (i - (len(ending) - 1) / 2) * height
        errors = [1.96 * se for _, se in chances]
        colour = f"C{n}" if series <= 10 else colormaps["tab20"](n % 20)
        ax.barh(
            y,
            [p for p, _ in chances],
            height=height,
            xerr=errors if any(errors) else None,
            label=name,
            color=colour,
        )
        for yy, (p, _) in zip(y, chances, strict=True):
            ax.text(min(p, 1.0) + 0.01, yy, f"{p:.3f}", va="center", fontsize="small")
    labels = [
        " / ".join(dict.fromkeys(r.outcomes[k].label for _, _, r in ending if k < len(r.outcomes))) for k in range(rows)
    ]
    ax.set_yticks(np.arange(rows), [_safe(label, long=True) for label in labels])
    ax.invert_yaxis()
    ax.set_xlim(0, 1.1)
    ax.set_title("How it ends")
    ax.grid(axis="x", alpha=0.3)
    if len(ending) > 1:
        ax.legend(fontsize="small", loc="lower right")


def weapons_figure(result: Result) -> Figure:
    """The mean wounds the target lost to each weapon, and the mean mortal wounds each inflicted, as bars
    (with a 95% interval, ± 1.96 standard errors, when simulated), each panel headed in the ruleset's words
    (:attr:`Result.weapon_measures <mathhammer.result.Result.weapon_measures>`).

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
    names = _safe_all([w.name for w in weapons])
    y = np.arange(len(weapons))
    lost, mortal = result.weapon_measures
    for ax, title, stages in (
        (axes[0], f"Mean {lost}", [w.damage for w in weapons]),
        (axes[1], f"Mean {mortal}", [w.mortal_wounds for w in weapons]),
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

TITLE_CHARACTERS = 120
"""The same for a figure's title, which spans the figure."""


def _safe(text: str, *, long: bool = False) -> str:
    """User text for a chart: controls escaped, cut to :data:`LABEL_CHARACTERS` (:data:`TITLE_CHARACTERS`
    when ``long``), and ``$`` kept from starting matplotlib's mathtext.

    A long name loses its middle, not its end: profiles imported from a list differ at the end
    (``Impulsor (ranged, Bellicatus Missile Array - Icarus)`` and ``... - Krak)``).
    """
    shown = printable(text, lines=False)
    most = TITLE_CHARACTERS if long else LABEL_CHARACTERS
    if len(shown) > most:
        tail = (most - 1) // 2
        shown = shown[: most - 1 - tail] + "…" + shown[len(shown) - tail :]
    return shown.replace("$", r"\$")


def _safe_all(names: Sequence[str]) -> list[str]:
    """:func:`_safe` for labels shown side by side: names that would read alike once cut are shown whole."""
    shown = [_safe(name) for name in names]
    counts = Counter(shown)
    originals: dict[str, set[str]] = {}
    for name, label in zip(names, shown, strict=True):
        originals.setdefault(label, set()).add(name)
    return [
        _safe(name, long=True) if counts[label] > 1 and len(originals[label]) > 1 else label
        for name, label in zip(names, shown, strict=True)
    ]


def _suptitle(figure: Figure, text: str) -> None:
    """Head ``figure`` with ``text``, wrapped to the figure's width (about eight characters an inch)."""
    figure.suptitle(textwrap.fill(_safe(text, long=True), width=max(30, int(figure.get_figwidth() * 8))))


def small_multiples_figure(
    results: Mapping[tuple[str, str], Result], stage: str = "models_destroyed", *, title: str | None = None
) -> Figure:
    """A grid of small charts, attackers down and targets across: each P(exactly k) of ``stage`` for one pairing.

    For a whole profile library, where one chart of every pairing would be a
    tangle of lines: each panel is readable alone, panels of one target share
    their k axis, and every panel shares the probability axis, so bars compare
    across the grid. Each panel also states the mean.

    Args:
        results: The Result of each (attacker, target), in row-major order.
        stage: The stage to chart.
        title: The figure's title; by default :func:`chart_title` with the stage's label.

    Raises:
        MathhammerError: for more than :data:`MAX_PANELS` pairings, naming how to pick fewer.
        MissingDependencyError: when matplotlib is not installed.
    """
    if len(results) > MAX_PANELS:
        raise MathhammerError(
            f"{len(results)} pairings are too many to chart readably (at most {MAX_PANELS} panels); pick some "
            "attackers or targets (mathhammer plot FILE -a NAME -t NAME, or compare() on fewer profiles)"
        )
    Figure = _figure_class()
    from matplotlib.ticker import MaxNLocator

    attackers = list(dict.fromkeys(a for a, _ in results))
    targets = list(dict.fromkeys(t for _, t in results))
    attacker_labels = dict(zip(attackers, _safe_all(attackers), strict=True))
    target_labels = dict(zip(targets, _safe_all(targets), strict=True))
    # Margins by hand rather than matplotlib's constrained layout, which takes
    # seconds to solve for a grid of dozens of panels: room beside the rows
    # for the longest attacker name, above for the title and the target names.
    beside = 0.3 + 0.075 * max((len(label) for label in attacker_labels.values()), default=0)
    width, height = beside + 2.3 * len(targets) + 0.2, 0.9 + 1.6 * len(attackers)
    figure = Figure(figsize=(width, height))
    figure.subplots_adjust(
        left=beside / width, right=1 - 0.2 / width, top=1 - 0.7 / height, bottom=0.3 / height, wspace=0.15, hspace=0.25
    )
    axes = figure.subplots(len(attackers), len(targets), squeeze=False, sharex="col", sharey=True)
    shown = list(results.values())
    label = shown[0][stage].label if shown else stage
    heading = title if title is not None else f"{label}: P(exactly k) · {chart_title(shown)}"
    _suptitle(figure, heading)
    for j, target in enumerate(targets):
        column = [results[a, target] for a in attackers if (a, target) in results]
        last = _last_shown(column, stage)
        for i, attacker in enumerate(attackers):
            ax = axes[i, j]
            if i == 0:
                ax.set_title(target_labels[target], fontsize="small")
            if j == 0:
                ax.set_ylabel(attacker_labels[attacker], fontsize="small", rotation=0, ha="right", va="center")
            if (attacker, target) not in results:
                ax.set_axis_off()
                continue
            s = results[attacker, target][stage]
            k = np.arange(last + 1)
            ax.bar(k, _padded(s.pmf, last + 1), width=0.8, color="#4c78a8")
            # The mean sits above P = 1, where no bar reaches.
            ax.text(0.97, 1.12, f"mean {s.mean:.2f}", transform=ax.get_yaxis_transform(), ha="right", fontsize=7)
            ax.set_ylim(0, 1.2)
            ax.set_yticks([0, 0.5, 1])
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.tick_params(labelsize=7)
            ax.grid(axis="y", alpha=0.3)
    return figure


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


def heatmap_figure(
    panels: Sequence[Panel], rows: Sequence[str], columns: Sequence[str], *, title: str | None = None
) -> Figure:
    """Matrices of numbers (attackers down, targets across) as labelled heatmaps, one under another.

    ``title`` heads the figure: who attacked whom and how it was evaluated (see :func:`chart_title`).

    Raises:
        MissingDependencyError: when matplotlib is not installed.
    """
    Figure = _figure_class()
    row_labels = _safe_all(rows)
    column_labels = _safe_all(columns)
    # Room for the names: about 0.09 inch a character beside the rows, and
    # half that under the columns (their labels are slanted).
    beside = 0.09 * max((len(r) for r in row_labels), default=0)
    under = 0.045 * max((len(c) for c in column_labels), default=0)
    height = 1.2 + 0.4 * len(rows) + under
    figure = Figure(figsize=(3 + 1.3 * len(columns) + beside, height * len(panels) + 0.4), layout="constrained")
    if title:
        _suptitle(figure, title)
    axes = figure.subplots(len(panels), 1, squeeze=False)[:, 0]
    for ax, (name, values, fmt) in zip(axes, panels, strict=True):
        image = ax.imshow(values, cmap="viridis", aspect="auto")
        ax.set_xticks(range(len(columns)), labels=column_labels, rotation=30, ha="right")
        ax.set_yticks(range(len(rows)), labels=row_labels)
        ax.set_title(_safe(name, long=True))
        ax.set_xlabel("target")
        ax.set_ylabel("attacker")
        known = values[~np.isnan(values)]  # NaN: a group the target lacks, or points a profile lacks
        middle = (float(known.max()) + float(known.min())) / 2 if known.size else 0.0
        for (i, j), v in np.ndenumerate(values):
            colour = "black" if v > middle else "white"
            ax.text(j, i, "-" if np.isnan(v) else fmt.format(v), ha="center", va="center", color=colour, fontsize=8)
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
