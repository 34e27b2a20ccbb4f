"""A pytest plugin for testing mathhammer plugins, and a toy ruleset to test them on.

Load it with ``pytest_plugins = "mathhammer.testing"`` in a ``conftest.py``
(installing mathhammer registers it with pytest already).
Fixtures never read installed entry points, so a test sees exactly the
plugins it asks for.

The toy ruleset (``ruleset = "toy"``) is a whole game in a few lines, written
against :mod:`mathhammer.plugin` alone as any ruleset plugin is: one pool of
attacks rolls to hit, the target saves, each unsaved attack deals damage.
Its keywords come from a separate plugin, as a game's keywords do:

- ``Extra Hits X``: each critical hit (a 6) scores X more hits;
- ``Deadly``: each critical hit skips the save (version ``"unsaved"``, the
  default) or inflicts one mortal wound and ends (version ``"mortal"``).

A keyword's ``apply`` receives a :class:`ToyRules`. A scenario file::

    ruleset = "toy"
    attacks = 6         # a dice expression
    hit = "4+"
    save = "5+"         # optional; none when left out
    damage = "1"        # a dice expression
    keywords = ["Extra Hits 1"]
    models = 5          # of the target
    wounds = 1          # each
    rules = { Deadly = "mortal" }  # optional: a version per rule

:func:`toy_registry` gives a registry of the toy ruleset, its keywords and
any plugins under test, for ``mathhammer.simulate(..., registry=...)``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any

import numpy as np
import pytest

from mathhammer import _core
from mathhammer.plugin import (
    AttackPool,
    Attacks,
    Compiled,
    Effect,
    Fields,
    Group,
    KeywordRegistrar,
    KeywordSpec,
    KeywordTable,
    Plan,
    Rule,
    RulesetRegistrar,
    Save,
    ScenarioError,
    Target,
    Test,
    VersionChoice,
    check_choice,
    hookimpl,
    with_value,
)
from mathhammer.registry import Registry
from mathhammer.result import Result, Stage

# -------------------------------------------------------------------------
# The toy ruleset
# -------------------------------------------------------------------------

TOY_VERSION = "1.0"
TOY_LABELS = {"attacks": "Attacks", "hits": "Hits", "failed_saves": "Failed saves", "mortal_wounds": "Mortal wounds"}


@dataclass(frozen=True)
class ToyScenario:
    """One pool of attacks against one target, the toy ruleset's whole scenario."""

    attacks: str = "6"
    hit: int = 4
    damage: str = "1"
    save: int | None = None
    keywords: tuple[str, ...] = ()
    target_keywords: tuple[str, ...] = ()
    """The target's keywords (upper case), for abilities limited to some targets."""
    models: int = 5
    wounds: int = 1
    rules: VersionChoice = field(default_factory=VersionChoice)
    source: str | None = None
    ruleset: str = "toy"


@dataclass
class ToyRules:
    """What a toy keyword's ``apply`` receives.

    Attributes:
        scenario: The scenario being compiled.
        pool: The Plan's attack pool.
        hit: Its hit test (criticals on a 6).
        params: What the keyword's ``parse`` returned.
        version: The version of the keyword's rule in force, or ``None`` when it has none.
    """

    scenario: ToyScenario
    pool: AttackPool
    hit: Test
    params: Mapping[str, Any]
    version: str | None = None


