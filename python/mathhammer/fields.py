"""Reading scenario tables with errors a person can act on.

Ruleset plugins read their part of a scenario through :class:`Fields`, which
knows the file and the dotted path of every value, refuses unknown keys (with
a suggestion for a likely typo), and says what a right value looks like.

The same accessors also describe a ruleset's fields: :func:`describe` runs the
ruleset's own ``load`` on a recording table that notes every accessor called,
with its kind, default and bounds, so the description (which builds the web
page's form) and the validation of scenario files cannot drift apart.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator, Mapping
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
        self._recording = data if isinstance(data, _Recording) else None

    @property
    def describing(self) -> bool:
        """True while :func:`describe` records the fields a ``load`` reads.

        A ruleset whose files come in kinds told apart by a table's presence
        (``has``) reads every kind's fields then, so each is described.
        """
        return self._recording is not None

    def field(self, key: str) -> str:
        """Dotted path of ``key`` in this table."""
        return f"{self.path}.{key}" if self.path else key

    def fail(self, key: str, message: str) -> NoReturn:
        """Raise a :class:`ScenarioError` about ``key``.

        While :func:`describe` records, a check across fields is passed over
        instead, so the fields read after it are recorded too.
        """
        if self._recording is not None:
            return  # type: ignore[misc]
        raise ScenarioError(message, source=self.source, field=self.field(key))

    def has(self, key: str) -> bool:
        if self._recording is not None:
            # A field read through ``data`` after ``has``: its kind is unknown, text serves.
            return self._recording.note(key, "any", None) is not None
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
        if self._recording is not None:
            return self._recording.note(key, "text", default, choices=list(choices) if choices else None)
        value = self._get(key, default)
        if value is default and default is not _MISSING:
            return value
        if not isinstance(value, str):
            self.fail(key, f"must be text, not {_show(value)}")
        if choices is not None and value not in choices:
            self.fail(key, f"is {value!r}; expected one of {', '.join(map(repr, choices))}")
        return value

    def integer(self, key: str, default: Any = _MISSING, *, min: int | None = None, max: int | None = None) -> Any:
        if self._recording is not None:
            return self._recording.note(key, "integer", default, min=min, max=max)
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
        if self._recording is not None:
            return self._recording.note(key, "flag", default)
        value = self._get(key, default)
        if not isinstance(value, bool):
            self.fail(key, f"must be true or false, not {_show(value)}")
        return value

    def roll(self, key: str, default: Any = _MISSING, *, best: int = 2, worst: int = 6) -> Any:
        """A roll characteristic written ``"3+"`` (or the number 3): the lowest roll that succeeds."""
        if self._recording is not None:
            return self._recording.note(key, "roll", default, min=best, max=worst)
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
        if self._recording is not None:
            return self._recording.note(key, "dice", default)
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
        if self._recording is not None:
            return self._recording.note(key, "texts", default)
        value = self._get(key, default)
        if value is default and default is not _MISSING:
            return value
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.fail(key, f"must be a list of text, not {_show(value)}")
        return list(value)

    def table(self, key: str, default: Any = _MISSING) -> Any:
        if self._recording is not None:
            return Fields(self._recording.child(key, "table", default), self.field(key), self.source)
        value = self._get(key, default)
        if value is default and default is not _MISSING:
            return value
        return Fields(value, self.field(key), self.source)

    def tables(self, key: str, default: Any = _MISSING) -> Any:
        """An array of tables (``[[attacker.weapons]]``)."""
        if self._recording is not None:
            return [Fields(self._recording.child(key, "tables", default), f"{self.field(key)}[]", self.source)]
        value = self._get(key, default)
        if value is default and default is not _MISSING:
            return value
        if not isinstance(value, list):
            self.fail(key, f"must be an array of tables ([[{self.field(key)}]]), not {_show(value)}")
        return [Fields(v, f"{self.field(key)}[{i}]", self.source) for i, v in enumerate(value)]

    def done(self) -> None:
        """Reject keys that no accessor read."""
        if self._recording is not None:
            return
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


# -------------------------------------------------------------------------
# Describing a ruleset's fields, from the accessors its ``load`` calls
# -------------------------------------------------------------------------

MAX_RECORDINGS = 64
"""The most times :func:`describe` runs a ruleset's ``load``: once as written, then once per other choice of a field."""


class _Take:
    """One recording run of a ruleset's ``load``: what it read, and the values to give it back."""

    def __init__(self, overrides: Mapping[str, Any]) -> None:
        self.overrides = overrides
        self.fields: dict[str, dict[str, Any]] = {}
        self.given: dict[str, Any] = {}
        self.open: set[str] = set()
        self._count = 0

    def value(self, path: str, kind: str, default: Any, spec: dict[str, Any]) -> Any:
        """A value the accessor could have returned: the override, else as if absent, else a valid one."""
        if path in self.overrides:
            return self.overrides[path]
        if default is not _MISSING:
            return default
        if kind == "text":
            return spec["choices"][0] if spec.get("choices") else path
        if kind == "integer":
            # Distinct rising values, so checks such as "major above minor" hold.
            self._count += 1
            low = spec["min"] if spec.get("min") is not None else 0
            value = low + self._count
            return min(value, spec["max"]) if spec.get("max") is not None else value
        if kind == "roll":
            return spec["min"]
        if kind == "dice":
            return "1"
        if kind == "flag":
            return False
        if kind == "texts":
            return []
        return None


