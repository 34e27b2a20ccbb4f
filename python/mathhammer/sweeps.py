"""Sweeps: every attacker against every target, under every context and rule version, into Parquet.

A sweep description is a TOML file::

    libraries = ["profiles.toml"]  # profile libraries and scenario files, relative to this file
    attackers = ["lascannons"]     # optional: the attackers to take, by name (default: all)
    targets = ["rhino"]            # optional: the targets to take (default: all)
    evaluator = "auto"             # "auto" (exact where it can), "exact" or "monte_carlo"
    trials = 1_000_000             # Monte Carlo trials per cell
    seed = 1                       # the sweep's seed; each cell's derives from it and the cell's key

    [contexts.open]                # each: context keys laid over every pairing's own
    [contexts.cover]
    in_cover = true

    [versions.11e]                 # each: the scenario's [rules] keys (edition, per-rule versions)
    edition = "11e"
    [versions.10e]
    edition = "10e"

Every (attacker, target, context, version) is a *cell*. :func:`sweep`
evaluates the cells and writes one row per cell to a Parquet dataset: a
directory of complete part files, each written whole and then renamed into
place, so an interruption never leaves half a file. A cell's *key* hashes
its inputs, versions, evaluator, trials and the versions of the plugins
that evaluate it; a sweep into a directory that already holds a key skips
that cell, which is how an interrupted sweep resumes.

Cells run as tasks: locally on a thread pool (the core releases the GIL),
or on a Dask cluster when a ``distributed.Client`` is given. Tasks are
batches of cells sized, from the times of the tasks already finished, to
last about :data:`TASK_SECONDS`; a Monte Carlo cell of more than
:data:`TASK_CHUNKS` chunks is cut into parts of at least that many chunks,
sized the same way, run as separate tasks and merged
(``_core.merge_histograms``), which gives the same histograms as one run of
the cell, count for count. Either way a row holds the same values.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import numpy.typing as npt

from mathhammer import _core
from mathhammer.exceptions import DeclinedError, PluginMismatchError, ScenarioError
from mathhammer.extras import require
from mathhammer.profiles import Profile, Profiles, pairing, read_profiles
from mathhammer.registry import Registry, default_registry
from mathhammer.result import Result
from mathhammer.scenario import read_toml
from mathhammer.simulate import (
    DEFAULT_TRIALS,
    MAX_SEED,
    MAX_TRIALS,
    Evaluator,
    Prepared,
    evaluate_exact_prepared,
    prepare,
    simulate_prepared,
    simulated_result,
)

if TYPE_CHECKING:
    import pyarrow as pa

TASK_SECONDS = 0.1
"""How long a task should last at least: shorter ones would spend more time being scheduled than running."""

TASK_CHUNKS = 64
"""Chunks (of ``CHUNK_TRIALS`` trials) in the smallest part of a Monte Carlo cell: about a million trials,
from 10 ms (whole trials drawn at once) to a second or more on one core, as the Plan goes. A cell with
more chunks is cut into parts of at least this many."""

MAX_BATCH = 4096
"""The most cells one task evaluates."""

ROWS_PER_PART = 10_000
"""Rows written to one part file at most."""

FLUSH_SECONDS = 10.0
"""Rows finished are written out at least this often, so an interruption loses little."""

PART_PATTERN = "part-*.parquet"
"""The names of a dataset's part files; files being written start with a dot and are never read."""


# -------------------------------------------------------------------------
# The description
# -------------------------------------------------------------------------


@dataclass(frozen=True)
class Sweep:
    """What a sweep evaluates: every attacker against every target, in every context, under every rule version.

    Attributes:
        attackers: The attacker profiles, in order.
        targets: The target profiles, in order.
        contexts: Context name to the context keys laid over each pairing's own (one, ``default``, when none are given).
        versions: Version name to the ``rules`` keys laid over each pairing's own (one, ``default``, when none).
        evaluator: ``"auto"``, ``"exact"`` or ``"monte_carlo"``.
        trials: Monte Carlo trials per cell.
        seed: The sweep's seed.
        source: The description's file, if it came from one.
    """

    attackers: tuple[Profile, ...]
    targets: tuple[Profile, ...]
    contexts: Mapping[str, Mapping[str, Any]] = field(default_factory=lambda: {"default": {}})
    versions: Mapping[str, Mapping[str, Any]] = field(default_factory=lambda: {"default": {}})
    evaluator: Evaluator = "auto"
    trials: int = DEFAULT_TRIALS
    seed: int = 0
    source: str | None = None

    @property
    def rulesets(self) -> list[str]:
        """The rulesets its profiles name, in the order first met."""
        return list(dict.fromkeys(p.ruleset for p in (*self.attackers, *self.targets)))

    def cells(self, plugins: Mapping[str, str]) -> list[Cell]:
        """Every cell, attacker by attacker, then target, context and version; ``plugins`` goes into each key."""
        out = []
        for a in self.attackers:
            for t in self.targets:
                for context, context_keys in self.contexts.items():
                    for version, version_keys in self.versions.items():
                        cell = Cell(a, t, context, context_keys, version, version_keys, self.evaluator, self.trials)
                        key = cell_key(cell, plugins)
                        out.append(replace(cell, key=key, seed=cell_seed(self.seed, key)))
        return out


