"""Results and comparisons as terminal reports: per-stage means, distributions as bar charts, matrices.

The command line prints these with rich, which drops colour and styles by
itself when the output is not a terminal (a pipe, a file, CI), so the same
code serves both. :meth:`mathhammer.Result.to_text` remains the plain-text
report for code that wants a string with no dependency on rich.
"""

from __future__ import annotations

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from mathhammer.compare import METRICS, Comparison, Metric
from mathhammer.result import NO_EFFECT_TITLE, Result, Stage

BAR_WIDTH = 30
"""Characters of the longest bar in a distribution chart."""

_EIGHTHS = " ▏▎▍▌▋▊▉"


def bar(fraction: float, width: int = BAR_WIDTH) -> str:
    """A horizontal bar ``fraction`` (0 to 1) of ``width`` characters, to an eighth of a character."""
    eighths = round(max(0.0, min(1.0, fraction)) * width * 8)
    full, part = divmod(eighths, 8)
    return "█" * full + (_EIGHTHS[part] if part else "")


def probability(p: float) -> str:
    """``p`` to four places, but never a possible outcome shown as 0.0000 or a possible failure as 1.0000."""
    if 0 < p < 5e-5:
        return "<0.0001"
    if 1 - 5e-5 < p < 1:
        return ">0.9999"
    return f"{p:.4f}"


def shown_rows(stage: Stage) -> range:
    """The values ``k`` a distribution table shows: 0 up to :meth:`Stage.last_shown`."""
    return range(stage.last_shown() + 1)


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
        row = [stage.label, f"{stage.mean:.3f}"]
        if not exact:
            row.append(f"{stage.se:.4f}")
        row += [f"{stage.sd:.3f}", f"{stage.percentile(5)}-{stage.percentile(95)}"]
        table.add_row(*row)
    return table


def distribution_table(stage: Stage) -> Table:
    """P(exactly k) and P(at least k) for each k shown, with a bar for P(exactly k)."""
    table = Table(title=stage.label, title_justify="left", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column("k", justify="right")
    table.add_column("P(=k)", justify="right")
    table.add_column("P(≥k)", justify="right")
    table.add_column("", no_wrap=True)
    at_least = stage.p_at_least()
    peak = float(stage.pmf.max()) if len(stage.pmf) else 0.0
    for k in shown_rows(stage):
        p = float(stage.pmf[k])
        table.add_row(str(k), f"{p:.4f}", f"{at_least[k]:.4f}", Text(bar(p / peak if peak else 0.0), style="cyan"))
    return table


def render(result: Result) -> RenderableType:
    """The whole report: the run, per-stage statistics, P(unit destroyed), distributions and rule versions."""
    parts: list[RenderableType] = [Text(result.description, style="bold"), Text(""), stages_table(result)]
    parts.append(Text(f"\nP(unit destroyed) = {probability(result.p_unit_destroyed)}", style="bold"))
    for chance in result.chances:
        p, se = chance.of(result.stages)
        parts.append(Text(f"{chance.label} = {p:.4f}" + (f" ± {se:.4f}" if se else "")))
    for name in result.distributions:
        if name in result.stages:
            parts += [Text(""), distribution_table(result.stages[name])]
    if result.rule_versions:
        versions = ", ".join(f"{rule} = {version}" for rule, version in result.rule_versions.items())
        parts += [Text(""), Text(f"rules: {versions}")]
    if result.no_effect:
        parts += [Text(""), Text(f"{NO_EFFECT_TITLE}:"), *(Text(f"  {n}") for n in result.no_effect)]
    return Group(*parts)


def comparison_table(comparison: Comparison, metric: Metric) -> Table:
    """One metric for every attacker (rows) against every target (columns); Monte Carlo cells get a ``±`` se."""
    fmt = METRICS[metric][1]
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    table.add_column("", no_wrap=True)
    for target in comparison.targets:
        table.add_column(target, justify="right")
    values = comparison.matrix(metric)
    for i, attacker in enumerate(comparison.attackers):
        cells = []
        for j, target in enumerate(comparison.targets):
            result = comparison.results[attacker, target]
            cell = fmt.format(values[i, j])
            if result.evaluator == "monte_carlo" and metric != "p_unit_destroyed":
                cell += f" ±{result[metric].se:.2f}"
            cells.append(cell)
        table.add_row(attacker, *cells)
    return table


def render_comparison(comparison: Comparison, metrics: list[Metric]) -> RenderableType:
    """A table per metric, then how the cells were evaluated."""
    parts: list[RenderableType] = []
    for metric in metrics:
        title = Text(f"{METRICS[metric][0]} (attackers down, targets across)", style="bold")
        parts += [title, comparison_table(comparison, metric), Text("")]
    results = list(comparison.results.values())
    exact = sum(r.evaluator == "exact" for r in results)
    simulated = [r for r in results if r.evaluator == "monte_carlo"]
    how = f"{len(results)} pairing{'s' if len(results) != 1 else ''}: {exact} exact"
    if simulated:
        seeds = sorted({r.seed for r in simulated if r.seed is not None})
        how += f", {len(simulated)} by Monte Carlo ({simulated[0].trials:,} trials each, seeds from {seeds[0]})"
    parts.append(Text(f"{how} · {comparison.seconds:.2f} s"))
    return Group(*parts)
