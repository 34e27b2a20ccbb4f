"""The ``mathhammer`` command line: ``simulate``, ``plot``, ``compare``, ``sweep``, ``explain``,
``import``, ``serve`` and ``plugins``.

``docs/cli.md`` documents every command and option.

Reports go to standard output through rich, which leaves out colour and
styles when the output is not a terminal; warnings, errors and the progress
bar go to standard error. Errors about the user's input print one message
naming the file and field, never a traceback (``--debug`` shows it).
"""

from __future__ import annotations

import argparse
import html
import json
import os
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path

from rich.console import Console

from mathhammer import _startup
from mathhammer.compare import ALL_METRICS, Comparison, metric_info
from mathhammer.display import markup, printable
from mathhammer.exceptions import InternalError, MathhammerError, PluginError, PluginWarning, ScenarioError
from mathhammer.face import inventory, report
from mathhammer.face.locate import field_line
from mathhammer.face.progress import ProgressBar
from mathhammer.registry import Registry, default_registry
from mathhammer.result import Result
from mathhammer.scenario import load_scenario
from mathhammer.simulate import DEFAULT_TRIALS, MAX_THREADS, MAX_TRIALS, evaluate


def _positive(text: str) -> int:
    try:
        value = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    if value > MAX_TRIALS:
        raise argparse.ArgumentTypeError(f"{text!r} is more than the {MAX_TRIALS:,} trials one run allows")
    return value