class _Recording(Mapping[str, Any]):
    """The data a recording :class:`Fields` reads: empty, noting each key asked for and any iteration."""

    def __init__(self, take: _Take, path: str) -> None:
        self.take = take
        self.path = path

    def __getitem__(self, key: str) -> Any:
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        # A table whose keys the ruleset reads by iterating takes any name (rule versions by rule name).
        self.take.open.add(self.path)
        return iter(())

    def __len__(self) -> int:
        return 0

    def _at(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def note(self, key: str, kind: str, default: Any, **bounds: Any) -> Any:
        path = self._at(key)
        spec: dict[str, Any] = {"key": key, "kind": kind, "required": default is _MISSING}
        if default is not _MISSING and default is not None:
            spec["default"] = list(default) if isinstance(default, (list, tuple)) else default
        spec.update({k: v for k, v in bounds.items() if v is not None})
        self.take.fields.setdefault(path, spec)
        value = self.take.value(path, kind, default, spec)
        self.take.given[path] = value
        return value

    def child(self, key: str, kind: str, default: Any) -> _Recording:
        path = self._at(key)
        self.take.fields.setdefault(path, {"key": key, "kind": kind, "required": default is _MISSING})
        return _Recording(self.take, f"{path}[]" if kind == "tables" else path)


def _record(ruleset: Any, overrides: Mapping[str, Any]) -> _Take:
    take = _Take(overrides)
    try:
        ruleset.load(_Recording(take, ""), None)
    except ValueError:
        # Checks across fields may refuse the values given back (a ScenarioError is a ValueError);
        # every field read before that is recorded, and other takes read the rest.
        pass
    return take


def describe(ruleset: Any) -> dict[str, Any]:
    """The fields a ruleset's scenario files may hold, as plain data for building a form.

    The ruleset's own ``load`` is run on recording tables (see the module), so
    the description is the one its validation applies: each field's ``key``,
    ``kind`` (``text``, ``integer``, ``flag``, ``roll``, ``dice``, ``texts``,
    ``any``, or ``table`` and ``tables`` with their own ``fields``), whether it
    is ``required``, its ``default``, ``choices`` and ``min``/``max`` (for a
    roll, the best and worst roll).
    A field the ruleset reads only for some value of a sibling choice carries
    ``when``: that sibling's key and the values it reads it for.
    A table whose keys are free (rule name to version) has ``open`` set.

    A ruleset whose ``load`` does not read through :class:`Fields` gets an
    empty description; its scenarios are then written as TOML.
    """
    base = _record(ruleset, {})
    takes: dict[tuple[str, Any], _Take] = {}
    for path, spec in list(base.fields.items()):
        for choice in spec.get("choices") or ():
            if choice != base.given.get(path) and len(takes) < MAX_RECORDINGS - 1:
                takes[path, choice] = _record(ruleset, {path: choice})
    fields = dict(base.fields)
    for take in takes.values():
        for path, spec in take.fields.items():
            fields.setdefault(path, spec)
    conditions = {path: _condition(path, base, takes) for path in fields}
    opened = set(base.open).union(*(t.open for t in takes.values()))
    root: dict[str, Any] = {"key": "", "kind": "table", "required": True, "fields": []}
    nodes: dict[str, dict[str, Any]] = {"": root}
    for path, spec in fields.items():
        parent = path.rpartition(".")[0] if "." in path else ""
        node = {**spec, **({"when": conditions[path]} if conditions[path] else {})}
        if spec["kind"] in ("table", "tables"):
            inner = f"{path}[]" if spec["kind"] == "tables" else path
            node["fields"] = []
            node["open"] = inner in opened
            nodes[inner] = node
        nodes[parent]["fields"].append(node)
    return root


def _condition(path: str, base: _Take, takes: Mapping[tuple[str, Any], _Take]) -> dict[str, Any] | None:
    """For a field read in some takes only: the sibling choice whose value decides it, and those values."""
    if all(path in take.fields for take in (base, *takes.values())):
        return None
    parent = path.rpartition(".")[0]
    for choice_path in dict.fromkeys(p for p, _ in takes):
        if choice_path.rpartition(".")[0] != parent:
            continue
        others = [take for (p, _), take in takes.items() if p != choice_path]
        if any((path in take.fields) != (path in base.fields) for take in others):
            continue
        values = [base.given.get(choice_path)] if path in base.fields else []
        values += [value for (p, value), take in takes.items() if p == choice_path and path in take.fields]
        return {"key": choice_path.rpartition(".")[2], "values": values}
    return None
