"""The ``mathhammer`` command line: ``simulate`` and ``plugins``.

Reports go to standard output through rich, which leaves out colour and
styles when the output is not a terminal; warnings, errors and the progress
bar go to standard error. Errors about the user's input print one message
naming the file and field, never a traceback (``--debug`` shows it).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from rich.console import Console

from mathhammer import report
from mathhammer.exceptions import MathhammerError
from mathhammer.progress import ProgressBar
from mathhammer.registry import Registry, default_registry
from mathhammer.scenario import load_scenario
from mathhammer.simulate import DEFAULT_TRIALS, evaluate


def _positive(text: str) -> int:
    try:
        value = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 0 <= value < 2**64:
        raise argparse.ArgumentTypeError(f"{text!r} must be from 0 to 2**64-1")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mathhammer", description="What happens when one unit attacks another.")
    parser.add_argument("--debug", action="store_true", help="show tracebacks for errors")
    sub = parser.add_subparsers(dest="command", required=True)
    sim = sub.add_parser(
        "simulate", help="evaluate a scenario file (exactly when possible, else 1,000,000 trials of Monte Carlo)"
    )
    sim.add_argument("scenario", help="scenario TOML file")
    sim.add_argument("--trials", type=_positive, default=DEFAULT_TRIALS, help="number of trials (default 1,000,000)")
    sim.add_argument("--seed", type=_seed, default=None, help="seed for reproducible results (default: random)")
    sim.add_argument("--threads", type=int, default=0, help="worker threads (default: every core)")
    sim.add_argument("--json", action="store_true", help="print the Result as JSON")
    how = sim.add_mutually_exclusive_group()
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
    sim.set_defaults(evaluator="auto")
    sub.add_parser("plugins", help="list installed rulesets, keywords and plugins")
    return parser


def _plugins(registry: Registry) -> str:
    lines = ["rulesets:"]
    for name, ruleset in sorted(registry.rulesets.items()):
        lines.append(f"  {name:<12} {ruleset.title} {ruleset.version}  (plugin {registry.ruleset_origin[name]})")
    if not registry.rulesets:
        lines.append("  (none)")
    lines.append("keywords:")
    tables = [t for t in registry.keywords.values() if t.specs]
    for table in sorted(tables, key=lambda t: t.ruleset):
        for name in table.names():
            lines.append(f"  {table.ruleset}: {name}  (plugin {table.origin[name]})")
    if not tables:
        lines.append("  (none)")
    lines.append("plugins:")
    for info in registry.plugins:
        where = f"{info.distribution} {info.version}" if info.distribution else "registered directly"
        lines.append(f"  {info.name:<24} {where}")
    for broken in registry.broken:
        lines.append(f"  {broken.name:<24} BROKEN: {broken.error}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = _parser().parse_args(argv)
    progress: ProgressBar | None = None
    try:
        registry = default_registry()
        for broken in registry.broken:
            print(f"mathhammer: warning: plugin {broken.name!r} is broken: {broken.error}", file=sys.stderr)
        if args.command == "plugins":
            print(_plugins(registry))
            return 0
        scenario = load_scenario(args.scenario, registry=registry)
        with ProgressBar(Console(stderr=True)) as bar:
            progress = bar
            result = evaluate(
                scenario,
                evaluator=args.evaluator,
                trials=args.trials,
                seed=args.seed,
                threads=args.threads,
                registry=registry,
                progress=progress,
            )
        if args.json:
            print(json.dumps(result.to_dict(), indent=2))
        else:
            Console(highlight=False).print(report.render(result))
        return 0
    except KeyboardInterrupt:
        done = f" after {progress.done:,} of {progress.total:,} trials" if progress and progress.total else ""
        print(f"mathhammer: interrupted{done}; no result was reported", file=sys.stderr)
        return 130
    except (MathhammerError, ValueError) as exc:
        if args.debug:
            raise
        print(f"mathhammer: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
