"""What a 40k keyword plugin's ``apply`` receives.

A keyword is registered with :class:`mathhammer.KeywordSpec` for ruleset
``"wh40k"``. While a scenario compiles, every pool of identical attacks whose
weapons list the keyword calls ``spec.apply(rules)`` once with a
:class:`WeaponRules`; ``apply`` edits ``rules.pool``, ``rules.hit`` and
``rules.wound`` (Plan primitives from :mod:`mathhammer.plugin`). Keywords apply
in the order the weapon lists them; a keyword listed twice with the same
parameters (in any spelling) applies once, since abilities do not stack.
A keyword with versions (``KeywordSpec.rule``) gets the version the scenario
selected in ``rules.version``; the Result records it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mathhammer.plugin import AttackPool, BatchHook, Group, MortalWounds, Test
from mathhammer_wh40k.model import Context, Scenario, Weapon


@dataclass
class WeaponRules:
    """One pool of identical attacks while it compiles.

    Attributes:
        weapons: The weapons pooled here (they share every rule, keywords included).
        scenario: The whole scenario (target keywords and models, modifiers).
        pool: The Plan's attack pool being built.
        hit: The pool's hit test (``automatic`` for weapons that hit automatically).
        wound: The pool's wound test.
        params: What the keyword's ``parse`` returned for this weapon's spelling.
        rule_versions: Rule name to version, as the Result reports them.
        version: The version of this keyword's rule to follow (``None`` if it has none).
        context: Situational facts (half range, charged, in cover, ...).
        after_attacks: Sequences to run after every pool (hazard tests); append to it.
        finalizers: Callables run after every keyword of this pool has applied,
            for rules that must see the others' edits (ignoring modifiers).
        target_groups: The target's allocation groups, by index (for focus and
            per-group save modifiers).
        flags: Facts a keyword states for the ruleset's own rules to read:
            ``"ignores_cover"``, ``"grants_cover"``, ``"psychic"`` (ignore
            harmful hit and BS modifiers), ``"pistol"``, ``"no_hit_rerolls"``.
        counters: The Plan's counters; add one for a new stage the Result reports.
        hooks: The Plan's batch hooks; use :meth:`add_batch_hook`.
    """

    weapons: list[Weapon]
    scenario: Scenario
    pool: AttackPool
    hit: Test
    wound: Test
    params: Mapping[str, Any]
    rule_versions: dict[str, str]
    version: str | None = None
    context: Context = field(default_factory=Context)
    after_attacks: list[MortalWounds] = field(default_factory=list)
    finalizers: list[Callable[[], None]] = field(default_factory=list)
    target_groups: list[Group] = field(default_factory=list)
    flags: set[str] = field(default_factory=set)
    counters: list[str] = field(default_factory=list)
    hooks: list[BatchHook] = field(default_factory=list)

    def add_batch_hook(self, hook: BatchHook) -> None:
        """Run ``hook`` on this pool's arrays between its tests and its save.

        For behaviour no Plan primitive expresses; see
        :meth:`mathhammer.plugin.Plan.add_hook` for the arrays. A pool takes one
        hook: a second keyword asking for one is refused.
        """
        if self.pool.batch_hook is not None:
            raise ValueError("this pool already has a batch hook; combine the keywords' hooks into one")
        if hook not in self.hooks:
            self.hooks.append(hook)
        self.pool.batch_hook = self.hooks.index(hook)

    @property
    def weapon(self) -> Weapon:
        """The first weapon of the pool (all share the same rules)."""
        return self.weapons[0]

    def target_has(self, keyword: str) -> bool:
        """Does the target unit have ``keyword`` (any case)?"""
        return keyword.casefold() in {k.casefold() for k in self.scenario.target.keywords}

    def target_models(self) -> int:
        """Models in the target unit when it was selected."""
        return sum(m.count for m in self.scenario.target.models)
