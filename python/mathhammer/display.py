"""Showing the user's text safely: names, file names and quoted values, in reports and errors.

Text that comes from a scenario file, a file name or a plugin can hold
anything. Two kinds of characters in it would do harm if printed as they are:

- terminal control characters (ESC, the C0 and C1 controls, DEL): an escape
  sequence can clear the screen, set the window title, or hide the rest of a
  line, so a report would no longer say what the file says;
- rich markup (``[bold]``, ``[/]``): rich reads ``[...]`` in a string as a
  style, so ``[bold]x`` would print as ``x`` and ``a [/] b`` would fail.

Every place that prints user text goes through this module:
:func:`printable` for plain ``print``, :func:`plain` for a rich renderable
(a :class:`rich.text.Text` is never read as markup), and :func:`markup` for
the few rich strings that are read as markup (a progress bar's description).
"""

from __future__ import annotations

import re

from rich.markup import escape
from rich.text import Text

# C0 controls, DEL and C1 controls, and the Unicode formatting characters that
# reorder or hide text (bidirectional overrides and isolates, zero-width joiners
# are harmless and kept). Newline and tab are handled by the caller's choice.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_UNSAFE_WITH_LINES = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: object, *, lines: bool = True) -> str:
    """``text`` with every control character shown as an escape (ESC as ``\\x1b``).

    Args:
        text: What to show; anything else than a string is shown as ``str(text)``.
        lines: Keep newlines and tabs (a multi-line message); when ``False``
            they are escaped too, for a name that must stay on one line.

    >>> printable("\\x1b]0;pwned\\x07Boltgun")
    '\\\\x1b]0;pwned\\\\x07Boltgun'
    >>> printable("a\\nb", lines=False)
    'a\\\\x0ab'
    """
    return (_UNSAFE if lines else _UNSAFE_WITH_LINES).sub(_escaped, str(text))


def plain(text: object, *, style: str = "") -> Text:
    """``text`` as a rich :class:`~rich.text.Text`, controls escaped: shown as written, never read as markup."""
    return Text(printable(text), style=style)


def markup(text: object) -> str:
    """``text`` for a rich string that is read as markup: controls and markup both escaped."""
    return escape(printable(text, lines=False))
