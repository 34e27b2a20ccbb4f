"""Weapon keywords: what a plugin registers, and how a ruleset finds and applies them.

A keyword is data plus two callables: ``parse`` recognises its datasheet
spelling (``Sustained Hits D3``, ``Anti-Infantry 4+``) and returns its
parameters, and ``apply`` edits the Plan the ruleset is building.
What ``apply`` receives is the ruleset's contract with its keywords; each
ruleset documents it.

Every ruleset resolves and applies keywords through :class:`KeywordTable`, so
spellings and errors are the same in every game:

- a spelling matches in any case, with any spacing, inside ``[...]``, and with
  or without a colon before its value (``Sustained Hits 1``, ``[SUSTAINED HITS: 1]``);
- one string may list several, separated by commas, as datasheets print them
  (``[ASSAULT, HEAVY]``); :func:`split_keywords` splits it;
- a keyword that changes nothing in the calculation at hand is accepted and
  reported, never dropped silently: its spec carries ``no_effect`` (it never
  changes one attack calculation), or its ``apply`` returns the reason it
  changed nothing this time; :meth:`KeywordTable.apply` returns that reason,
  and the ruleset records it as a :class:`NoEffect` in the Result;
- an unknown spelling, or a known one with a bad value, is a
  :class:`~mathhammer.exceptions.ScenarioError` at the scenario's field;
- ``apply`` raising ``ValueError`` rejects the weapon as written (a
  ``ScenarioError`` at the keyword's field); any other exception from ``apply``
  is the plugin's fault, a :class:`~mathhammer.exceptions.KeywordError` naming
  the keyword, its plugin and its distribution, never the scenario file.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mathhammer import _core
from mathhammer.exceptions import (
    DiceError,
    KeywordError,
    PlanError,
    PluginConflictError,
    ScenarioError,
    UnknownKeywordError,
)
from mathhammer.versions import Rule

_VALUE = re.compile(r"\s*(\d|[dD]\d|[dD]\b|\()")
"""What starts a keyword's value after a colon: a number, a dice expression or ``(X)``."""


def normalise(text: str) -> str:
    """A datasheet spelling without its brackets, outer spaces and repeated spaces.

    A colon before a value becomes a space, so ``Name: X`` reads as ``Name X``;
    a colon before words (``Lethal Hits: Vehicle``) is kept, for
    :func:`split_restriction`.

    >>> normalise("[SUSTAINED  HITS: 1]")
    'SUSTAINED HITS 1'
    >>> normalise("Lethal Hits: Vehicle")
    'Lethal Hits: Vehicle'
    """
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    name, colon, rest = text.partition(":")
    if colon and _VALUE.match(rest):
        text = f"{name} {rest}"
    return re.sub(r"\s+", " ", text.strip())


def split_keywords(text: str) -> list[str]:
    """The keyword spellings in one string, as datasheets list them: split at commas, brackets kept per part.

    Empty parts (``"Assault,,Heavy"``) are skipped; a string with nothing else
    is returned as it is, so its error names it.

    >>> split_keywords("[ASSAULT, HEAVY]")
    ['ASSAULT', 'HEAVY']
    >>> split_keywords("Rapid Fire D3, [Lethal Hits: Vehicle]")
    ['Rapid Fire D3', '[Lethal Hits: Vehicle]']

    Commas inside parentheses or brackets belong to their keyword:

    >>> split_keywords("Multiple Wounds (D3, Clipped Wings), Lethal Strike")
    ['Multiple Wounds (D3, Clipped Wings)', 'Lethal Strike']
    """
    outer = text.strip()
    if outer.startswith("[") and outer.endswith("]") and "]" not in outer[1:-1]:
        outer = outer[1:-1]
    parts, depth, start = [], 0, 0
    for i, char in enumerate(outer):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth = max(depth - 1, 0)
        elif char == "," and depth == 0:
            parts.append(outer[start:i])
            start = i + 1
    parts.append(outer[start:])
    stripped = [part.strip() for part in parts]
    return [part for part in stripped if part] or [text]


def split_restriction(text: str) -> tuple[str, str | None]:
    """``("Lethal Hits", "VEHICLE")`` for ``Lethal Hits: VEHICLE``; ``(text, None)`` when there is none.

    A restriction is words after a colon (a target keyword the ability is limited to);
    a value after a colon (``Sustained Hits: 1``) is not one.

    >>> split_restriction("[Lethal Hits: Vehicle]")
    ('Lethal Hits', 'Vehicle')
    >>> split_restriction("Sustained Hits: D3")
    ('Sustained Hits D3', None)
    """
    spelling, colon, restriction = normalise(text).partition(":")
    if not colon:
        return spelling, None
    return spelling.strip(), restriction.strip()


