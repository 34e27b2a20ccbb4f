"""Reading scenario tables with errors a person can act on.

Ruleset plugins read their part of a scenario through :class:`Fields`, which
knows the file and the dotted path of every value, refuses unknown keys (with
a suggestion for a likely typo), and says what a right value looks like.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from typing import Any, NoReturn

from mathhammer import _core
from mathhammer.exceptions import DiceError, ScenarioError

_MISSING: Any = object()

ROLL = re.compile(r"\s*(\d+)\s*\+?\s*")
"""A roll characteristic as text: ``"3+"``, ``"3"``, with spaces allowed."""


def roll_number(value: Any) -> Any:
    """The number a roll written as text names (``"3+"`` is 3); any other value as it is.

    Python objects accept what a scenario file does with this; a value it
    leaves alone (``"3++"``, ``3.5``) is refused by the ruleset's checks,
    which name the field.
    """
    if isinstance(value, str):
        match = ROLL.fullmatch(value)
        if match is not None:
            return int(match.group(1))
    return value


def accept_rolls(obj: Any, *names: str) -> None:
    """In a frozen dataclass's ``__post_init__``: each field of ``names`` written ``"3+"`` becomes 3.

    So ``Weapon(skill="3+")`` means what ``skill = "3+"`` means in a scenario file.
    """
    for name in names:
        object.__setattr__(obj, name, roll_number(getattr(obj, name)))


class Fields:
    """One table of a scenario, at ``path`` in ``source``.

    Every accessor records the key it read; :meth:`done` then rejects any key
    nobody read, so a misspelt field is an error instead of being ignored.
    """

    def __init__(self, data: Mapping[str, Any], path: str = "", source: str | None = None) -> None:
        if not isinstance(data, Mapping):
            raise ScenarioError(f"must be a table, not {_show(data)}", source=source, field=path or None)
        self.data = data
        self.path = path
        self.source = source
        self._read: set[str] = set()

    def field(self, key: str) -> str:
        """Dotted path of ``key`` in this table."""
        return f"{self.path}.{key}" if self.path else key

    def fail(self, key: str, message: str) -> NoReturn:
        """Raise a :class:`ScenarioError` about ``key``."""
        raise ScenarioError(message, source=self.source, field=self.field(key))

    def has(self, key: str) -> bool:
        return key in self.data

    def _get(self, key: str, default: Any) -> Any:
        self._read.add(key)
        if key in self.data:
            return self.data[key]
        if default is _MISSING:
            # A misspelt key is the usual cause: name it.
            unread = [k for k in self.data if k not in self._read and isinstance(k, str)]
            close = difflib.get_close_matches(key, unread, n=1)
            hint = f"; the table has {close[0]!r}: did you mean {key!r}?" if close else ""
            self.fail(key, f"is required but missing{hint}")
        return default

    def text(self, key: str, default: Any = _MISSING, *, choices: tuple[str, ...] | None = None) -> Any:
        value = self._get(key, default)
        if value is default and default is not _MISSING:
            return value
        if not isinstance(value, str):
            self.fail(key, f"must be text, not {_show(value)}")
        if choices is not None and value not in choices:
            self.fail(key, f"is {value!r}; expected one of {', '.join(map(repr, choices))}")
        return value

    def integer(self, key: str, default: Any = _MISSING, *, min: int | None = None, max: int | None = None) -> Any:
        value = self._get(key, default)
        if value is default and default is not _MISSING:
            return value
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(key, f"must be a whole number, not {_show(value)}")
        if min is not None and value < min:
            self.fail(key, f"is {value}; it must be at least {min}")
        if max is not None and value > max:
            self.fail(key, f"is {value}; it must be at most {max}")
        return value

    def flag(self, key: str, default: Any = _MISSING) -> Any:
        value = self._get(key, default)
        if not isinstance(value, bool):
            self.fail(key, f"must be true or false, not {_show(value)}")
        return value

    def roll(self, key: str, default: Any = _MISSING, *, best: int = 2, worst: int = 6) -> Any:
        """A roll characteristic written ``"3+"`` (or the number 3): the lowest roll that succeeds."""
        value = self._get(key, default)
        if value is default and default is not _MISSING:
            return value
        text = str(value) if isinstance(value, int) and not isinstance(value, bool) else value
        match = ROLL.fullmatch(text) if isinstance(text, str) else None
        if match is None:
            self.fail(key, f'is {_show(value)}; write a roll such as "3+"')
        n = int(match.group(1))
        if not best <= n <= worst:
            self.fail(key, f"is {_show(value)}; it must be between {best}+ and {worst}+")
        return n

    def dice(self, key: str, default: Any = _MISSING) -> Any:
        """A dice expression (``"D6+1"``, ``"2"`` or the number 2), checked by the core's parser."""
        value = self._get(key, default)
        if value is default and default is not _MISSING:
            return value
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            self.fail(key, f'must be a number or a dice expression such as "D6+1", not {_show(value)}')
        try:
            return str(_core.parse_dice(str(value)))
        except DiceError as exc:
            self.fail(key, str(exc))

    def texts(self, key: str, default: Any = _MISSING) -> Any:
        value = self._get(key, default)
        if value is default and default is not _MISSING:
            return value
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.fail(key, f"must be a list of text, not {_show(value)}")
        return list(value)

    def table(self, key: str, default: Any = _MISSING) -> Any:
        value = self._get(key, default)
        if value is default and default is not _MISSING:
            return value
        return Fields(value, self.field(key), self.source)

    def tables(self, key: str, default: Any = _MISSING) -> Any:
        """An array of tables (``[[attacker.weapons]]``)."""
        value = self._get(key, default)
        if value is default and default is not _MISSING:
            return value
        if not isinstance(value, list):
            self.fail(key, f"must be an array of tables ([[{self.field(key)}]]), not {_show(value)}")
        return [Fields(v, f"{self.field(key)}[{i}]", self.source) for i, v in enumerate(value)]

    def done(self) -> None:
        """Reject keys that no accessor read."""
        for key in self.data:
            if key not in self._read:
                close = difflib.get_close_matches(key, sorted(self._read), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else f"; known fields: {', '.join(sorted(self._read))}"
                self.fail(key, f"is not a known field{hint}")


def _show(value: Any) -> str:
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, Mapping):
        return "a table"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__
