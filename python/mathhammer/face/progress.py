"""A progress bar for long runs, shown only when a person is watching.

The core calls ``progress(done, total)`` about ten times a second while it
simulates. :class:`ProgressBar` is such a callback: it stays silent for the
first second (most runs finish sooner, and a bar that flashes is noise), then
draws a bar on the terminal, and never draws anything when the output is not
a terminal. It remembers how far the run got, so an interrupted run can say so.
"""

from __future__ import annotations

import time
from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeRemainingColumn

SHOW_AFTER = 1.0
"""Seconds a run must last before its bar appears."""


class ProgressBar:
    """A ``progress(done, total)`` callback drawing a transient bar on ``console``.

    Use it as a context manager so the bar is cleared however the run ends.
    """

    def __init__(
        self,
        console: Console,
        *,
        description: str = "simulating",
        unit: str = "trials",
        show_after: float = SHOW_AFTER,
    ) -> None:
        self.console = console
        self.description = description
        self.unit = unit
        """What ``done`` and ``total`` count, for a message saying how far the run got."""
        self.show_after = show_after
        self.done = 0
        self.total = 0
        self._start = time.monotonic()
        self._bar: Progress | None = None
        self._task = TaskID(0)

    def __call__(self, done: int, total: int) -> None:
        self.done, self.total = done, total
        if self._bar is None:
            if not self.console.is_terminal or time.monotonic() - self._start < self.show_after:
                return
            self._bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                console=self.console,
                transient=True,
                auto_refresh=False,
            )
            self._bar.start()
            self._task = self._bar.add_task(self.description, total=total)
        self._bar.update(self._task, completed=done, total=total)
        self._bar.refresh()

    @property
    def shown(self) -> bool:
        """Whether the bar has been drawn."""
        return self._bar is not None

    def close(self) -> None:
        """Clear the bar, if it was drawn."""
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def __enter__(self) -> ProgressBar:
        self._start = time.monotonic()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()