def exact_name(name: str) -> Callable[[str], Mapping[str, Any] | None]:
    """A parser that accepts the keyword's name alone, in any case."""

    wanted = re.sub(r"\s+", " ", name.strip()).casefold()

    def parse(text: str) -> Mapping[str, Any] | None:
        return {} if re.sub(r"\s+", " ", text.strip()).casefold() == wanted else None

    return parse


def _words(text: str) -> str:
    return re.sub(r"\s+", " ", text.strip()).casefold()


def with_value(name: str, kind: str = "dice", *, optional: bool = False) -> Callable[[str], Mapping[str, Any] | None]:
    """A parser for ``Name X``: ``{"x": value}``, or ``{"x": None}`` when ``optional`` and X is absent.

    ``kind`` is ``"dice"`` (``Sustained Hits D3``: X is a dice expression,
    checked by the core's parser), ``"int"`` (``Melta 2``: a whole number from
    1 to 100) or ``"roll"`` (``X+`` or ``X``: an int).
    Text that starts with the name but has a bad X raises ``ValueError``
    saying what is wrong, so the user is not told the keyword is unknown;
    an X that is always 0 is refused, since the keyword would do nothing.

    >>> with_value("Sustained Hits")("sustained hits d3")
    {'x': 'D3'}
    >>> with_value("Blast", optional=True)("Blast")
    {'x': None}
    """
    prefix = _words(name)

    def parse(text: str) -> Mapping[str, Any] | None:
        words = _words(text)
        if words == prefix:
            if optional:
                return {"x": None}
            raise ValueError(f"{name} needs a value, as in {name} {'4+' if kind == 'roll' else 1}")
        if not words.startswith(prefix + " "):
            return None
        value = words[len(prefix) + 1 :]
        if kind == "int":
            if not value.isdigit() or not 1 <= int(value) <= 100:
                raise ValueError(f"{name} takes a whole number from 1 to 100, not {value!r}")
            return {"x": int(value)}
        if kind == "roll":
            m = re.fullmatch(r"(\d+)\+?", value)
            if m is None:
                raise ValueError(f"{name} takes a roll such as 4+, not {value!r}")
            return {"x": int(m.group(1))}
        try:
            dice = _core.parse_dice(value)
        except ValueError as exc:
            raise ValueError(f"{name} takes a number or dice expression: {exc}") from None
        if dice.max < 1:  # "Sustained Hits 0": listed, yet it would never do anything
            raise ValueError(f"{name} {dice} does nothing: X must be at least 1, as in {name} 1 or {name} D3")
        return {"x": str(dice)}

    return parse


@dataclass(frozen=True)
class NoEffect:
    """A keyword the scenario lists that changes nothing in this calculation, and why.

    Attributes:
        keyword: The keyword as the scenario spelled it.
        reason: Why it changes nothing here, in a sentence a player reads.
        where: What lists it, such as the weapon's name ("" when the ruleset names nothing).
    """

    keyword: str
    reason: str
    where: str = ""

    def __str__(self) -> str:
        where = f"{self.where}: " if self.where else ""
        return f"{where}{self.keyword}: {self.reason}"

    def to_dict(self) -> dict[str, str]:
        return {"keyword": self.keyword, "where": self.where, "reason": self.reason}


def _nothing(rules: Any) -> None:
    """The ``apply`` of a keyword with no effect on the calculation."""