def load_sweep(path: str | Path) -> Sweep:
    """Read a sweep description (see the module's docstring); its libraries are read relative to it.

    Raises:
        ScenarioError: naming the file and field of whatever is wrong.
    """
    source = str(path)
    data = read_toml(path)
    known = {"libraries", "attackers", "targets", "contexts", "versions", "evaluator", "trials", "seed"}
    for key in data:
        if key not in known:
            raise ScenarioError(
                f"is not a sweep key; the keys are {', '.join(sorted(known))}", source=source, field=key
            )
    libraries = _names(data, "libraries", source, required=True)
    base = Path(path).parent
    profiles = Profiles()
    read_profiles([base / name for name in libraries], into=profiles)
    evaluator = data.get("evaluator", "auto")
    if evaluator not in ("auto", "exact", "monte_carlo"):
        raise ScenarioError(
            f"is {evaluator!r}; expected 'auto', 'exact' or 'monte_carlo'", source=source, field="evaluator"
        )
    trials = data.get("trials", DEFAULT_TRIALS)
    if isinstance(trials, bool) or not isinstance(trials, int) or not 1 <= trials <= MAX_TRIALS:
        raise ScenarioError(
            f"is {trials!r}; it must be a whole number from 1 to {MAX_TRIALS:,}", source=source, field="trials"
        )
    seed = data.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise ScenarioError(f"is {seed!r}; it must be a whole number from 0 to 2**64-1", source=source, field="seed")
    wanted = {kind: _names(data, kind, source) for kind in ("attackers", "targets")}
    try:
        attackers = profiles.select("attacker", wanted["attackers"])
        targets = profiles.select("target", wanted["targets"])
    except ScenarioError as exc:
        raise ScenarioError(exc.message, source=source) from None
    for kind, chosen in (("attacker", attackers), ("target", targets)):
        if not chosen:
            raise ScenarioError(f"the libraries give no {kind}s", source=source, field="libraries")
    return Sweep(
        attackers=tuple(attackers),
        targets=tuple(targets),
        contexts=_named_tables(data, "contexts", source),
        versions=_named_tables(data, "versions", source),
        evaluator=evaluator,
        trials=trials,
        seed=seed,
        source=source,
    )


def _names(data: Mapping[str, Any], key: str, source: str, *, required: bool = False) -> list[str]:
    value = data.get(key)
    if value is None and not required:
        return []
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise ScenarioError(f'must be a list of names, such as {key} = ["a", "b"]', source=source, field=key)
    return value


def _named_tables(data: Mapping[str, Any], key: str, source: str) -> dict[str, Mapping[str, Any]]:
    value = data.get(key)
    if value is None:
        return {"default": {}}
    if not isinstance(value, Mapping) or not value:
        raise ScenarioError(f"must be tables named after each entry: [{key}.NAME]", source=source, field=key)
    for name, table in value.items():
        if not isinstance(table, Mapping):
            raise ScenarioError(
                f"must be a table ([{key}.{name}]), not {table!r}", source=source, field=f"{key}.{name}"
            )
    return {str(name): dict(table) for name, table in value.items()}


# -------------------------------------------------------------------------
# Cells, their keys and seeds
# -------------------------------------------------------------------------


