"""Long evaluations off the request: a queue of jobs, at most one running per core.

A request that starts an evaluation gets a job id at once; the page then asks
for the job's progress until it is done. Each job runs on one core (its
evaluation uses one thread), and at most :attr:`Jobs.workers` run at a time,
so one long run never holds up the page, or another player's short one:
the rest wait in the queue. Cancelling a queued job drops it; cancelling a
running one stops it at the core's next poll (about ten times a second),
in the exact evaluator as in Monte Carlo, and frees its place.
"""

from __future__ import annotations

import itertools
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Literal

from mathhammer.exceptions import MathhammerError

State = Literal["queued", "running", "done", "failed", "cancelled"]
Phase = Literal["exact", "monte_carlo"]

KEPT_JOBS = 64
"""Finished jobs kept for their page to collect; older ones are forgotten first."""


class _Cancelled(Exception):
    """Raised from a job's progress callback to stop its evaluation."""


@dataclass
class Job:
    """One evaluation: its state, which evaluator is at work, how far it got, and its answer or error."""

    id: str
    state: State = "queued"
    phase: Phase | None = None
    done: int = 0
    total: int = 0
    answer: Any = None
    error: dict[str, Any] | None = None
    cancel_asked: threading.Event = field(default_factory=threading.Event)
    future: Future[None] | None = None

    def check(self) -> None:
        """Stop the run when cancelled: called from the core's poll (raises out of it)."""
        if self.cancel_asked.is_set():
            raise _Cancelled

    def progress(self, done: int, total: int) -> None:
        """The core's ``progress(done, total)`` callback: records it, and stops the run when cancelled.

        The exact evaluator calls it as ``progress(0, 0)``, which counts nothing.
        """
        self.check()
        if total:
            self.done, self.total = done, total

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "state": self.state,
            "phase": self.phase,
            "done": self.done,
            "total": self.total,
            "answer": self.answer,
            "error": self.error,
        }


def error_dict(exc: BaseException) -> dict[str, Any]:
    """An error as the page shows it: the CLI's message, and the field it belongs next to.

    Only mathhammer's own errors and ``ValueError`` (bad input) are told in
    full; anything else is a bug, named by its type without a traceback.
    """
    if isinstance(exc, (MathhammerError, ValueError)):
        return {
            "message": str(exc),
            "detail": getattr(exc, "message", str(exc)),
            "field": getattr(exc, "field", None),
        }
    return {"message": f"internal error: {type(exc).__name__}; this is a bug in mathhammer or a plugin", "field": None}


class Jobs:
    """The job queue of one server."""

    def __init__(self, workers: int, *, max_queued: int = 32) -> None:
        self.workers = workers
        self.max_queued = max_queued
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="mathhammer-job")
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)

    def submit(self, work: Callable[[Job], Any]) -> Job:
        """Queue ``work(job)``; its return value becomes the job's answer.

        Raises:
            MathhammerError: when :attr:`max_queued` jobs are already waiting.
        """
        with self._lock:
            waiting = sum(1 for j in self._jobs.values() if j.state == "queued")
            if waiting >= self.max_queued:
                raise MathhammerError(f"{waiting} runs are already waiting; try again when one has finished")
            job = Job(f"{next(self._ids)}-{secrets.token_hex(6)}")
            self._jobs[job.id] = job
            self._forget_old()
        job.future = self._pool.submit(self._run, job, work)
        return job

    def _run(self, job: Job, work: Callable[[Job], Any]) -> None:
        if job.cancel_asked.is_set():
            job.state = "cancelled"
            return
        job.state = "running"
        try:
            job.answer = work(job)
            job.state = "done"
        except _Cancelled:
            job.state = "cancelled"
        except Exception as exc:  # reported to the page, never raised into the server
            job.error = error_dict(exc)
            job.state = "failed"

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            return self._jobs.get(job_id)

    def cancel(self, job_id: str) -> Job | None:
        """Ask a job to stop; a queued one never starts."""
        job = self.get(job_id)
        if job is not None and job.state in ("queued", "running"):
            job.cancel_asked.set()
            if job.future is not None and job.future.cancel():
                job.state = "cancelled"
        return job

    def _forget_old(self) -> None:
        finished = [k for k, j in self._jobs.items() if j.state in ("done", "failed", "cancelled")]
        for key in finished[: max(0, len(finished) - KEPT_JOBS)]:
            del self._jobs[key]

    def shutdown(self) -> None:
        """Cancel every job and wait for the running ones to stop."""
        with self._lock:
            jobs = list(self._jobs.values())
        for job in jobs:
            job.cancel_asked.set()
        self._pool.shutdown(wait=True, cancel_futures=True)