class ToyRuleset:
    """The toy ruleset: attacks roll to hit, then the target saves."""

    name = "toy"
    title = "Toy ruleset"
    version = TOY_VERSION
    own_keywords = frozenset({"Extra Hits", "Deadly"})
    """The keywords that are the game's own; others are additions by third-party plugins."""

    def load(self, data: Mapping[str, Any], source: str | None) -> ToyScenario:
        f = Fields(data, source=source)
        f.text("ruleset")
        rules = f.table("rules", None)
        choice = VersionChoice(rules={key: rules.text(key) for key in rules.data} if rules else {})
        scenario = ToyScenario(
            attacks=f.dice("attacks"),
            hit=f.roll("hit"),
            damage=f.dice("damage", "1"),
            save=f.roll("save", None),
            keywords=tuple(f.texts("keywords", [])),
            target_keywords=tuple(k.upper() for k in f.texts("target_keywords", [])),
            models=f.integer("models", 5, min=1, max=1000),
            wounds=f.integer("wounds", 1, min=1, max=1000),
            rules=choice,
            source=source,
        )
        f.done()
        return scenario

    def compile(self, scenario: Any, keywords: KeywordTable) -> Compiled:
        if not isinstance(scenario, ToyScenario):
            raise ScenarioError(f"the toy ruleset compiles a ToyScenario, not {type(scenario).__name__}")
        source = scenario.source
        rules = {spec.rule.name: spec.rule for spec in keywords.specs.values() if spec.rule is not None}
        check_choice(scenario.rules, rules, (), source=source)
        hit = Test(name="hit", target=scenario.hit, natural_fail=1, critical=6, counter="hits")
        pool = AttackPool(
            name="attacks",
            attacks=[Attacks(models=1, dice=scenario.attacks)],
            attacks_counter="attacks",
            steps=[hit],
            save=Save(counter="failed_saves"),
            damage=scenario.damage,
            mortal_counter="mortal_wounds",
        )
        versions: dict[str, str] = {}
        for j, text in enumerate(scenario.keywords):
            where = f"keywords[{j}]"
            spec, params = keywords.lookup(text, source=source, field=where)
            version = scenario.rules.resolve(spec.rule, source=source) if spec.rule is not None else None
            if spec.rule is not None and version is not None:
                versions[spec.rule.name] = version
            toy = ToyRules(scenario=scenario, pool=pool, hit=hit, params=params, version=version)
            keywords.apply(spec, toy, source=source, field=where)
        group = Group(name="target", models=scenario.models, wounds=scenario.wounds, save=scenario.save)
        plan = Plan(
            counters=["attacks", "hits", "failed_saves", "mortal_wounds"],
            target=Target(groups=[group], order=[0]),
            sequences=[pool],
        )
        # The versions are recorded without saying what they do: the framework
        # takes each sentence from the keyword's rule.
        return Compiled(plan=plan, rule_versions=versions, stage_labels=dict(TOY_LABELS))


def _extra_hits(rules: ToyRules) -> None:
    rules.hit.effects.append(Effect(on="critical", action="extra", amount=str(rules.params["x"])))


DEADLY = Rule(
    "Deadly",
    versions={
        "unsaved": "the toy rules: a critical hit deals its damage with no save",
        "mortal": "the toy rules, second printing: a critical hit inflicts one mortal wound instead, and the attack "
        "ends",
    },
    default="unsaved",
)


def _deadly(rules: ToyRules) -> None:
    if rules.version == "mortal":
        effect = Effect(on="critical", action="mortal", amount="1", ends_attack=True)
    else:
        effect = Effect(on="critical", action="unsaved")
    rules.hit.effects.append(effect)


TOY_KEYWORDS = (
    KeywordSpec(
        "toy",
        "Extra Hits",
        apply=_extra_hits,
        parse=with_value("Extra Hits"),
        description="each critical hit scores X more hits",
    ),
    KeywordSpec("toy", "Deadly", apply=_deadly, rule=DEADLY, description="a critical hit skips the save"),
)
"""The toy ruleset's own keywords."""


class _ToyRulesetPlugin:
    @staticmethod
    @hookimpl
    def mathhammer_register_rulesets(register: RulesetRegistrar) -> None:
        register(ToyRuleset())


class _ToyKeywordsPlugin:
    @staticmethod
    @hookimpl
    def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
        for spec in TOY_KEYWORDS:
            register(spec)


toy_ruleset_plugin: object = _ToyRulesetPlugin()
"""A plugin registering the toy ruleset."""

toy_keywords_plugin: object = _ToyKeywordsPlugin()
"""A plugin registering the toy ruleset's keywords (:data:`TOY_KEYWORDS`)."""


def toy_registry(*plugins: tuple[str, object]) -> Registry:
    """A registry of the toy ruleset, its keywords and the given ``(name, plugin)`` pairs.

    >>> import mathhammer
    >>> registry = toy_registry()
    >>> result = mathhammer.evaluate_exact(ToyScenario(attacks="6", hit=4), registry=registry)
    >>> round(result["hits"].mean, 12)
    3.0
    """
    return Registry.from_plugins([("toy", toy_ruleset_plugin), ("toy-keywords", toy_keywords_plugin), *plugins])


# -------------------------------------------------------------------------
# Fixtures and assertions
# -------------------------------------------------------------------------


