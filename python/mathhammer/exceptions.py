"""Every error mathhammer raises, rooted at :class:`MathhammerError`.

Errors about user input subclass :class:`ValueError` too, so code that already
catches ``ValueError`` keeps working.
Each message names the file, the field and the value, and says what would be right.
"""

from __future__ import annotations

from mathhammer._core import (
    DeclinedError,
    DiceError,
    HookError,
    InternalError,
    MathhammerError,
    PlanError,
    ScriptError,
)

__all__ = [
    "DeclinedError",
    "DiceError",
    "HookError",
    "InternalError",
    "KeywordError",
    "MathhammerError",
    "MissingDependencyError",
    "PlanError",
    "PluginConflictError",
    "PluginError",
    "PluginMismatchError",
    "PluginWarning",
    "RulesetError",
    "ScenarioError",
    "ScriptError",
    "UnknownKeywordError",
    "UnknownRulesetError",
]


class ScenarioError(MathhammerError, ValueError):
    """A scenario (a TOML file or Python objects) that cannot be simulated.

    Attributes:
        message: What was wrong and what would be right, without the file and field.
        source: The file the scenario came from, or ``None`` for Python objects.
        field: Dotted path of the offending field, such as ``attacker.weapons[0].skill``.
    """

    def __init__(self, message: str, *, source: str | None = None, field: str | None = None) -> None:
        self.message = message
        self.source = source
        self.field = field
        where = ", ".join(p for p in (source, f"field {field}" if field else None) if p)
        super().__init__(f"{where}: {message}" if where else message)


class UnknownRulesetError(ScenarioError):
    """The scenario names a ruleset no installed plugin provides."""


class UnknownKeywordError(ScenarioError):
    """A weapon lists a keyword its ruleset does not know."""


class PluginError(MathhammerError):
    """A plugin failed to load or raised inside a hook."""


class KeywordError(PluginError):
    """A keyword's ``apply`` raised, or produced a Plan the core rejects: a fault of the plugin, not the scenario.

    The message reads ``keyword Z (plugin P, distribution D) produced an invalid plan: <field and reason>``.

    Attributes:
        keyword: The keyword's name.
        plugin: The plugin (entry point) that registered it.
        distribution: The distribution that installed the plugin, or ``None`` for one registered in-process.
        reason: What went wrong: the field the core refused and why, or the exception the keyword raised.
    """

    def __init__(self, keyword: str, plugin: str, distribution: str | None, reason: str) -> None:
        self.keyword = keyword
        self.plugin = plugin
        self.distribution = distribution
        self.reason = reason
        dist = distribution or "none, registered in-process"
        super().__init__(f"keyword {keyword} (plugin {plugin}, distribution {dist}) produced an invalid plan: {reason}")


class RulesetError(PluginError):
    """A ruleset compiled a Plan the core rejects, and none of its keywords is to blame."""


class PluginConflictError(PluginError):
    """Two plugins claim the same ruleset, or the same keyword within one ruleset."""


class PluginMismatchError(PluginError):
    """The workers of a sweep have other plugins, or other versions of them, than the machine that sends the work;
    the message names each worker, plugin and version."""


class MissingDependencyError(MathhammerError, ImportError):
    """An optional feature needs a package that is not installed; the message names the ``pip install`` to run."""


class PluginWarning(UserWarning):
    """A plugin was skipped (it needs another hook API); the others keep working."""
