"""Results and comparisons as terminal reports: per-stage means, distributions as bar charts, matrices.

The command line prints these with rich, which drops colour and styles by
itself when the output is not a terminal (a pipe, a file, CI), so the same
code serves both. :meth:`mathhammer.Result.to_text` remains the plain-text
report for code that wants a string with no dependency on rich.
"""

from __future__ import annotations

import math

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from mathhammer.compare import Comparison, Metric
from mathhammer.display import plain
from mathhammer.result import MAX_ROWS, NO_EFFECT_TITLE, RULES_TITLE, Result, Row, Stage, probability

BAR_WIDTH = 30
"""Characters of the longest bar in a distribution chart."""

_EIGHTHS = " ▏▎▍▌▋▊▉"


def bar(fraction: float, width: int = BAR_WIDTH) -> str:
    """A horizontal bar ``fraction`` (0 to 1) of ``width`` characters, to an eighth of a character."""
    eighths = round(max(0.0, min(1.0, fraction)) * width * 8)
    full, part = divmod(eighths, 8)
    return "█" * full + (_EIGHTHS[part] if part else "")


def shown_rows(stage: Stage, *, full: bool = False) -> list[Row]:
    """The rows a distribution table shows: each ``k`` up to :meth:`Stage.last_shown`, in bins past
    :data:`~mathhammer.result.MAX_ROWS` rows unless ``full``."""
    return stage.rows(None if full else MAX_ROWS)