@dataclass(frozen=True)
class KeywordSpec:
    """One keyword of one ruleset.

    Attributes:
        ruleset: Name of the ruleset it belongs to, such as ``"wh40k"``.
        name: Its canonical datasheet name, such as ``"Sustained Hits"``.
        apply: Edits the Plan; its arguments are documented by the ruleset.
        parse: Returns parameters for a datasheet spelling that is this
            keyword, or ``None`` for any other text. Defaults to the name alone.
        description: One line for ``mathhammer plugins``.
        rule: The keyword's versions, when it changed between editions; the
            ruleset resolves the version a weapon uses and hands it to ``apply``.
        repeatable: Whether one weapon may list it more than once with
            different parameters (Anti-Infantry 4+ and Anti-Vehicle 2+). Other
            keywords listed twice with different values are refused, since
            the same ability from two sources does not stack.
        no_effect: Why the keyword never changes one attack calculation
            (One Shot: it fires once per battle), for a keyword accepted so
            datasheets load as printed; ``None`` for a keyword that acts.
            :meth:`without_effect` builds such a spec.
        printed_in: For a keyword with a ``rule``: given the parameters
            ``parse`` returned, the version of the rule that prints this
            spelling, when only one does (``Blast 2``: 11th edition's), else
            ``None``. The ruleset resolving the keyword's version honours it
            (``wh40k`` does): a weapon so spelled follows that version unless
            the scenario chooses one (per weapon, per rule or by edition); a
            choice of another version is refused, naming the field that made
            it. The Result says which version ran and why.

    ``apply`` returns ``None`` once it has edited the Plan, or a sentence saying
    why it changed nothing this time (Melta when the target is not within half
    range); the Result lists that sentence.
    """

    ruleset: str
    name: str
    apply: Callable[..., str | None]
    parse: Callable[[str], Mapping[str, Any] | None] | None = None
    description: str = ""
    rule: Rule | None = None
    repeatable: bool = False
    no_effect: str | None = None
    printed_in: Callable[[Mapping[str, Any]], str | None] | None = None

    @classmethod
    def without_effect(
        cls,
        ruleset: str,
        name: str,
        reason: str,
        *,
        parse: Callable[[str], Mapping[str, Any] | None] | None = None,
        description: str = "",
    ) -> KeywordSpec:
        """A keyword accepted as printed that never changes one attack calculation, for ``reason``.

        >>> spec = KeywordSpec.without_effect("wh40k", "One Shot", "it fires once per battle")
        >>> spec.match("[ONE SHOT]"), spec.no_effect
        ({}, 'it fires once per battle')
        """
        return cls(
            ruleset, name, _nothing, parse=parse, description=description or f"no effect: {reason}", no_effect=reason
        )

    def match(self, text: str) -> Mapping[str, Any] | None:
        """Parameters if ``text`` spells this keyword, else ``None``."""
        return (self.parse or exact_name(self.name))(normalise(text))


def _claims(spec: KeywordSpec, text: str) -> bool:
    """Whether ``spec`` recognises ``text`` as its keyword, even with a value it refuses."""
    try:
        return spec.match(text) is not None
    except ValueError:
        return True


def conflict_message(what: str, plugins: list[str]) -> str:
    """The error for a name (``"ruleset 'toy'"``) that several plugins registered, naming each."""
    names = " and ".join(f"plugin {p!r}" for p in plugins)
    return (
        f"{what} is registered by both {names}, so neither is used;"
        " uninstall or block one (MATHHAMMER_DISABLED_PLUGINS)"
    )