@dataclass(frozen=True)
class Cell:
    """One attacker against one target in one context under one rule version: a row of the dataset."""

    attacker: Profile
    target: Profile
    context: str
    context_keys: Mapping[str, Any]
    version: str
    version_keys: Mapping[str, Any]
    evaluator: Evaluator
    trials: int
    seed: int = 0
    key: str = ""

    def scenario(self, registry: Registry) -> Any:
        """The cell's scenario: the pairing, with the context's keys over its ``context`` and the version's over
        its ``rules``.

        Raises:
            ScenarioError: for a pairing its ruleset rejects.
        """
        extra = dict(self.attacker.scenario)
        for key, over in (("context", self.context_keys), ("rules", self.version_keys)):
            if over:
                base = extra.get(key, {})
                extra[key] = {**base, **over} if isinstance(base, Mapping) else dict(over)
        return pairing(replace(self.attacker, scenario=extra), self.target, registry=registry)


def cell_key(cell: Cell, plugins: Mapping[str, str]) -> str:
    """The hash naming a cell's row: of its inputs, their names, the evaluator, trials and plugin versions.

    Two runs of a cell with the same key give the same row (its seed derives
    from the key), so a sweep skips a cell whose key its directory holds.
    """
    data = {
        "attacker": [cell.attacker.name, cell.attacker.ruleset, cell.attacker.table, cell.attacker.scenario],
        "target": [cell.target.name, cell.target.ruleset, cell.target.table],
        "context": [cell.context, cell.context_keys],
        "version": [cell.version, cell.version_keys],
        "evaluator": cell.evaluator,
        "trials": cell.trials,
        "plugins": dict(plugins),
    }
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def cell_seed(sweep_seed: int, key: str) -> int:
    """A cell's seed, from the sweep's seed and the cell's key: never from where the cell stands in the sweep,
    so adding a target or reordering the libraries changes no other cell's result."""
    digest = hashlib.sha256(f"{sweep_seed}:{key}".encode()).digest()
    return int.from_bytes(digest[:8], "little")


def plugin_versions(registry: Registry, rulesets: Iterable[str]) -> dict[str, str]:
    """The plugins that evaluate ``rulesets`` (each ruleset's and its keywords'), with their distributions'
    versions, and mathhammer's own: what a cell's result depends on besides its inputs."""
    from mathhammer import __version__

    names = set()
    for ruleset in rulesets:
        if ruleset in registry.ruleset_origin:
            names.add(registry.ruleset_origin[ruleset])
        if ruleset in registry.keywords:
            names.update(registry.keywords[ruleset].origin.values())
    out = {"mathhammer": __version__}
    for info in registry.plugins:
        if info.name in names:
            out[f"plugin {info.name}"] = f"{info.distribution or 'registered in-process'} {info.version or ''}".strip()
    return out


# -------------------------------------------------------------------------
# Tasks: what runs on a worker
# -------------------------------------------------------------------------


@dataclass(frozen=True)
class Split:
    """A task's answer for a Monte Carlo cell too large for one task: run it in parts."""

    key: str


class _Cancelled(Exception):
    """Raised in a local task's progress callback once the sweep is stopped."""


def _checker(stop: threading.Event | None) -> Callable[[int, int], None] | None:
    if stop is None:
        return None

    def check(done: int, total: int) -> None:
        if stop.is_set():
            raise _Cancelled

    return check


def run_cells(
    cells: Sequence[Cell], threads: int, registry: Registry | None = None, stop: threading.Event | None = None
) -> tuple[list[dict[str, Any] | Split], float]:
    """Evaluate ``cells``: a row for each, or :class:`Split` for a Monte Carlo cell to run in parts; and the
    seconds it took. A cell that raises gets a row with its error; the others go on.

    On a Dask worker ``registry`` is ``None``: the worker's installed plugins evaluate the cells.
    """
    registry = registry or default_registry()
    check = _checker(stop)
    start = time.perf_counter()
    out: list[dict[str, Any] | Split] = []
    for cell in cells:
        if stop is not None and stop.is_set():
            raise _Cancelled
        try:
            prepared = prepare(cell.scenario(registry), registry=registry)
            result = None
            if cell.evaluator != "monte_carlo":
                try:
                    result = evaluate_exact_prepared(prepared, progress=check)
                except DeclinedError:
                    if cell.evaluator == "exact":
                        raise
            if result is None:
                if _core.chunk_count(cell.trials) > TASK_CHUNKS:
                    out.append(Split(cell.key))
                    continue
                result = simulate_prepared(prepared, cell.trials, cell.seed, threads, check)
            out.append(row(cell, result, prepared))
        except _Cancelled:
            raise
        except Exception as exc:  # recorded in the cell's row; the sweep goes on
            out.append(error_row(cell, exc))
    return out, time.perf_counter() - start


