"""What a ruleset plugin provides: the :class:`Ruleset` protocol."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from mathhammer.keywords import KeywordTable
from mathhammer.plan import Plan


@dataclass
class Compiled:
    """A scenario compiled by its ruleset.

    Attributes:
        plan: The Plan to run.
        rule_versions: Rule name to the version used, recorded in the Result.
        stage_labels: Counter name to a human label for tables.
        attacker_losses: Reported numbers about the attacker (none yet in 40k).
    """

    plan: Plan
    rule_versions: dict[str, str] = field(default_factory=dict)
    stage_labels: dict[str, str] = field(default_factory=dict)


@runtime_checkable
class Ruleset(Protocol):
    """A game system: reads its scenario format and compiles it to a Plan.

    Attributes:
        name: Short unique name used in scenario files (``ruleset = "wh40k"``).
        version: Version of the plugin's implementation of the rules.
        title: Human name, such as "Warhammer 40,000".
    """

    name: str
    version: str
    title: str

    def load(self, data: Mapping[str, Any], source: str | None) -> Any:
        """Validate scenario data (a parsed TOML table) into the ruleset's objects.

        Raises:
            ScenarioError: naming ``source``, the field and the value.
        """

    def compile(self, scenario: Any, keywords: KeywordTable) -> Compiled:
        """Compile a loaded scenario to a Plan, applying its keywords."""
