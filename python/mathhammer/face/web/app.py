"""The web page's server: an ASGI app (Starlette) around the public API.

Routes:

- ``GET /``: the page; ``GET /static/...``: its script and style sheet, and
  ``GET /plotly.min.js`` from the installed ``plotly`` package (no CDN).
- ``GET /api/rulesets``: each installed ruleset with the description of its
  fields (:func:`mathhammer.fields.describe`) and its keywords.
- ``POST /api/run``: evaluate a scenario; answers a job id at once (see :mod:`.jobs`).
- ``POST /api/compare``: evaluate every attacker of a profile library against every target, as a job.
- ``GET /api/jobs/{id}``, ``POST /api/jobs/{id}/cancel``: a job's progress and answer, and stopping it.
- ``POST /api/explain``: one attack told die by die, from a seed.
- ``POST /api/toml/read`` and ``/api/toml/write``: scenario TOML to data and back, as the CLI reads it.

No route reads or writes a file named by a request. Requests are bounded
(:data:`MAX_BODY` bytes, the core's limits, a cap on trials), errors come back
as the CLI's message and the field it names, never as a traceback, and the
host and origin checks in :func:`create_app` keep other web sites out.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Any

from mathhammer import __version__
from mathhammer.compare import METRICS, Profiles, add_profiles, compare, metric_info
from mathhammer.exceptions import DeclinedError, MathhammerError, ScenarioError
from mathhammer.extras import require
from mathhammer.face import inventory
from mathhammer.face.explain import explain
from mathhammer.face.web.jobs import Job, Jobs, error_dict
from mathhammer.fields import describe
from mathhammer.registry import Registry, default_registry
from mathhammer.result import Result
from mathhammer.scenario import check_nesting, parse_toml, scenario_from_data
from mathhammer.simulate import DEFAULT_TRIALS, evaluate_exact, simulate

require("starlette", "web", feature="mathhammer serve")
require("jinja2", "web", feature="mathhammer serve")

from starlette.applications import Starlette  # noqa: E402
from starlette.concurrency import run_in_threadpool  # noqa: E402
from starlette.middleware import Middleware  # noqa: E402
from starlette.middleware.base import BaseHTTPMiddleware  # noqa: E402
from starlette.middleware.trustedhost import TrustedHostMiddleware  # noqa: E402
from starlette.requests import Request  # noqa: E402
from starlette.responses import FileResponse, JSONResponse, Response  # noqa: E402
from starlette.routing import Mount, Route  # noqa: E402
from starlette.staticfiles import StaticFiles  # noqa: E402
from starlette.templating import Jinja2Templates  # noqa: E402

MAX_BODY = 1024 * 1024
"""The largest request body accepted, in bytes: the size limit of a scenario file."""

DEFAULT_MAX_TRIALS = 10_000_000
"""The most Monte Carlo trials one request may ask for, unless ``--max-trials`` says otherwise."""

LOCAL_HOSTS = ("localhost", "127.0.0.1", "[::1]", "::1")
"""Host names the server answers to when bound to the loopback interface."""

_HERE = Path(__file__).parent


def plotly_js() -> Path:
    """The plotly.js bundle inside the installed ``plotly`` wheel.

    Raises:
        MissingDependencyError: when plotly is not installed.
    """
    require("plotly", "web", feature="the web page's charts")
    path = Path(str(resources.files("plotly") / "package_data" / "plotly.min.js"))
    if not path.is_file():
        raise MathhammerError(f"the installed plotly package has no {path.name}; reinstall mathhammer[web]")
    return path


class _Refused(Exception):
    def __init__(self, status: int, message: str) -> None:
        self.status = status
        self.message = message


def _json_safe(value: Any) -> Any:
    """``value`` with NaN and infinities as ``null``: JSON has no such numbers, and browsers refuse them."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


def result_dict(result: Result) -> dict[str, Any]:
    """A Result as the page shows it: its JSON (as ``simulate --json`` prints it) with labels and the run line."""
    data = result.to_dict()
    data["labels"] = {name: stage.label for name, stage in result.stages.items()}
    data["shown"] = [stage.name for stage in result.shown]
    data["distributions"] = [name for name in result.distributions if name in result.stages]
    data["description"] = result.description
    data["group_lines"] = result.group_lines
    # The rows of the report's per-stage table (a group's and a weapon's stages included), each with the middle
    # 90% (5th to 95th percentile) where its distribution is known, and the note saying why the others show no
    # spread.
    data["per_stage"] = [
        {
            "name": stage.name,
            "label": stage.label,
            "mean": stage.mean,
            "se": stage.se,
            "sd": stage.sd if stage.distribution_known else None,
            "middle_90": [stage.percentile(5), stage.percentile(95)] if stage.distribution_known else None,
        }
        for stage in result.shown
    ]
    data["mean_only_note"] = result.mean_only_note
    return _json_safe(data)  # type: ignore[no-any-return]