def run_part(
    cell: Cell,
    first: int,
    last: int,
    threads: int,
    registry: Registry | None = None,
    stop: threading.Event | None = None,
) -> tuple[list[npt.NDArray[np.uint64]], float]:
    """Run chunks ``first`` to ``last`` (excluded) of the Monte Carlo run of ``cell``: its histograms, and the
    seconds it took."""
    registry = registry or default_registry()
    start = time.perf_counter()
    prepared = prepare(cell.scenario(registry), registry=registry)
    histograms = _core.simulate_chunks(prepared.core, cell.trials, cell.seed, first, last, threads, _checker(stop))
    return histograms, time.perf_counter() - start


# -------------------------------------------------------------------------
# Rows
# -------------------------------------------------------------------------


def schema() -> pa.Schema:
    """The dataset's columns: the cell's names and key, how it was evaluated, its metrics, its distributions,
    and ``error`` (null, or why the cell has no result)."""
    pa = require("pyarrow", "sweep", feature="sweeps")
    text, number, pmf = pa.string(), pa.float64(), pa.list_(pa.float64())
    return pa.schema(
        [
            ("key", text),
            ("attacker", text),
            ("target", text),
            ("context", text),
            ("version", text),
            ("ruleset", text),
            ("ruleset_version", text),
            ("rule_versions", text),
            ("evaluator", text),
            ("trials", pa.int64()),
            ("seed", pa.uint64()),
            ("sweep_seed", pa.uint64()),
            ("models_destroyed", number),
            ("models_destroyed_se", number),
            ("damage", number),
            ("damage_se", number),
            ("p_unit_destroyed", number),
            ("damage_pmf", pmf),
            ("models_destroyed_pmf", pmf),
            ("error", text),
        ]
    )


def _names_of(cell: Cell) -> dict[str, Any]:
    return {
        "key": cell.key,
        "attacker": cell.attacker.name,
        "target": cell.target.name,
        "context": cell.context,
        "version": cell.version,
        "ruleset": cell.attacker.ruleset,
    }


def row(cell: Cell, result: Result, prepared: Prepared) -> dict[str, Any]:
    """The row of a cell evaluated to ``result``."""
    return {
        **_names_of(cell),
        "ruleset_version": prepared.ruleset_version,
        "rule_versions": json.dumps(dict(result.rule_versions), sort_keys=True),
        "evaluator": result.evaluator,
        "trials": result.trials,
        "seed": result.seed,
        "models_destroyed": result["models_destroyed"].mean,
        "models_destroyed_se": result["models_destroyed"].se,
        "damage": result["damage"].mean,
        "damage_se": result["damage"].se,
        "p_unit_destroyed": result.p_unit_destroyed,
        "damage_pmf": result["damage"].pmf.tolist(),
        "models_destroyed_pmf": result["models_destroyed"].pmf.tolist(),
        "error": None,
    }


def error_row(cell: Cell, error: BaseException | str) -> dict[str, Any]:
    """The row of a cell that raised: its names, and the error (type and message) in ``error``."""
    text = error if isinstance(error, str) else f"{type(error).__name__}: {error}"
    return {**_names_of(cell), "trials": cell.trials, "error": text}


# -------------------------------------------------------------------------
# The dataset
# -------------------------------------------------------------------------


class Writer:
    """Writes rows to part files in a directory: each file written whole, then renamed into place."""

    def __init__(self, directory: Path, sweep_seed: int) -> None:
        self.pa = require("pyarrow", "sweep", feature="sweeps")
        self.pq = require("pyarrow.parquet", "sweep", feature="sweeps")
        self.directory = directory
        self.sweep_seed = sweep_seed
        self.schema = schema()
        self.rows: list[dict[str, Any]] = []
        self.run = f"{time.strftime('%Y%m%dT%H%M%S')}-{secrets.token_hex(4)}"
        self.parts = 0
        self.written = 0
        self._flushed = time.monotonic()

    def add(self, row: dict[str, Any]) -> None:
        self.rows.append({**row, "sweep_seed": self.sweep_seed})
        if len(self.rows) >= ROWS_PER_PART or time.monotonic() - self._flushed >= FLUSH_SECONDS:
            self.flush()

    def flush(self) -> None:
        """Write the rows added since the last flush as one part file."""
        self._flushed = time.monotonic()
        if not self.rows:
            return
        table = self.pa.Table.from_pylist(self.rows, schema=self.schema)
        name = f"part-{self.run}-{self.parts:05d}.parquet"
        temporary = self.directory / f".{name}.tmp"
        self.pq.write_table(table, temporary)
        os.replace(temporary, self.directory / name)
        self.parts += 1
        self.written += len(self.rows)
        self.rows = []


