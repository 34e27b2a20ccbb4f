"""What a ruleset plugin provides: the :class:`Ruleset` protocol."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from mathhammer.keywords import KeywordTable, NoEffect
from mathhammer.plan import Plan
from mathhammer.result import Chance


@dataclass(frozen=True)
class Vocabulary:
    """The words reports use for the Plan's general terms, in the ruleset's own language.

    The framework names no game's terms; a ruleset whose game calls them otherwise (a d12
    system's Attack Rolls, Direct Damage and HP) gives its words here, and :mod:`explain
    <mathhammer.face.explain>` tells a trial in them. Nouns are (singular, plural).

    Attributes:
        attack_dice: What one attack die of a pool is called.
        mortal_wounds: Harm outside the damage and thresholds (``MortalWounds``, ``mortal`` effects).
        wounds: What a model or unit loses.
        damage: What an attack deals before the target's thresholds or wounds.
        critical: A critical outcome of a test.
        thresholds: Names of a group's damage thresholds, lowest first ("Minor", "Major", ...);
            empty: told as "its thresholds".
        classes: Words for each class of a roll of several dice (which compared die is higher).
        modifiers: What a test's summed modifiers are called when a roll of several dice is
            told as a sum ("Skill"); empty: shown as a number.
        no_save: How an attack dealing its damage past the save reads ("with no save"); empty
            in a game without saves.
        top_threshold: What an attack meeting a group's highest damage threshold sets off ("a
            Battle Shock test"); empty: nothing is told.
        lost: What the target loses to a weapon, as its stage and chart are headed ("HP lost");
            empty: the ``damage`` word heads the stage ("Damage: Lascannon", the wounds lost to it).
        made: How a pool's attack dice come to be, told before they roll ("gathered"; "made" for
            Attack Rolls).
        saves: The names of a group's save and invulnerable save ("Sv", "InSv"), as a save roll tells
            the profile it is rolled against.
        unsaved: What a failed save does ("inflicts damage"; "is not saved" for a wound).
        mortal_resolved: How ``mortal_wounds`` are resolved, spilling from model to model or not
            ("one at a time, spilling over"; "HP lost directly, no thresholds" for Direct Damage).
        removed: What happens to a model that loses its last wound, as a comparison's titles say it
            ("Expected models destroyed"; "removed" where the game removes models).
    """

    attack_dice: tuple[str, str] = ("attack die", "attack dice")
    mortal_wounds: tuple[str, str] = ("mortal wound", "mortal wounds")
    wounds: tuple[str, str] = ("wound", "wounds")
    damage: str = "damage"
    critical: str = "critical"
    thresholds: tuple[str, ...] = ()
    classes: Mapping[str, str] = field(
        default_factory=lambda: {
            "first_higher": "the first die is higher",
            "equal": "the two match",
            "second_higher": "the second die is higher",
        }
    )
    modifiers: str = ""
    no_save: str = "with no save"
    top_threshold: str = ""
    lost: str = ""
    made: str = "gathered"
    saves: tuple[str, str] = ("Sv", "InSv")
    unsaved: str = "inflicts damage"
    mortal_resolved: tuple[str, str] = ("one at a time, spilling over", "one at a time, not spilling over")
    removed: str = "destroyed"

    def noun(self, term: tuple[str, str], n: int) -> str:
        """``n`` and the singular or plural of ``term``: ``"2 mortal wounds"``."""
        return f"{n} {term[0] if n == 1 else term[1]}"

    @property
    def weapon_measures(self) -> tuple[str, str]:
        """What a weapon's two stages count, as charts head them: what the target lost to it, and its
        ``mortal_wounds``."""
        return (self.lost or f"{self.damage} ({self.wounds[1]} lost)", self.mortal_wounds[1])


@dataclass
class Compiled:
    """A scenario compiled by its ruleset.

    Attributes:
        plan: The Plan to run.
        rule_versions: Rule name to the version used, recorded in the Result.
        attacker: The attacking side's name, as charts and reports show it ("" when it has none).
        target: The target's name ("" when it has none).
        rule_descriptions: Rule name to what the version used does, in words
            (:func:`mathhammer.plugin.describe`): the reports print it.
        stage_labels: Counter name to a human label for tables.
        chances: Probabilities to report beside the stages (P(attacker wins)).
        distributions: Further stages whose distribution the Result shows (rounds fought).
    """

    plan: Plan
    rule_versions: dict[str, str] = field(default_factory=dict)
    stage_labels: dict[str, str] = field(default_factory=dict)
    chances: list[Chance] = field(default_factory=list)
    distributions: list[str] = field(default_factory=list)
    """Stages beyond damage and models destroyed whose whole distribution the Result shows."""
    hidden: list[str] = field(default_factory=list)
    """Stages whose mean means nothing (codes read through chances), left out of the tables."""
    no_effect: list[NoEffect] = field(default_factory=list)
    """Keywords the scenario lists that change nothing in this calculation, each with its reason."""
    # Newer fields go last, so positional construction written before them keeps working.
    rule_descriptions: dict[str, str] = field(default_factory=dict)
    attacker: str = ""
    target: str = ""
    modifiers: dict[str, list[str]] = field(default_factory=dict)
    """The modifiers in force for each attack pool (by the pool's name), each in words, for narration."""
    vocabulary: Vocabulary = field(default_factory=Vocabulary)
    """The ruleset's words for the Plan's general terms, for narration."""
    kinds: dict[int, str] = field(default_factory=dict)
    """What each sequence that is no attack is, by its index in ``plan.sequences`` ("Psychic Power"), for
    narration: it is headed so, and its own test is told rather than attack dice gathered."""


@dataclass(frozen=True)
class ProfileFormat:
    """How ``mathhammer compare`` splits a ruleset's scenarios into named attackers and targets, and joins
    an attacker and a target back into a scenario (see :mod:`mathhammer.compare`).

    A ruleset gives it as its optional ``profile_format`` attribute; without one its attacking side is
    the ``[attacker]`` table and every scenario can be a comparison's cell.

    Attributes:
        attacker_key: The top-level scenario key holding the attacking side. ``"attacker"``: the
            ``[attacker]`` table, which a library's ``[attackers.NAME]`` is. Any other key is held by
            the profile under its own name: The Ninth Age's attacks are a list, ``[[attack]]``, and a
            library's attacker is ``[[attackers.NAME.attack]]``.
        models: Whether ``models`` in the attacker table is the ruleset's own count of the unit's
            models (the d12 system's): it stays in the table, and the comparison reads it too. Without
            it, ``models`` on an attacker profile is the comparison's field alone and is taken out.
        refused: Top-level scenario keys that make a scenario no cell of a comparison (a fight of two
            units: a comparison tabulates one unit attacking another), each with the error that key
            gets, which says what to do instead ("makes a fight, ...; run it with ...").
    """

    attacker_key: str = "attacker"
    models: bool = False
    refused: Mapping[str, str] = field(default_factory=dict)


@runtime_checkable
class Ruleset(Protocol):
    """A game system: reads its scenario format and compiles it to a Plan.

    Attributes:
        name: Short unique name used in scenario files (``ruleset = "wh40k"``).
        version: Version of the plugin's implementation of the rules.
        title: Human name, such as "Warhammer 40,000".

    A ruleset may also have ``own_keywords``, the names of its game's own
    keywords (a set of str); ``mathhammer plugins`` then marks any other keyword
    registered for it as a third party's addition. It is optional, so it is
    read with ``getattr`` and not part of the protocol's checks. So is
    ``profile_format``, a :class:`ProfileFormat` saying how ``compare`` reads
    its profile libraries, when they differ from an ``[attacker]`` table.
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
