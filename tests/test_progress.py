"""The progress bar: silent for short runs and off a terminal, drawn for long ones."""

from __future__ import annotations

import io

from rich.console import Console

from mathhammer.face.progress import ProgressBar


def console(*, terminal: bool) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=terminal, width=80), out


def test_a_run_shorter_than_the_delay_draws_nothing() -> None:
    c, out = console(terminal=True)
    with ProgressBar(c, show_after=3600) as bar:
        bar(5, 10)
    assert not bar.shown and out.getvalue() == ""
    assert (bar.done, bar.total) == (5, 10)  # still remembered, for an interrupted run's message


def test_a_long_run_on_a_terminal_draws_a_bar_and_clears_it() -> None:
    c, out = console(terminal=True)
    with ProgressBar(c, show_after=0, description="simulating") as bar:
        bar(16_384, 1_000_000)
        assert bar.shown
    assert not bar.shown
    assert "simulating" in out.getvalue() and "16384/1000000" in out.getvalue()


def test_off_a_terminal_nothing_is_drawn() -> None:
    c, out = console(terminal=False)
    with ProgressBar(c, show_after=0) as bar:
        bar(1, 2)
    assert out.getvalue() == ""