def _threads(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 0 <= value <= MAX_THREADS:
        raise argparse.ArgumentTypeError(f"{text!r} must be 0 (every core) or a count up to {MAX_THREADS}")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 0 <= value < 2**64:
        raise argparse.ArgumentTypeError(f"{text!r} must be from 0 to 2**64-1")
    return value


def _dice(text: str) -> list[int]:
    try:
        return [int(v) for v in text.replace(",", " ").split()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of die results such as 3,5,6") from None


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} must be a port from 0 to 65535")
    return value


def _metric(text: str) -> str:
    try:
        metric_info(text)
    except ScenarioError as e:
        raise argparse.ArgumentTypeError(e.message) from None
    return text


def _evaluation_options() -> argparse.ArgumentParser:
    """Options shared by every command that evaluates scenarios."""
    options = argparse.ArgumentParser(add_help=False)
    options.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks for errors")
    options.add_argument(
        "--trials", type=_positive, default=DEFAULT_TRIALS, help="Monte Carlo trials (default 1,000,000)"
    )
    options.add_argument("--seed", type=_seed, default=None, help="seed for reproducible results (default: random)")
    options.add_argument("--threads", type=_threads, default=0, help="worker threads (default: every core)")
    how = options.add_mutually_exclusive_group()
    how.add_argument(
        "--exact",
        action="store_const",
        const="exact",
        dest="evaluator",
        help="evaluate exactly, or fail saying why it cannot",
    )
    how.add_argument(
        "--monte-carlo",
        action="store_const",
        const="monte_carlo",
        dest="evaluator",
        help="simulate even when the exact evaluator could be used",
    )
    options.set_defaults(evaluator="auto")
    return options


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mathhammer", description="What happens when one unit attacks another.")
    parser.add_argument("--debug", action="store_true", help="show tracebacks for errors")
    sub = parser.add_subparsers(dest="command", required=True)
    evaluation = _evaluation_options()
    sim = sub.add_parser(
        "simulate",
        parents=[evaluation],
        help="evaluate a scenario file (exactly when possible, else 1,000,000 trials of Monte Carlo)",
    )
    sim.add_argument("scenario", help="scenario TOML file")
    sim.add_argument("--json", action="store_true", help="print the Result as JSON")
    sim.add_argument(
        "--full", action="store_true", help="show every value of a wide distribution (default: at most 60 rows)"
    )
    plot = sub.add_parser(
        "plot",
        parents=[evaluation],
        help="chart the distributions of models destroyed and damage (several files: side by side)",
    )
    plot.add_argument(
        "scenarios", nargs="+", metavar="file", help="scenario files, or profile libraries with -a/-t (every pairing)"
    )
    plot.add_argument("-o", "--output", required=True, help="image to write: .png, .svg or .html")
    plot.add_argument("-a", "--attacker", action="append", help="from libraries: an attacker, by name (repeat)")
    plot.add_argument("-t", "--target", action="append", help="from libraries: a target, by name (repeat)")
    plot.add_argument(
        "--weapons",
        action="store_true",
        help="chart each weapon's mean damage and mortal wounds instead (one scenario or pairing)",
    )
    comp = sub.add_parser(
        "compare",
        parents=[evaluation],
        help="every attacker against every target: expected models destroyed, damage, P(unit destroyed)",
    )
    comp.add_argument(
        "files", nargs="+", metavar="file", help="profile libraries and/or scenario files giving attackers and targets"
    )
    comp.add_argument("-a", "--attacker", action="append", help="an attacker to compare, by name (repeat; default all)")
    comp.add_argument("-t", "--target", action="append", help="a target to compare, by name (repeat; default all)")
    comp.add_argument(
        "--target-library",
        action="append",
        metavar="FILE",
        help="take the targets from this profile library (repeat), the attackers from the files;"
        " then also rank each attacker's best and worst targets and the best attacker against each target",
    )
    comp.add_argument(
        "--metric",
        action="append",
        type=_metric,
        help=f"what to show: {', '.join(ALL_METRICS)}, destroyed:GROUP for P(that group destroyed), damage:WEAPON"
        " for the mean wounds lost to one weapon, or mortal_wounds:WEAPON (repeat; the first ranks; default the"
        " first three, and the efficiency ones the profiles' points allow)",
    )
    comp.add_argument("--plot", metavar="IMAGE", help="also draw the matrices as heatmaps: .png, .svg or .html")
    comp.add_argument("--json", action="store_true", help="print every cell's Result as JSON")
    sweep = sub.add_parser(
        "sweep",
        help="every attacker against every target, in every context and rule version, into a Parquet dataset",
    )
    sweep.add_argument("description", help="sweep description TOML file (libraries, contexts, versions)")
    sweep.add_argument(
        "-o", "--output", required=True, help="directory of the dataset (cells already there are skipped)"
    )
    sweep.add_argument(
        "--scheduler", metavar="ADDRESS", help="run on a Dask cluster, such as tcp://HOST:8786 (default: here)"
    )
    sweep.add_argument("--workers", type=_threads, default=0, help="tasks at once here (default: every core)")
    sweep.add_argument("--threads", type=_threads, default=1, help="core threads per task (default 1)")
    sweep.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks for errors")
    expl = sub.add_parser("explain", help="resolve one attack die by die and tell it step by step")
    expl.add_argument("scenario", help="scenario TOML file")
    expl.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks for errors")
    dice = expl.add_mutually_exclusive_group()
    dice.add_argument("--seed", type=_seed, default=None, help="seed for the dice (default: random, and printed)")
    dice.add_argument("--dice", type=_dice, help='the dice to use, in order, such as "3,5,6,2,4" (a worked example)')
    expl.add_argument("--json", action="store_true", help="print the dice, the events and the narration as JSON")
    imp = sub.add_parser(
        "import",
        help="read an army list (BattleScribe .ros/.rosz, NewRecruit or ListForge JSON) into a profile library",
    )
    imp.add_argument("list", help="the list builder's export")
    imp.add_argument("-o", "--output", required=True, help="the profile library (TOML) to write")
    imp.add_argument("--format", help="the list's format, by importer name (default: recognised from the file)")
    imp.add_argument(
        "--attach",
        nargs=2,
        action="append",
        metavar=("LEADER", "UNIT"),
        help="the unit LEADER leads UNIT: both become one target, LEADER + UNIT (repeat)",
    )
    imp.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks for errors")
    serve = sub.add_parser("serve", help="start the local web page (needs mathhammer[web])")
    serve.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks for errors")
    serve.add_argument(
        "--host",
        default=None,
        help="address to listen on (default 127.0.0.1, this computer only; another address lets others in)",
    )
    serve.add_argument("--port", type=_port, default=8000, help="port to listen on (default 8000; 0 picks a free one)")
    serve.add_argument("--open", action="store_true", help="open the page in a web browser")
    serve.add_argument(
        "--max-trials",
        type=_positive,
        default=10_000_000,
        help="the most Monte Carlo trials one request may ask for (default 10,000,000)",
    )
    plugins = sub.add_parser("plugins", help="list installed rulesets, their keywords and the plugins behind them")
    plugins.add_argument("--json", action="store_true", help="print the list as JSON")
    return parser


EXIT_INPUT = 2
"""Exit status for an error in the user's input, or a file that cannot be read or written."""
EXIT_PLUGIN = 3
"""Exit status for a plugin's fault: a keyword or ruleset that made an invalid Plan, or plugins in conflict."""

PIPE_WIDTH = 200
"""Columns of a report written to a pipe or file, where nothing would wrap it: wide tables stay whole."""


MIN_WIDTH = 20
"""Fewer columns than this (``COLUMNS=0``) cannot show a report: such a width is ignored."""


def _stdout() -> Console:
    """The console reports go to: the terminal's width on a terminal, else :data:`PIPE_WIDTH` (or ``$COLUMNS``).

    A width under :data:`MIN_WIDTH` is a mistake (``COLUMNS=0`` printed nothing
    at all): the report goes out at 80 columns on a terminal, else PIPE_WIDTH.
    """
    console = Console(highlight=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console.width = PIPE_WIDTH
    if console.width < MIN_WIDTH:
        console.width = 80 if console.is_terminal else PIPE_WIDTH
    return console


class _Run:
    """The state of one command: its registry, and the progress of the evaluation under way."""

    def __init__(self, args: argparse.Namespace, registry: Registry) -> None:
        self.args = args
        self.registry = registry
        self.progress: ProgressBar | None = None

    def evaluate(self, path: str, *, description: str = "simulating") -> Result:
        """Load and evaluate one scenario file as the command's options say, with a progress bar."""
        scenario = load_scenario(path, registry=self.registry)
        with ProgressBar(Console(stderr=True), description=markup(description)) as self.progress:
            return evaluate(
                scenario,
                evaluator=self.args.evaluator,
                trials=self.args.trials,
                seed=self.args.seed,
                threads=self.args.threads,
                registry=self.registry,
                progress=self.progress,
            )

    def check_pairings(self, files: Sequence[str], most: int) -> None:
        """Refuse, before evaluating anything, more pairings than ``most`` (a chart could not show them)."""
        from mathhammer.compare import read_profiles

        profiles = read_profiles(files, registry=self.registry)
        pairings = len(profiles.select("attacker", self.args.attacker)) * len(
            profiles.select("target", self.args.target)
        )
        if pairings > most:
            raise ScenarioError(
                f"the files give {pairings} pairings, too many to chart readably (at most {most}); pick some with"
                " -a NAME and -t NAME (repeat each), or draw the whole library as heatmaps with"
                " 'mathhammer compare FILE --plot IMAGE'"
            )

    def compare(self, files: Sequence[str]) -> Comparison:
        """Every attacker against every target the files give (or those ``-a``/``-t`` pick), with progress bars."""
        from mathhammer.compare import compare, read_profiles

        profiles = read_profiles(files, registry=self.registry)
        libraries = getattr(self.args, "target_library", None)
        attackers = profiles.select("attacker", self.args.attacker)
        targets = (read_profiles(libraries, registry=self.registry) if libraries else profiles).select(
            "target", self.args.target
        )
        if not attackers or not targets:
            kind = "attacker" if not attackers else "target"
            raise ScenarioError(
                f"the files give no {kind}s: a scenario file gives one through its [{kind}] table,"
                f" a profile library through [{kind}s.NAME] tables"
            )

        def progress(attacker: str, target: str) -> ProgressBar:
            if self.progress is not None:
                self.progress.close()  # one bar at a time: the sweep's gives way to this cell's
            self.progress = ProgressBar(Console(stderr=True), description=markup(f"{attacker} vs {target}"))
            return self.progress

        self.progress = ProgressBar(Console(stderr=True), description="pairings", unit="pairings")
        sweep = self.progress
        try:
            return compare(
                attackers,
                targets,
                evaluator=self.args.evaluator,
                trials=self.args.trials,
                seed=self.args.seed,
                threads=self.args.threads,
                registry=self.registry,
                progress=progress,
                pairings=sweep,
            )
        finally:
            sweep.close()
            if self.progress is not None:
                self.progress.close()


def _simulate(run: _Run) -> int:
    result = run.evaluate(run.args.scenario)
    if run.args.json:
        print(json.dumps(result.to_dict(), indent=2))
    else:
        _stdout().print(report.render(result, full=run.args.full))
    return 0


def _plot(run: _Run) -> int:
    from mathhammer import plotting
    from mathhammer.compare import is_library

    args = run.args
    plotting.check_output(args.output)
    if args.attacker or args.target or any(is_library(path) for path in args.scenarios):
        run.check_pairings(args.scenarios, plotting.MAX_PANELS)
        comparison = run.compare(args.scenarios)
        figure = comparison.plot_distributions()
        results = {f"{a} vs {t}": result for (a, t), result in comparison.results.items()}
    else:
        evaluated = [run.evaluate(path, description=f"simulating {Path(path).name}") for path in args.scenarios]
        if len(evaluated) > plotting.MAX_OVERLAID:
            raise ScenarioError(
                f"{len(evaluated)} scenario files are too many for one chart (at most {plotting.MAX_OVERLAID});"
                " plot fewer, or put their profiles in a library and compare them"
            )
        names = plotting.legend_names(evaluated, [Path(path).name for path in args.scenarios])
        results = dict(zip(names, evaluated, strict=True))
        # Every stage a ruleset shows as a distribution (a fight's rounds and both sides' losses too).
        stages = list(dict.fromkeys(name for result in evaluated for name in result.distributions))
        figure = plotting.distribution_figure(results, stages)
    title = plotting.chart_title(list(results.values()))
    extra = "".join(f"<h2>{html.escape(name)}</h2>{result._repr_html_()}" for name, result in results.items())
    if args.weapons:
        if len(results) != 1:
            raise ScenarioError(
                f"charts the weapons of one scenario or pairing, and {len(results)} were given; name one file, or"
                " one attacker (-a) and one target (-t)",
                field="--weapons",
            )
        figure = plotting.weapons_figure(next(iter(results.values())))
    written = plotting.save(figure, args.output, title=title, extra_html=extra)
    print(printable(f"wrote {written}"))
    return 0


def _compare(run: _Run) -> int:
    args = run.args
    if args.plot:
        from mathhammer.plotting import check_output

        check_output(args.plot)
    comparison = run.compare(args.files)
    metrics = args.metric or comparison.default_metrics()
    rank = (args.metric[0] if args.metric else comparison.rank_metric()) if args.target_library else None
    if args.json:
        print(json.dumps(comparison.to_dict(), indent=2))
    else:
        _stdout().print(report.render_comparison(comparison, metrics, rank=rank))
    if args.plot:
        from mathhammer import plotting

        written = plotting.save(comparison.plot(metrics), args.plot, title="mathhammer compare")
        print(printable(f"wrote {written}"), file=sys.stderr if args.json else sys.stdout)
    return 0


def _import(run: _Run) -> int:
    from mathhammer.importers import import_list

    args = run.args
    attach = [(leader, unit) for leader, unit in args.attach or ()]
    imported = import_list(args.list, format=args.format, registry=run.registry, attach=attach)
    imported.write(args.output)
    attackers = sum(len(u.attackers) for u in imported.units)
    targets = sum(u.target is not None for u in imported.units)
    points = sum(u.points or 0 for u in imported.units if not u.parts)  # an attached unit's are its parts' points
    print(
        printable(
            f"wrote {args.output}: {targets} targets, {attackers} attackers, {points:g} points,"
            f" from a {imported.format}"
        )
    )
    if imported.unmapped:
        print(printable(f"{len(imported.unmapped)} items not mapped (also listed at the top of {args.output}):"))
        for item in imported.unmapped:
            print(printable(f"  {item}"))
    if imported.notes:
        print(printable("notes:"))
        for note in imported.notes:
            print(printable(f"  {note}"))
    return 0


def _sweep(run: _Run) -> int:
    from mathhammer.extras import require
    from mathhammer.sweeps import sweep

    args = run.args
    client = None
    if args.scheduler:
        distributed = require("distributed", "sweep", feature="--scheduler")
        client = distributed.Client(args.scheduler, timeout="30s")
    bar = ProgressBar(Console(stderr=True), description="sweeping")
    try:
        with bar:
            summary = sweep(
                args.description,
                args.output,
                client=client,
                registry=run.registry,
                workers=args.workers,
                threads=args.threads,
                progress=bar,
            )
    except KeyboardInterrupt:
        done = f"after {bar.done:,} of {bar.total:,} cells" if bar.total else "before a cell finished"
        print(
            printable(
                f"mathhammer: interrupted {done}; the rows finished are in {args.output}:"
                " run the same command again to resume"
            ),
            file=sys.stderr,
        )
        return 130
    finally:
        if client is not None:
            client.close()
    failed = f", {summary.failed:,} of them failed (see the error column)" if summary.failed else ""
    skipped = f"; {summary.skipped:,} were there already" if summary.skipped else ""
    print(
        printable(
            f"{summary.cells:,} cells: wrote {summary.written:,}{failed}{skipped}, to {summary.directory}"
            f" in {summary.seconds:.1f} s"
        )
    )
    return 0


def _explain(run: _Run) -> int:
    from mathhammer.face.explain import explain

    args = run.args
    scenario = load_scenario(args.scenario, registry=run.registry)
    told = explain(scenario, seed=args.seed, dice=args.dice, registry=run.registry)
    if args.json:
        print(json.dumps(told.to_dict(), indent=2))
        return 0
    print(printable(told.to_text()))
    if told.seed is not None:
        print(f"\nseed {told.seed} ({len(told.dice)} dice); the same --seed tells the same attack")
    return 0


def _serve(run: _Run) -> int:
    from mathhammer.face.web.serve import serve

    args = run.args
    return serve(
        host=args.host, port=args.port, open_browser=args.open, max_trials=args.max_trials, registry=run.registry
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    run: _Run | None = None
    debug = False
    try:
        _startup.restore()  # Ctrl-C is KeyboardInterrupt again, reported below
        args = _parser().parse_args(argv)
        debug = args.debug
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PluginWarning)  # each is in registry.broken, printed below
            registry = default_registry()
        for broken in registry.broken:
            state = "" if broken.error.startswith("skipped") else "is broken: "
            print(printable(f"mathhammer: warning: plugin {broken.name!r} {state}{broken.error}"), file=sys.stderr)
        for conflict in registry.conflict_messages():
            print(printable(f"mathhammer: warning: {conflict}"), file=sys.stderr)
        if args.command == "plugins":
            data = inventory.describe(registry)
            print(json.dumps(data, indent=2) if args.json else printable(inventory.render(data)))
            return 0
        run = _Run(args, registry)
        return _COMMANDS[args.command](run)
    except KeyboardInterrupt:
        progress = run.progress if run else None
        done = f" after {progress.done:,} of {progress.total:,} {progress.unit}" if progress and progress.total else ""
        print(_startup.INTERRUPTED.replace("; ", f"{done}; "), file=sys.stderr)
        return 130
    except InternalError as exc:  # a panic in the core, caught at its boundary
        if debug:
            raise
        print(printable(f"mathhammer: internal error: {exc}"), file=sys.stderr)
        return 1
    except PluginError as exc:  # a plugin's fault, never the scenario's: no line of the file is quoted
        if debug:
            raise
        print(printable(f"mathhammer: plugin error: {exc}"), file=sys.stderr)
        return EXIT_PLUGIN
    except (MathhammerError, ValueError) as exc:
        if debug:
            raise
        print(printable(f"mathhammer: error: {exc}"), file=sys.stderr)
        quoted = _quote(exc)
        if quoted:
            print(printable(quoted), file=sys.stderr)
        return EXIT_INPUT
    except BrokenPipeError:  # the reader went away (| head): stop quietly, as other tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, what a shell reports for a program a closed pipe stopped
    except OSError as exc:  # writing an image or reading a file the scenario loader did not open
        if debug:
            raise
        where = f"{exc.filename}: " if exc.filename else ""
        print(printable(f"mathhammer: error: {where}{exc.strerror or exc}"), file=sys.stderr)
        return EXIT_INPUT
    except Exception as exc:  # a bug: say so briefly, and how to see more
        if debug:
            raise
        print(
            printable(f"mathhammer: internal error: {type(exc).__name__}: {exc}")
            + "\n  This is a bug in mathhammer or a plugin; run again with --debug for the traceback and report it.",
            file=sys.stderr,
        )
        return 1
    except BaseException as exc:
        # The core turns its panics into InternalError; should one slip past,
        # PyO3 raises PanicException, a BaseException no handler above sees.
        if debug or type(exc).__name__ != "PanicException":
            raise  # SystemExit from argparse, among others
        message = f"mathhammer: internal error: the Rust core panicked: {exc}; this is a bug, please report it."
        print(printable(message), file=sys.stderr)
        return 1


def _quote(exc: BaseException) -> str | None:
    """For an error about a field of a file: the line of the file it is on, to show under the message."""
    if not isinstance(exc, ScenarioError) or not exc.source or not exc.field:
        return None
    found = field_line(exc.source, exc.field)
    return f"  {exc.source}, line {found[0]}: {found[1]}" if found else None


_COMMANDS: dict[str, Callable[[_Run], int]] = {
    "simulate": _simulate,
    "plot": _plot,
    "compare": _compare,
    "sweep": _sweep,
    "explain": _explain,
    "import": _import,
    "serve": _serve,
}


if __name__ == "__main__":
    sys.exit(main())