def read_sweep(directory: str | Path, columns: Sequence[str] | None = None) -> pa.Table:
    """The rows of a sweep's dataset (its complete part files), as a pyarrow Table.

    Raises:
        MissingDependencyError: when pyarrow is not installed.
    """
    pa = require("pyarrow", "sweep", feature="sweeps")
    pq = require("pyarrow.parquet", "sweep", feature="sweeps")
    files = sorted(Path(directory).glob(PART_PATTERN))
    if not files:
        return schema().empty_table() if columns is None else schema().empty_table().select(list(columns))
    tables = [pq.read_table(f, columns=list(columns) if columns is not None else None) for f in files]
    return pa.concat_tables(tables)


def _present(directory: Path, sweep_seed: int, source: str | None) -> set[str]:
    """The keys the dataset in ``directory`` holds; a dataset of another seed is refused."""
    table = read_sweep(directory, ["key", "sweep_seed"])
    seeds = set(table.column("sweep_seed").to_pylist())
    if seeds - {sweep_seed}:
        other = ", ".join(str(s) for s in sorted(seeds - {sweep_seed}))
        raise ScenarioError(
            f"{directory} holds cells of a sweep with seed {other}, and this sweep's seed is {sweep_seed}:"
            " write to another directory, or give the same seed to resume it",
            source=source,
            field="seed",
        )
    return set(table.column("key").to_pylist())


# -------------------------------------------------------------------------
# Running the tasks: locally or on Dask
# -------------------------------------------------------------------------


class _Backend(Protocol):
    slots: int

    def cells(self, cells: list[Cell]) -> Any: ...
    def part(self, cell: Cell, first: int, last: int) -> Any: ...
    def wait(self, futures: Iterable[Any], timeout: float) -> set[Any]: ...
    def result(self, future: Any) -> Any: ...
    def cancel(self, futures: Iterable[Any]) -> None: ...
    def close(self) -> None: ...