@pytest.fixture
def make_registry() -> Callable[..., Registry]:
    """Build a :class:`~mathhammer.registry.Registry` from ``(name, plugin)`` pairs."""

    def make(*plugins: tuple[str, object]) -> Registry:
        return Registry.from_plugins(plugins)

    return make


@pytest.fixture
def plugin_manager(make_registry: Callable[..., Registry]) -> Iterator[Registry]:
    """An empty registry; register more with ``registry.manager.register`` then ``collect()``."""
    registry = make_registry()
    yield registry
    for plugin in list(registry.manager.get_plugins()):
        registry.manager.unregister(plugin)


def simulate_plan(plan: Plan, trials: int, seed: int) -> list[Any]:
    """Run a Plan straight in the core (Monte Carlo, one thread) and return its histograms, one per counter.

    For testing what the core does with a Plan edited by hand (a batch hook
    swapped for a broken one, say), without a ruleset compiling it.
    """
    return list(_core.simulate(plan.compile(), trials, seed))


def simulate_die_by_die(scenario: Any, trials: int, seed: int, *, registry: Registry | None = None) -> Result:
    """:func:`mathhammer.simulate` rolling every die, never drawing from the fast path's tables.

    The two draw from the same distribution; a test checks a rule on both.
    """
    from mathhammer.simulate import prepare, simulate_prepared

    return simulate_prepared(prepare(scenario, registry=registry), trials, seed, 1, None, die_by_die=True)


def run_cli(argv: list[str]) -> int:
    """Run the ``mathhammer`` command line in-process; returns its exit status (capture output with ``capsys``)."""
    from mathhammer.face.cli import main

    return main(argv)


def assert_mean(stage: Stage, exact: float, *, z: float = 5.0) -> None:
    """Assert a simulated mean is within ``z`` standard errors of an exact value.

    The standard error comes from the run itself; use a fixed seed so the test
    never flakes. A stage whose value never varied must match exactly.
    """
    se = stage.se
    if se == 0.0:
        assert stage.mean == pytest.approx(exact, abs=1e-12), f"{stage.name}: {stage.mean} != {exact}"
        return
    off = (stage.mean - exact) / se
    assert abs(off) < z, f"{stage.name}: mean {stage.mean:.5f} is {off:.1f} standard errors from exact {exact:.5f}"


def plugin_object(**hooks: Callable[..., Any]) -> object:
    """A plugin made of the given hook functions, for registering in tests.

    >>> import mathhammer
    >>> @mathhammer.hookimpl
    ... def mathhammer_register_rulesets(register): ...
    >>> plugin = plugin_object(mathhammer_register_rulesets=mathhammer_register_rulesets)
    """
    return type("Plugin", (), {name: staticmethod(fn) for name, fn in hooks.items()})()


def assert_same_distribution(a: Stage, b: Stage, *, alpha: float = 1e-6) -> None:
    """Assert two simulated stages come from the same distribution.

    A chi-square two-sample test over the values, pooling neighbouring values
    until each cell holds at least 50 trials of the two runs together, at
    significance ``alpha`` (small, so a suite of such checks with fixed seeds
    never flakes). The quantile is Wilson and Hilferty's approximation. Use it
    to hold two implementations of one rule to each other.
    """
    counts_a = np.rint(a.pmf * a.trials)
    counts_b = np.rint(b.pmf * b.trials)
    size = max(len(counts_a), len(counts_b))
    counts_a = np.pad(counts_a, (0, size - len(counts_a)))
    counts_b = np.pad(counts_b, (0, size - len(counts_b)))
    ka, kb = math.sqrt(b.trials / a.trials), math.sqrt(a.trials / b.trials)
    chi2, cells, ca, cb = 0.0, 0, 0.0, 0.0
    for v in range(size):
        ca += counts_a[v]
        cb += counts_b[v]
        if ca + cb >= 50 or v == size - 1:
            if ca + cb > 0:
                chi2 += (ka * ca - kb * cb) ** 2 / (ca + cb)
                cells += 1
            ca = cb = 0.0
    k = max(cells - 1, 1)
    z = NormalDist().inv_cdf(1 - alpha)
    bound = k * (1 - 2 / (9 * k) + z * math.sqrt(2 / (9 * k))) ** 3
    assert chi2 < bound, f"{a.name}: chi-square {chi2:.1f} over {cells} cells exceeds {bound:.1f} (alpha {alpha})"
