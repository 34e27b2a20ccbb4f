"""Everything a ruleset or keyword plugin needs, in one module.

A plugin imports from here (and its tests from :mod:`mathhammer.testing`),
never from the modules behind it, which may move between releases::

    from mathhammer.plugin import Effect, KeywordRegistrar, KeywordSpec, hookimpl, with_value

    @hookimpl
    def mathhammer_register_keywords(register: KeywordRegistrar) -> None:
        register(KeywordSpec("wh40k", "Sustained Hits", apply=..., parse=with_value("Sustained Hits")))

What is here:

- the hook API: :data:`hookimpl`, :data:`HOOK_API_VERSION`, and the
  registrar types the hooks receive;
- what a plugin registers: :class:`KeywordSpec`, the :class:`Ruleset`
  protocol and the :class:`Compiled` scenario it returns, :class:`Rule`
  (rules with versions) and the version choice a scenario makes;
- keyword spellings and their one error policy: :class:`KeywordTable`
  (``lookup`` and ``apply``), :func:`exact_name`, :func:`with_value`,
  :func:`normalise`, :func:`split_keywords`, :func:`split_restriction`, and
  :class:`NoEffect` for keywords accepted that change nothing here;
- the Plan builders (:class:`Plan`, :class:`AttackPool`, :class:`Test`,
  :class:`Effect`, ...), documented in ``docs/architecture.md``;
- reading scenario tables (:class:`Fields`), dice (:func:`parse_dice`) and
  the core's limits (all of them are in :mod:`mathhammer.limits`);
- the errors a plugin raises or meets.

A plugin that needs a hook API other than this one declares it with a
module-level ``MATHHAMMER_HOOK_API = <version>``; the registry then skips it
with a warning naming it, and every other plugin keeps working.
"""

from __future__ import annotations

from mathhammer._core import DiceExpr, parse_dice
from mathhammer.exceptions import (
    DiceError,
    HookError,
    KeywordError,
    MathhammerError,
    PlanError,
    PluginError,
    PluginWarning,
    RulesetError,
    ScenarioError,
    UnknownKeywordError,
)
from mathhammer.fields import Fields, accept_rolls
from mathhammer.hookspecs import HOOK_API_VERSION, hookimpl
from mathhammer.importers import (
    ImportedList,
    ImportedUnit,
    Importer,
    ImporterRegistrar,
    TableCheck,
    Unmapped,
    parse_json,
    parse_xml,
    read_list,
    unzip_one,
)
from mathhammer.keywords import (
    KeywordSpec,
    KeywordTable,
    NoEffect,
    exact_name,
    normalise,
    split_keywords,
    split_restriction,
    with_value,
)
from mathhammer.limits import MAX_ATTACKS, MAX_MODELS, MAX_ROUNDS, MAX_TOKENS_PER_TRIAL, MAX_VALUE
from mathhammer.plan import (
    AttackPool,
    Attacks,
    BatchHook,
    Check,
    Class,
    Compare,
    Contest,
    ContestSide,
    Effect,
    Excess,
    Group,
    Heal,
    Mark,
    MortalWounds,
    Outcome,
    Plan,
    Reroll,
    RerollWhen,
    RollDie,
    Rolls,
    Rounds,
    Save,
    SpecialSave,
    Target,
    Test,
    TopThreshold,
    WhileAlive,
)
from mathhammer.registry import KeywordRegistrar, RulesetRegistrar
from mathhammer.result import Chance
from mathhammer.ruleset import Compiled, ProfileFormat, Ruleset, Vocabulary
from mathhammer.versions import Rule, VersionChoice, check_choice, describe

__all__ = [
    "HOOK_API_VERSION",
    "MAX_ATTACKS",
    "MAX_MODELS",
    "MAX_ROUNDS",
    "MAX_TOKENS_PER_TRIAL",
    "MAX_VALUE",
    "AttackPool",
    "Attacks",
    "BatchHook",
    "Chance",
    "Check",
    "Class",
    "Compare",
    "Compiled",
    "Contest",
    "ContestSide",
    "DiceError",
    "DiceExpr",
    "Effect",
    "Excess",
    "Fields",
    "Group",
    "Heal",
    "HookError",
    "ImportedList",
    "ImportedUnit",
    "Importer",
    "ImporterRegistrar",
    "KeywordError",
    "KeywordRegistrar",
    "KeywordSpec",
    "KeywordTable",
    "Mark",
    "MathhammerError",
    "MortalWounds",
    "NoEffect",
    "Outcome",
    "Plan",
    "PlanError",
    "PluginError",
    "PluginWarning",
    "ProfileFormat",
    "Reroll",
    "RerollWhen",
    "RollDie",
    "Rolls",
    "Rounds",
    "Rule",
    "Ruleset",
    "RulesetError",
    "RulesetRegistrar",
    "Save",
    "ScenarioError",
    "SpecialSave",
    "TableCheck",
    "Target",
    "Test",
    "TopThreshold",
    "UnknownKeywordError",
    "Unmapped",
    "VersionChoice",
    "Vocabulary",
    "WhileAlive",
    "accept_rolls",
    "check_choice",
    "describe",
    "exact_name",
    "hookimpl",
    "normalise",
    "parse_dice",
    "parse_json",
    "parse_xml",
    "read_list",
    "split_keywords",
    "split_restriction",
    "unzip_one",
    "with_value",
]