def stages_table(result: Result) -> Table:
    """Per stage: mean ± standard error (none when exact), standard deviation, the middle 90% (5th-95th percentile)."""
    exact = result.evaluator == "exact"
    table = Table(title="Per stage", title_justify="left", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column("stage")
    table.add_column("mean", justify="right")
    if not exact:
        table.add_column("± se", justify="right")
    table.add_column("sd", justify="right")
    table.add_column("middle 90%", justify="right")
    for stage in result.shown:
        row: list[RenderableType] = [plain(stage.label), f"{stage.mean:.3f}"]
        if not exact:
            row.append(f"{stage.se:.4f}")
        if stage.distribution_known:
            row += [f"{stage.sd:.3f}", f"{stage.percentile(5)}-{stage.percentile(95)}"]
        else:
            row += ["-", "-"]
        table.add_row(*row)
    return table


def distribution_table(stage: Stage, *, full: bool = False) -> Table:
    """P(exactly k) and P(at least k) for each k shown, with a bar for P(exactly k).

    A distribution wider than :data:`~mathhammer.result.MAX_ROWS` rows is shown in bins
    (a row ``40-59`` gives P(40 <= k <= 59) and P(k >= 40)), unless ``full``.
    """
    table = Table(title=plain(stage.label), title_justify="left", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column("k", justify="right")
    table.add_column("P(=k)", justify="right")
    table.add_column("P(≥k)", justify="right")
    table.add_column("", no_wrap=True)
    rows = shown_rows(stage, full=full)
    peak = max((row.p for row in rows), default=0.0)
    for row in rows:
        fill = Text(bar(row.p / peak if peak else 0.0), style="cyan")
        table.add_row(row.label, f"{row.p:.4f}", f"{row.p_at_least:.4f}", fill)
    return table


def render(result: Result, *, full: bool = False) -> RenderableType:
    """The whole report: the run, per-stage statistics, P(unit destroyed), distributions and rule versions.

    ``full`` shows every value of a wide distribution rather than bins.
    """
    parts: list[RenderableType] = [plain(result.description, style="bold"), Text(""), stages_table(result)]
    if result.mean_only_note:
        parts.append(plain(result.mean_only_note))
    parts.append(Text(f"\nP(unit destroyed) = {probability(result.p_unit_destroyed)}", style="bold"))
    parts += [plain(line) for line in result.group_lines]
    for chance in result.chances:
        p, se = chance.of(result.stages)
        parts.append(plain(f"{chance.label} = {p:.4f}" + (f" ± {se:.4f}" if se else "")))
    for name in result.distributions:
        if name in result.stages:
            parts += [Text(""), distribution_table(result.stages[name], full=full)]
    if result.rule_versions:
        parts += [Text(""), Text(f"{RULES_TITLE}:"), *(plain(f"  {line}") for line in result.rule_lines)]
    if result.no_effect:
        parts += [Text(""), Text(f"{NO_EFFECT_TITLE}:"), *(plain(f"  {n}") for n in result.no_effect)]
    return Group(*parts)


def comparison_table(comparison: Comparison, metric: Metric) -> Table:
    """One metric for every attacker (rows) against every target (columns); Monte Carlo cells get a ``±`` se."""
    fmt = comparison.metric_info(metric)[1]
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column("", no_wrap=True)
    for target in comparison.targets:
        table.add_column(plain(target), justify="right")
    values = comparison.matrix(metric)
    for i, attacker in enumerate(comparison.attackers):
        cells = []
        for j, target in enumerate(comparison.targets):
            result = comparison.results[attacker, target]
            cell = "-" if math.isnan(values[i, j]) else fmt.format(values[i, j])
            if result.evaluator == "monte_carlo" and metric in result.stages:
                cell += f" ±{result[metric].se:.2f}"
            cells.append(cell)
        table.add_row(plain(attacker), *cells)
    return table


def ranking_tables(comparison: Comparison, metric: Metric) -> list[RenderableType]:
    """Each attacker's best and worst target by ``metric``, then the best attacker against each target."""
    title, fmt = comparison.metric_info(metric)
    # Only the first letter is lowered: a game's words ("HP lost", "Direct Damage") keep their capitals.
    title = title[:1].lower() + title[1:]

    def show(value: float) -> str:
        return "-" if math.isnan(value) else fmt.format(value)

    ranked = sorted(comparison.ranking(metric), key=lambda r: -r[2] if not math.isnan(r[2]) else math.inf)
    best = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for name, justify in (
        ("attacker", "left"),
        ("best target", "left"),
        ("", "right"),
        ("worst target", "left"),
        ("", "right"),
    ):
        best.add_column(name, justify=justify, no_wrap=name == "attacker")  # type: ignore[arg-type]
    for attacker, top, top_value, bottom, bottom_value in ranked:
        best.add_row(plain(attacker), plain(top), show(top_value), plain(bottom), show(bottom_value))
    most = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    most.add_column("target", no_wrap=True)
    most.add_column("most efficient attacker")
    most.add_column("", justify="right")
    for target, attacker, value in comparison.best_attackers(metric):
        most.add_row(plain(target), plain(attacker), show(value))
    return [
        Text(f"Best and worst targets by {title}", style="bold"),
        best,
        Text(""),
        Text(f"Which attacker most efficiently removes each target ({title})", style="bold"),
        most,
        Text(""),
    ]


def render_comparison(comparison: Comparison, metrics: list[Metric], *, rank: Metric | None = None) -> RenderableType:
    """A table per metric, then (with ``rank``) the ranking tables by that metric, then how the cells were evaluated."""
    parts: list[RenderableType] = []
    for metric in metrics:
        title = Text(f"{comparison.metric_info(metric)[0]} (attackers down, targets across)", style="bold")
        parts += [title, comparison_table(comparison, metric), Text("")]
    if rank is not None:
        parts += ranking_tables(comparison, rank)
    results = list(comparison.results.values())
    exact = sum(r.evaluator == "exact" for r in results)
    simulated = [r for r in results if r.evaluator == "monte_carlo"]
    how = f"{len(results)} pairing{'s' if len(results) != 1 else ''}: {exact} exact"
    if simulated:
        seeds = sorted({r.seed for r in simulated if r.seed is not None})
        how += f", {len(simulated)} by Monte Carlo ({simulated[0].trials:,} trials each, seeds from {seeds[0]})"
    parts.append(plain(f"{how} · {comparison.seconds:.2f} s"))
    return Group(*parts)