@dataclass
class KeywordTable:
    """The keywords registered for one ruleset, with the plugin and distribution each came from."""

    ruleset: str
    specs: dict[str, KeywordSpec] = field(default_factory=dict)
    origin: dict[str, str] = field(default_factory=dict)
    distribution: dict[str, str | None] = field(default_factory=dict)
    """Keyword name to the distribution that installed its plugin (``None``: registered in-process)."""
    conflicts: dict[str, tuple[list[KeywordSpec], list[str]]] = field(default_factory=dict)
    """Names two or more plugins registered, to their specs and those plugins: such a keyword is disabled."""

    def names(self) -> list[str]:
        return sorted(self.specs)

    def add(self, spec: KeywordSpec, plugin: str, distribution: str | None = None) -> None:
        """Add ``plugin``'s keyword; a name (in any case) another plugin registered disables both."""
        key = spec.name.casefold()
        if key in self.conflicts:
            self.conflicts[key][0].append(spec)
            self.conflicts[key][1].append(plugin)
            return
        same = next((name for name in self.specs if name.casefold() == key), None)
        if same is not None:
            self.distribution.pop(same, None)
            self.conflicts[key] = ([self.specs.pop(same), spec], [self.origin.pop(same), plugin])
            return
        self.specs[spec.name] = spec
        self.origin[spec.name] = plugin
        self.distribution[spec.name] = distribution

    def resolve(self, text: str) -> tuple[KeywordSpec, Mapping[str, Any]] | None:
        """The keyword that accepts ``text`` and its parameters, or ``None``.

        Raises:
            ValueError: when ``text`` is a keyword's name with a bad value.
            PluginConflictError: when ``text`` is a keyword two plugins registered, naming both.
        """
        for specs, plugins in self.conflicts.values():
            if any(_claims(spec, text) for spec in specs):
                raise PluginConflictError(
                    conflict_message(f"keyword {specs[0].name!r} of ruleset {self.ruleset!r}", plugins)
                )
        for spec in self.specs.values():
            params = spec.match(text)
            if params is not None:
                return spec, params
        return None

    def lookup(
        self,
        text: str,
        *,
        source: str | None,
        field: str,
        prefix: str = "",
        known: list[str] | None = None,
        what: str | None = None,
        known_as: str = "keywords",
        hint: str = "",
    ) -> tuple[KeywordSpec, dict[str, Any]]:
        """The keyword ``text`` spells and its parameters, or an error at ``field`` of ``source``.

        Args:
            text: The spelling as the scenario wrote it.
            source: The scenario's file, for the error.
            field: The dotted path of the spelling, for the error.
            prefix: Prepended to ``text`` before matching, for keywords a ruleset names in
                a family of its own (``"Inflict "``); the error shows ``text`` alone.
            known: The names to list when ``text`` is unknown (default: every keyword).
            what: What ``text`` should have been, for the error (default: a keyword of this ruleset).
            known_as: What the error calls the known names it lists.
            hint: Appended to the error, such as the ``pip install`` that provides more.

        Raises:
            UnknownKeywordError: when no keyword accepts ``text``, listing the known ones.
            ScenarioError: when ``text`` names a keyword with a bad value.
        """
        try:
            match = self.resolve(prefix + text)
        except ValueError as exc:
            raise ScenarioError(f"{text!r}: {exc}", source=source, field=field) from None
        if match is None:
            names = self.names() if known is None else known
            listed = ", ".join(n.removeprefix(prefix) for n in names) or "none are installed"
            what = what or f"a keyword of ruleset {self.ruleset!r}"
            known_as = f" {known_as}" if known_as else ""
            raise UnknownKeywordError(
                f"{text!r} is not {what}; known{known_as}: {listed}{hint}", source=source, field=field
            )
        return match[0], dict(match[1])

    def apply(self, spec: KeywordSpec, rules: Any, *, source: str | None, field: str) -> str | None:
        """Run ``spec.apply(rules)`` under the one error policy every ruleset shares.

        Returns:
            ``None`` when the keyword acted, else the reason it changed nothing
            (what ``apply`` returned, or the spec's ``no_effect``), for the
            ruleset to report as a :class:`NoEffect`.

        Raises:
            ScenarioError: when ``apply`` raises ``ValueError`` (the keyword rejects the
                weapon as written), at ``field`` of ``source``.
            KeywordError: for anything else ``apply`` raises, naming the keyword,
                its plugin and its distribution.
        """
        try:
            reason = spec.apply(rules)
        except ScenarioError:
            raise
        except (PlanError, DiceError) as exc:
            raise self.error(spec, f"{type(exc).__name__}: {exc}") from exc
        except ValueError as exc:
            raise ScenarioError(str(exc), source=source, field=field) from None
        except Exception as exc:
            raise self.error(spec, f"{type(exc).__name__} raised while applying it at {field}: {exc}") from exc
        if reason is not None and not (isinstance(reason, str) and reason.strip()):
            raise self.error(
                spec, f"apply returned {reason!r}; it returns None, or a sentence saying why it did nothing"
            )
        return reason if reason is not None else spec.no_effect

    def error(self, spec: KeywordSpec, reason: str) -> KeywordError:
        """A :class:`KeywordError` blaming ``spec`` for ``reason``."""
        plugin = self.origin.get(spec.name, "?")
        return KeywordError(spec.name, plugin, self.distribution.get(spec.name), reason)

    def replacing(self, name: str, spec: KeywordSpec) -> KeywordTable:
        """A copy of the table with the keyword ``name`` replaced by ``spec`` (same origin)."""
        return KeywordTable(self.ruleset, {**self.specs, name: spec}, dict(self.origin), dict(self.distribution))

    def mapped(self, change: Callable[[KeywordSpec], KeywordSpec]) -> KeywordTable:
        """A copy of the table with every keyword passed through ``change``."""
        specs = {name: change(spec) for name, spec in self.specs.items()}
        return KeywordTable(self.ruleset, specs, dict(self.origin), dict(self.distribution))