class _Local:
    """Tasks on a thread pool in this process: the core releases the GIL, so they run on every core."""

    def __init__(self, registry: Registry, workers: int, threads: int) -> None:
        self.registry = registry
        self.threads = threads
        self.stop = threading.Event()
        workers = workers or max(1, (os.cpu_count() or 1) // max(threads, 1))
        self.pool = ThreadPoolExecutor(max_workers=workers)
        self.slots = 2 * workers

    def cells(self, cells: list[Cell]) -> Future[Any]:
        return self.pool.submit(run_cells, cells, self.threads, self.registry, self.stop)

    def part(self, cell: Cell, first: int, last: int) -> Future[Any]:
        return self.pool.submit(run_part, cell, first, last, self.threads, self.registry, self.stop)

    def wait(self, futures: Iterable[Future[Any]], timeout: float) -> set[Any]:
        done, _ = wait(list(futures), timeout=timeout, return_when=FIRST_COMPLETED)
        return set(done)

    def result(self, future: Future[Any]) -> Any:
        return future.result()

    def cancel(self, futures: Iterable[Future[Any]]) -> None:
        self.stop.set()
        for f in futures:
            f.cancel()

    def close(self) -> None:
        self.stop.set()
        self.pool.shutdown(wait=False, cancel_futures=True)


class _Dask:
    """Tasks on a Dask cluster through ``client``; the workers evaluate with their own installed plugins."""

    def __init__(self, client: Any, threads: int) -> None:
        self.distributed = require("distributed", "sweep", feature="sweeps on a Dask cluster")
        self.client = client
        self.threads = threads
        self.slots = 2 * max(1, sum(client.nthreads().values()))

    def cells(self, cells: list[Cell]) -> Any:
        return self.client.submit(run_cells, cells, self.threads, pure=False)

    def part(self, cell: Cell, first: int, last: int) -> Any:
        return self.client.submit(run_part, cell, first, last, self.threads, pure=False)

    def wait(self, futures: Iterable[Any], timeout: float) -> set[Any]:
        try:
            done, _ = self.distributed.wait(list(futures), timeout=timeout, return_when="FIRST_COMPLETED")
        except TimeoutError:
            return set()
        return set(done)

    def result(self, future: Any) -> Any:
        return future.result()

    def cancel(self, futures: Iterable[Any]) -> None:
        futures = list(futures)
        if futures:
            self.client.cancel(futures)

    def close(self) -> None:
        pass


def worker_plugins(rulesets: Sequence[str]) -> dict[str, str]:
    """:func:`plugin_versions` of the process it runs in (a Dask worker), with its installed plugins."""
    return plugin_versions(default_registry(), rulesets)


def check_workers(client: Any, expected: Mapping[str, str], rulesets: Sequence[str]) -> None:
    """Refuse a cluster whose workers have other plugins, or other versions of them, than ``expected``.

    Raises:
        PluginMismatchError: naming each worker, plugin and both versions.
    """
    problems = []
    for worker, theirs in sorted(client.run(worker_plugins, list(rulesets)).items()):
        for name in sorted(set(expected) | set(theirs)):
            here, there = expected.get(name), theirs.get(name)
            if here != there:
                problems.append(f"worker {worker} has {name} {there or 'missing'}, this machine {here or 'missing'}")
    if problems:
        raise PluginMismatchError(
            "the workers' plugins differ from this machine's; install the same versions on every worker: "
            + "; ".join(problems)
        )


# -------------------------------------------------------------------------
# The sweep
# -------------------------------------------------------------------------


@dataclass(frozen=True)
class SweepSummary:
    """What a sweep did.

    Attributes:
        directory: The dataset's directory.
        cells: Cells in the sweep.
        skipped: Cells already in the dataset, not evaluated again.
        written: Rows written by this run.
        failed: Of those, rows of cells that raised (their ``error`` says why).
        seconds: Wall time.
    """

    directory: Path
    cells: int
    skipped: int
    written: int
    failed: int
    seconds: float


@dataclass
class _Parts:
    """A Monte Carlo cell running in parts: the chunks not yet sent, the parts running, the histograms back."""

    cell: Cell
    total: int
    next: int = 0
    running: int = 0
    histograms: list[list[npt.NDArray[np.uint64]]] = field(default_factory=list)
    error: str | None = None


def sweep(
    description: Sweep | str | Path,
    output: str | Path,
    *,
    client: Any = None,
    registry: Registry | None = None,
    workers: int = 0,
    threads: int = 1,
    progress: Callable[[int, int], object] | None = None,
) -> SweepSummary:
    """Evaluate every cell of a sweep not yet in ``output`` and write its row there (see the module's docstring).

    Args:
        description: A :class:`Sweep`, or the path of a sweep description.
        output: The dataset's directory, created if missing.
        client: A ``distributed.Client``: run the tasks on its cluster (its workers' plugins are checked first).
            ``None`` runs them here.
        registry: The plugins that evaluate the cells here (and that the workers must match); installed ones
            by default.
        workers: Tasks run at once here, without a client (0: every core).
        threads: Core threads each task uses.
        progress: Called as ``progress(done, total)`` in cells as rows are finished.

    Raises:
        ScenarioError: for a bad description, or a dataset of another seed in ``output``.
        PluginMismatchError: when the workers' plugins are not this machine's.
        KeyboardInterrupt: when interrupted; the tasks still queued are cancelled and the rows finished
            are written first.
    """
    start = time.perf_counter()
    registry = registry or default_registry()
    plan = description if isinstance(description, Sweep) else load_sweep(description)
    versions = plugin_versions(registry, plan.rulesets)
    directory = Path(output)
    directory.mkdir(parents=True, exist_ok=True)
    present = _present(directory, plan.seed, plan.source)
    cells = plan.cells(versions)
    todo = [c for c in cells if c.key not in present]
    backend: _Backend
    if client is not None:
        check_workers(client, versions, plan.rulesets)
        backend = _Dask(client, threads)
    else:
        backend = _Local(registry, workers, threads)
    writer = Writer(directory, plan.seed)
    done, failed = len(cells) - len(todo), 0

    def finished(r: dict[str, Any]) -> None:
        nonlocal done, failed
        writer.add(r)
        done += 1
        failed += r["error"] is not None
        if progress is not None:
            progress(done, len(cells))

    try:
        _drive(backend, todo, registry, finished)
    finally:
        writer.flush()
        backend.close()
    return SweepSummary(
        directory, len(cells), len(cells) - len(todo), writer.written, failed, time.perf_counter() - start
    )


def _drive(
    backend: _Backend, cells: list[Cell], registry: Registry, finished: Callable[[dict[str, Any]], None]
) -> None:
    """Keep ``backend.slots`` tasks running until every cell's row is finished.

    Parts of large Monte Carlo cells go first, so their rows are written
    early; then batches of cells. Both are sized from the times of the tasks
    finished so far to last about :data:`TASK_SECONDS`. How a cell's chunks
    are cut into parts changes nothing in its row: the parts' histograms
    merge into the whole run's, count for count.
    """
    by_key = {c.key: c for c in cells}
    splits: dict[str, _Parts] = {}
    running: dict[Any, tuple[str, Any]] = {}
    per_cell: float | None = None
    per_chunk: float | None = None

    def split(cell: Cell) -> None:
        splits[cell.key] = _Parts(cell, _core.chunk_count(cell.trials))

    def next_part() -> tuple[_Parts, int, int] | None:
        state = next((p for p in splits.values() if p.next < p.total), None)
        if state is None:
            return None
        wanted = TASK_CHUNKS if per_chunk is None else math.ceil(TASK_SECONDS / max(per_chunk, 1e-9))
        # At least TASK_CHUNKS, and no more than an equal share of the cell for each task slot.
        size = max(TASK_CHUNKS, min(wanted, math.ceil(state.total / backend.slots)))
        first, state.next = state.next, min(state.next + size, state.total)
        state.running += 1
        return state, first, state.next

    def average(old: float | None, new: float) -> float:
        return new if old is None else 0.5 * old + 0.5 * new

    for cell in cells:
        if cell.evaluator == "monte_carlo" and _core.chunk_count(cell.trials) > TASK_CHUNKS:
            split(cell)
    queue = deque(c for c in cells if c.key not in splits)
    try:
        while queue or running or any(p.next < p.total for p in splits.values()):
            while len(running) < backend.slots:
                part = next_part()
                if part is not None:
                    state, first, last = part
                    running[backend.part(state.cell, first, last)] = ("part", (state, last - first))
                elif queue:
                    wanted = 1 if per_cell is None else math.ceil(TASK_SECONDS / max(per_cell, 1e-9))
                    batch = [queue.popleft() for _ in range(min(max(1, wanted), MAX_BATCH, len(queue)))]
                    running[backend.cells(batch)] = ("cells", batch)
                else:
                    break
            for future in backend.wait(running, 0.2):
                kind, what = running.pop(future)
                if kind == "part":
                    state, chunks = what
                    seconds = _part_done(backend, future, state, registry, finished)
                    if seconds is not None:
                        per_chunk = average(per_chunk, seconds / chunks)
                    continue
                try:
                    outcomes, seconds = backend.result(future)
                except Exception as exc:  # the task itself failed (a worker lost too often): its cells record it
                    for cell in what:
                        finished(error_row(cell, exc))
                    continue
                per_cell = average(per_cell, seconds / max(len(what), 1))
                for outcome in outcomes:
                    if isinstance(outcome, Split):
                        split(by_key[outcome.key])
                    else:
                        finished(outcome)
    except BaseException:
        backend.cancel(running)
        raise


def _part_done(
    backend: _Backend, future: Any, state: _Parts, registry: Registry, finished: Callable[[dict[str, Any]], None]
) -> float | None:
    """Record a finished part of a Monte Carlo cell (its seconds, or ``None`` if it failed); after the cell's last
    part, merge them all and finish its row."""
    seconds = None
    try:
        histograms, seconds = backend.result(future)
        state.histograms.append(histograms)
    except Exception as exc:
        state.error = state.error or f"{type(exc).__name__}: {exc}"
    state.running -= 1
    if state.running or state.next < state.total:
        return seconds
    cell = state.cell
    if state.error is not None:
        finished(error_row(cell, state.error))
        return seconds
    try:
        prepared = prepare(cell.scenario(registry), registry=registry)
        merged = _core.merge_histograms(state.histograms)
        finished(row(cell, simulated_result(prepared, merged, cell.trials, cell.seed), prepared))
    except Exception as exc:
        finished(error_row(cell, exc))
    return seconds
