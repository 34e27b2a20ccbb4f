"""mathhammer: what happens when one unit attacks another.

Whole distributions for tabletop wargames, simulated at millions of trials per
second by a Rust core, with every ruleset and weapon keyword a plugin.

    >>> import mathhammer
    >>> scenario = mathhammer.load_scenario("examples/boltguns.toml")  # doctest: +SKIP
    >>> mathhammer.simulate(scenario, trials=100_000, seed=1)["models_destroyed"].mean  # doctest: +SKIP
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from mathhammer import _startup as _startup  # first of all: a quiet Ctrl-C while the command starts (see the module)
from mathhammer._core import parse_dice
from mathhammer.compare import read_profiles
from mathhammer.exceptions import (
    DeclinedError,
    DiceError,
    HookError,
    InternalError,
    KeywordError,
    MathhammerError,
    MissingDependencyError,
    PlanError,
    PluginConflictError,
    PluginError,
    PluginMismatchError,
    PluginWarning,
    RulesetError,
    ScenarioError,
    ScriptError,
    UnknownKeywordError,
    UnknownRulesetError,
)
from mathhammer.hookspecs import hookimpl
from mathhammer.importers import ImportedList, import_list
from mathhammer.keywords import KeywordSpec
from mathhammer.registry import Registry, default_registry, load_registry
from mathhammer.result import GroupResult, Result, Stage
from mathhammer.ruleset import Compiled, Ruleset
from mathhammer.scenario import load_scenario, scenario_from_data
from mathhammer.simulate import compile_scenario, evaluate, evaluate_exact, replay, simulate
from mathhammer.sweeps import Sweep, SweepSummary, load_sweep, read_sweep, sweep

try:
    __version__ = version("mathhammer")
except PackageNotFoundError:  # running from a source tree without installing
    __version__ = "0.0.0"

__all__ = [
    "Compiled",
    "DeclinedError",
    "DiceError",
    "GroupResult",
    "HookError",
    "ImportedList",
    "InternalError",
    "KeywordError",
    "KeywordSpec",
    "MathhammerError",
    "MissingDependencyError",
    "PlanError",
    "PluginConflictError",
    "PluginError",
    "PluginMismatchError",
    "PluginWarning",
    "Registry",
    "Result",
    "Ruleset",
    "RulesetError",
    "ScenarioError",
    "ScriptError",
    "Stage",
    "Sweep",
    "SweepSummary",
    "UnknownKeywordError",
    "UnknownRulesetError",
    "__version__",
    "compile_scenario",
    "default_registry",
    "evaluate",
    "evaluate_exact",
    "hookimpl",
    "import_list",
    "load_registry",
    "load_scenario",
    "load_sweep",
    "parse_dice",
    "read_profiles",
    "read_sweep",
    "replay",
    "scenario_from_data",
    "simulate",
    "sweep",
]