class _OriginCheck(BaseHTTPMiddleware):
    """Refuse requests that change state from another origin (CSRF), and bodies that are too large.

    A POST must send JSON (``Content-Type: application/json``), which a page
    from another site cannot send without the browser asking this server
    first (and it never says yes); its ``Origin``, when the browser sends one,
    must be this server's own, and ``Sec-Fetch-Site`` must not be cross-site.
    """

    async def dispatch(self, request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        if request.method not in ("GET", "HEAD", "OPTIONS"):
            origin = request.headers.get("origin")
            host = request.headers.get("host", "")
            site = request.headers.get("sec-fetch-site")
            if origin is not None and origin.split("://", 1)[-1] != host:
                return _error(403, "requests from another site are refused")
            if site is not None and site not in ("same-origin", "none"):
                return _error(403, "requests from another site are refused")
            if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
                return _error(415, "send JSON (Content-Type: application/json)")
            length = request.headers.get("content-length")
            if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
                return _error(413, f"the request is larger than {MAX_BODY:,} bytes")
        return await call_next(request)


def _error(status: int, message: str, field: str | None = None) -> JSONResponse:
    return JSONResponse({"error": {"message": message, "detail": message, "field": field}}, status_code=status)


async def _body(request: Request) -> dict[str, Any]:
    """The request's JSON object, bounded in size and nesting."""
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY:
            raise _Refused(413, f"the request is larger than {MAX_BODY:,} bytes")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise _Refused(400, "the request is not valid JSON") from None
    if not isinstance(data, dict):
        raise _Refused(400, "the request must be a JSON object")
    check_nesting(data)
    return data


def _integer(data: Mapping[str, Any], key: str, default: int | None, low: int, high: int) -> int | None:
    value = data.get(key, default)
    if value is None or value == "":
        return default
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ScenarioError(f"is {value!r}; it must be a whole number from {low:,} to {high:,}", field=key)
    return value


class Server:
    """The state behind the routes: the registry, the job queue and the limits."""

    def __init__(self, registry: Registry, *, max_trials: int, workers: int) -> None:
        self.registry = registry
        self.max_trials = max_trials
        self.jobs = Jobs(workers)
        self._rulesets: list[dict[str, Any]] | None = None

    def rulesets(self) -> list[dict[str, Any]]:
        """Each ruleset with its fields and keywords, computed once."""
        if self._rulesets is None:
            facts = inventory.describe(self.registry)
            out = []
            for entry in facts["rulesets"]:
                try:
                    schema = describe(self.registry.rulesets[entry["name"]])
                except Exception:  # a ruleset whose load cannot be described is edited as TOML
                    schema = {"key": "", "kind": "table", "required": True, "fields": []}
                keywords = [
                    {"name": k["name"], "description": k["description"], "rule": k["rule"]}
                    for k in facts["keywords"]
                    if k["ruleset"] == entry["name"]
                ]
                out.append({**entry, "schema": schema, "keywords": keywords})
            self._rulesets = out
        return self._rulesets

    def scenario(self, data: Any) -> Any:
        if not isinstance(data, Mapping):
            raise ScenarioError("must be a table of the scenario's fields", field="scenario")
        return scenario_from_data(data, registry=self.registry)

    def run_options(self, data: Mapping[str, Any]) -> tuple[str, int, int | None]:
        evaluator = data.get("evaluator", "auto")
        if evaluator not in ("auto", "exact", "monte_carlo"):
            raise ScenarioError(f"is {evaluator!r}; expected 'auto', 'exact' or 'monte_carlo'", field="evaluator")
        trials = _integer(data, "trials", min(DEFAULT_TRIALS, self.max_trials), 1, self.max_trials)
        seed = _integer(data, "seed", None, 0, 2**64 - 1)
        assert trials is not None
        return evaluator, trials, seed


def _profiles(data: Mapping[str, Any], registry: Registry) -> Profiles:
    """The attackers and targets of a comparison: a library's text, and scenario files as text or data.

    Each file is named as the user named it; a scenario's attacker takes the
    name without its extension, as ``mathhammer compare FILE...`` names it.
    """
    profiles = Profiles()
    text = data.get("library", "")
    if not isinstance(text, str):
        raise ScenarioError("must be the text of a profile library or scenario file", field="library")
    if text.strip():
        add_profiles(parse_toml(text, "library"), "library", profiles, stem="library", registry=registry)
    files = data.get("files", [])
    if not isinstance(files, list) or not all(isinstance(f, Mapping) for f in files):
        raise ScenarioError("must be a list of files, each with a name and its text or data", field="files")
    for i, file in enumerate(files):
        name = file.get("name")
        if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME:
            raise ScenarioError(f"needs a name of 1 to {MAX_NAME} characters", field=f"files[{i}].name")
        if isinstance(file.get("text"), str):
            parsed = parse_toml(file["text"], name)
        elif isinstance(file.get("data"), Mapping):
            parsed = dict(file["data"])
        else:
            raise ScenarioError("needs the file's text or its data", field=f"files[{i}]")
        add_profiles(parsed, name, profiles, stem=Path(name).stem, registry=registry)
    return profiles


MAX_NAME = 200
"""The longest name a compared file may have."""


def _lifespan(server: Server) -> Callable[[Starlette], AbstractAsyncContextManager[None]]:
    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        server.jobs.shutdown()

    return lifespan


def create_app(
    *,
    registry: Registry | None = None,
    max_trials: int = DEFAULT_MAX_TRIALS,
    hosts: tuple[str, ...] = (),
    workers: int | None = None,
) -> Starlette:
    """The web app.

    Args:
        registry: The plugins to use (default: the installed ones).
        max_trials: The most Monte Carlo trials one request may ask for.
        hosts: Host names to answer besides localhost (the address given to ``--host``).
        workers: Evaluations run at once (default: one per core); the rest wait.
    """
    server = Server(
        registry or default_registry(), max_trials=max_trials, workers=workers or max(1, os.cpu_count() or 1)
    )
    templates = Jinja2Templates(directory=str(_HERE / "templates"))

    async def page(request: Request) -> Response:
        return templates.TemplateResponse(
            request, "index.html", {"version": __version__, "max_trials": server.max_trials}
        )

    async def plotly(request: Request) -> Response:
        return FileResponse(plotly_js(), media_type="text/javascript")

    async def rulesets(request: Request) -> Response:
        data = await run_in_threadpool(server.rulesets)
        return JSONResponse({"rulesets": data, "max_trials": server.max_trials, "metrics": list(METRICS)})

    async def run(request: Request) -> Response:
        data = await _body(request)
        scenario = await run_in_threadpool(server.scenario, data.get("scenario"))
        evaluator, trials, seed = server.run_options(data)

        def work(job: Job) -> dict[str, Any]:
            # What evaluate() does, with the progress callback given to the exact evaluator
            # too, so that a long exact evaluation can be cancelled like a simulation.
            if evaluator != "monte_carlo":
                job.phase = "exact"
                try:
                    return result_dict(evaluate_exact(scenario, registry=server.registry, progress=job.progress))
                except DeclinedError:
                    if evaluator == "exact":
                        raise
            job.phase = "monte_carlo"
            result = simulate(
                scenario, trials=trials, seed=seed, threads=1, registry=server.registry, progress=job.progress
            )
            return result_dict(result)

        return JSONResponse(server.jobs.submit(work).to_dict(), status_code=202)

    async def run_compare(request: Request) -> Response:
        data = await _body(request)
        profiles = _profiles(data, server.registry)
        metrics = data.get("metrics") or list(METRICS)
        if not isinstance(metrics, list):
            raise ScenarioError("must be a list of metrics", field="metrics")
        for metric in metrics:
            metric_info(metric)
        if not profiles.attackers or not profiles.targets:
            raise ScenarioError(
                "there is nothing to compare: give a profile library ([attackers.NAME] and [targets.NAME] tables)"
                " or scenario files, whose attackers and targets are then paired",
                field="library",
            )
        cells = len(profiles.attackers) * len(profiles.targets)
        if data.get("trials") in (None, ""):
            # Unless asked for more, each pairing gets its share of the cap (1,000,000 at most).
            data = {**data, "trials": max(1, min(DEFAULT_TRIALS, server.max_trials // cells))}
        evaluator, trials, seed = server.run_options(data)
        if cells * trials > server.max_trials:
            raise ScenarioError(
                f"is {trials:,} for each of {cells} pairings, more than the {server.max_trials:,} trials one request"
                " may run; ask for fewer trials",
                field="trials",
            )

        def work(job: Job) -> dict[str, Any]:
            def progress(attacker: str, target: str) -> Callable[[int, int], None]:
                job.phase = "monte_carlo"
                return job.progress

            job.phase = "exact" if evaluator != "monte_carlo" else "monte_carlo"
            comparison = compare(
                list(profiles.attackers.values()),
                list(profiles.targets.values()),
                evaluator=evaluator,  # type: ignore[arg-type]
                trials=trials,
                seed=seed,
                threads=1,
                registry=server.registry,
                progress=progress,
                poll=job.check,
            )
            matrices = {m: [[v for v in row] for row in comparison.matrix(m).tolist()] for m in metrics}
            labels = {m: comparison.metric_info(m)[0] for m in metrics}
            return _json_safe(  # type: ignore[no-any-return]
                {
                    "attackers": comparison.attackers,
                    "targets": comparison.targets,
                    "metrics": metrics,
                    "labels": labels,
                    "matrices": matrices,
                }
            )

        return JSONResponse(server.jobs.submit(work).to_dict(), status_code=202)

    async def job(request: Request) -> Response:
        found = server.jobs.get(request.path_params["job"])
        if found is None:
            return _error(404, "no such run: it finished long ago, or the server restarted")
        return JSONResponse(found.to_dict())

    async def cancel(request: Request) -> Response:
        found = server.jobs.cancel(request.path_params["job"])
        if found is None:
            return _error(404, "no such run: it finished long ago, or the server restarted")
        return JSONResponse(found.to_dict())

    async def explain_one(request: Request) -> Response:
        data = await _body(request)
        scenario = await run_in_threadpool(server.scenario, data.get("scenario"))
        seed = _integer(data, "seed", None, 0, 2**64 - 1)
        told = await run_in_threadpool(lambda: explain(scenario, seed=seed, registry=server.registry))
        return JSONResponse({"seed": told.seed, "dice": list(told.dice), "text": told.to_text()})

    async def toml_read(request: Request) -> Response:
        data = await _body(request)
        text = data.get("text")
        if not isinstance(text, str):
            raise ScenarioError("must be the text of a TOML file", field="text")
        return JSONResponse({"data": parse_toml(text, data.get("name") if isinstance(data.get("name"), str) else None)})

    async def toml_write(request: Request) -> Response:
        tomli_w = require("tomli_w", "web", feature="TOML export")
        data = await _body(request)
        scenario = data.get("scenario")
        await run_in_threadpool(server.scenario, scenario)  # export only what the CLI would read
        return JSONResponse({"text": tomli_w.dumps(scenario)})

    async def refused(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, _Refused)
        return _error(exc.status, exc.message)

    async def bad_input(request: Request, exc: Exception) -> Response:
        return JSONResponse({"error": error_dict(exc)}, status_code=400)

    async def internal(request: Request, exc: Exception) -> Response:
        return JSONResponse({"error": error_dict(exc)}, status_code=500)

    routes = [
        Route("/", page),
        Route("/plotly.min.js", plotly),
        Route("/api/rulesets", rulesets),
        Route("/api/run", run, methods=["POST"]),
        Route("/api/compare", run_compare, methods=["POST"]),
        Route("/api/jobs/{job}", job),
        Route("/api/jobs/{job}/cancel", cancel, methods=["POST"]),
        Route("/api/explain", explain_one, methods=["POST"]),
        Route("/api/toml/read", toml_read, methods=["POST"]),
        Route("/api/toml/write", toml_write, methods=["POST"]),
        Mount("/static", StaticFiles(directory=str(_HERE / "static")), name="static"),
    ]
    allowed = [*LOCAL_HOSTS, *hosts]
    app = Starlette(
        routes=routes,
        middleware=[
            Middleware(TrustedHostMiddleware, allowed_hosts=allowed),
            Middleware(_OriginCheck),
        ],
        exception_handlers={
            _Refused: refused,
            MathhammerError: bad_input,
            ValueError: bad_input,
            Exception: internal,
        },
        lifespan=_lifespan(server),
    )
    app.state.server = server
    return app
