"""A quiet Ctrl-C while the ``mathhammer`` command starts.

The command's script imports :mod:`mathhammer.face.cli`, and with it numpy, rich and
the Rust core, before :func:`mathhammer.face.cli.main` runs and can catch
``KeyboardInterrupt``. A Ctrl-C in that half second would print a traceback of
whichever import it landed in. So when (and only when) this process is the
``mathhammer`` command, the package's first import sets a SIGINT handler that
prints one line and exits 130; ``main`` puts Python's own handler back before it
does any work. Code that imports mathhammer as a library is left alone.
"""

from __future__ import annotations

import os
import signal
import sys
from types import FrameType

INTERRUPTED = "mathhammer: interrupted; no result was reported"
"""The one line an interrupted command prints."""


def _is_command() -> bool:
    main = sys.modules.get("__main__")
    script = os.path.basename(getattr(main, "__file__", None) or "")
    return script in ("mathhammer", "mathhammer.exe", "mathhammer-script.py")


def _quit(signum: int, frame: FrameType | None) -> None:
    sys.stderr.write(INTERRUPTED + "\n")
    sys.stderr.flush()
    os._exit(130)  # nothing has started yet: there is nothing to clean up


def install() -> None:
    """In the ``mathhammer`` command only, make Ctrl-C during start-up print one line and exit 130."""
    if _is_command() and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _quit)


def restore() -> None:
    """Python's own Ctrl-C (``KeyboardInterrupt``) again, if :func:`install` replaced it."""
    if signal.getsignal(signal.SIGINT) is _quit:
        signal.signal(signal.SIGINT, signal.default_int_handler)


install()
