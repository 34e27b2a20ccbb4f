"""pip installs mathhammer and its plugins by name, as a user would, from a local index.

Only `make test-install` runs these (marker ``install``): they build every distribution
with scripts/dist.py, serve the PEP 503 index on 127.0.0.1 and give each case a fresh
virtual environment. There, the third-party dependencies come first, from the registry pip
is configured with; then the case's own requirement is installed with ``--no-index`` and
the index's project pages as ``--find-links``, so every mathhammer-* distribution comes
from the files just built and never from a registry (no dependency confusion). Then
``pip check``, ``mathhammer plugins`` and ``mathhammer simulate`` on an example, whose
report must be the one the checkout's own install prints.

The plugin docs/plugins.md's tutorial builds is written out from the guide and installed
the same way. A plugin that lives in a folder outside plugins/ joins with one line in CASES.
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import sys
import threading
import time
import tomllib
import urllib.request
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from email.parser import HeaderParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name, parse_wheel_filename

pytestmark = pytest.mark.install

ROOT = Path(__file__).resolve().parents[1]
DEV_BIN = Path(sys.executable).parent  # the checkout's own install, the reference for every report


@dataclass(frozen=True)
class Case:
    requirement: str  # what a user types after `pip install`
    example: str  # a scenario for the installed ruleset
    lists: tuple[str, ...]  # names `mathhammer plugins` shows: the ruleset and keywords from other distributions
    omits: tuple[str, ...]  # rulesets nobody asked for, which must not come along
    project: str | None = None  # a folder outside plugins/ to build into the index as well


CASES = (
    Case(
        "mathhammer-wh40k",
        "examples/boltguns.toml",
        ("wh40k", "Blast", "Sustained Hits", "Devastating Wounds"),
        ("t9a", "skilldice"),
    ),
    Case("mathhammer-t9a", "examples/t9a-greatswords.toml", ("t9a", "Multiple Wounds", "Fury"), ("wh40k", "skilldice")),
    Case("mathhammer-skilldice", "examples/skilldice-vanguard.toml", ("skilldice", "Inflict Damage"), ("wh40k", "t9a")),
)


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


# A fenced block whose first line is a comment naming a file: the tutorial's files.
_FILE_BLOCK = re.compile(r"^```\w*\n(#\s*([\w./-]+\.(?:py|toml))\n.*?)^```", re.DOTALL | re.MULTILINE)


@pytest.fixture(scope="session")
def tutorial(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The plugin docs/plugins.md's tutorial builds, its files written out as a reader would."""
    text = (ROOT / "docs/plugins.md").read_text(encoding="utf-8")
    section = text[text.index("## Tutorial") :]
    section = section[: section.index("\n## ")]
    folder = tmp_path_factory.mktemp("tutorial") / "mathhammer-steady-aim"
    for block, name in _FILE_BLOCK.findall(section):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(block, encoding="utf-8")
    assert (folder / "pyproject.toml").is_file()
    return folder


@pytest.fixture(scope="session")
def dist(tmp_path_factory: pytest.TempPathFactory, tutorial: Path) -> Path:
    """Every distribution in the tree, the tutorial's and each case's extra project, built with its index."""
    out = tmp_path_factory.mktemp("dist")
    plugins = sorted(p for p in (ROOT / "plugins").iterdir() if (p / "pyproject.toml").is_file())
    extra = [tutorial, *(ROOT / case.project for case in CASES if case.project)]
    subprocess.run([sys.executable, ROOT / "scripts/dist.py", "--out", out, ROOT, *plugins, *extra], check=True)
    return out


@pytest.fixture(scope="session")
def index_url(dist: Path) -> Iterator[str]:
    """The index, served over HTTP on a free port of 127.0.0.1 for the whole session."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(dist)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/simple/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _wheels(dist: Path) -> dict[str, Path]:
    return {str(parse_wheel_filename(w.name)[0]): w for w in dist.glob("*.whl")}


def _ours(requirement: Requirement) -> bool:
    return canonicalize_name(requirement.name).startswith("mathhammer")


def third_party(requirement: Requirement, dist: Path) -> set[str]:
    """What ``requirement`` needs from outside the index, following mathhammer-* requirements through it."""
    wheels, needed, seen = _wheels(dist), set(), set()
    pending = [requirement]
    while pending:
        wanted = pending.pop()
        key = (canonicalize_name(wanted.name), frozenset(wanted.extras))
        if key in seen:
            continue
        seen.add(key)
        with zipfile.ZipFile(wheels[key[0]]) as wheel:
            metadata_path = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
            metadata = HeaderParser().parsestr(wheel.read(metadata_path).decode())
        for line in metadata.get_all("Requires-Dist") or []:
            dependency = Requirement(line)
            environments = [{"extra": extra} for extra in ("", *wanted.extras)]
            if dependency.marker and not any(dependency.marker.evaluate(env) for env in environments):
                continue
            if _ours(dependency):
                pending.append(dependency)
            else:
                needed.add(f"{dependency.name}{dependency.specifier}")
    return needed


class Venv:
    """A fresh virtual environment with no pip of its own: the checkout's pip installs into it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", path], check=True)
        self.python = path / "bin" / "python"

    def pip(self, *args: str, env: dict[str, str] | None = None) -> None:
        command = [sys.executable, "-m", "pip", "--python", str(self.python), *args]
        print("$", " ".join(command[3:]), flush=True)
        subprocess.run(command, check=True, env=env)

    def install_ours(self, requirement: str, index_url: str, dist: Path) -> None:
        """Install with --no-index, so mathhammer-* resolves from the served index alone."""
        pages = [f"--find-links={index_url}{name}/" for name in sorted(_wheels(dist))]
        self.pip("install", "--quiet", "--no-compile", "--no-index", *pages, requirement, env=_only_ours())

    def install_third_party(self, *requirements: str) -> None:
        """Install from the registry pip is configured with.

        Without byte-compiling: numpy, pandas and matplotlib are thousands of modules, and
        compiling them took half of this test's time; Python compiles what it imports anyway.
        """
        self.pip("install", "--quiet", "--no-compile", *requirements)

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return _run([self.path / "bin" / args[0], *args[1:]], check=check)


def _only_ours() -> dict[str, str]:
    """The environment without the sources of packages pip is configured with: only the command line's remain."""
    return {k: v for k, v in os.environ.items() if k not in {"PIP_FIND_LINKS", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL"}}


def _run(command: list[Path | str], check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    if check and done.returncode:
        pytest.fail(f"{' '.join(map(str, command))} exited {done.returncode}:\n{done.stdout}{done.stderr}")
    return done


def _without_timing(report: str) -> str:
    """A report with the run time blanked, the one thing two runs at one seed may differ in."""
    return re.sub(r"\d+(\.\d+)? s\b", "<time>", report)


@pytest.fixture
def venv(tmp_path: Path) -> Venv:
    return Venv(tmp_path / "venv")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.requirement)
def test_pip_installs_by_name_from_the_local_index(case: Case, venv: Venv, dist: Path, index_url: str) -> None:
    venv.install_third_party(*sorted(third_party(Requirement(case.requirement), dist)))
    venv.install_ours(case.requirement, index_url, dist)
    venv.pip("check")

    listed = venv.run("mathhammer", "plugins").stdout
    for name in case.lists:
        assert name in listed
    for ruleset in case.omits:
        assert not re.search(rf"^\s*{ruleset}\b", listed, re.MULTILINE), f"{ruleset} came along with {case.requirement}"

    command = ("simulate", case.example, "--seed", "1", "--trials", "100000")
    report = venv.run("mathhammer", *command).stdout
    assert report.startswith(case.lists[0])
    assert _without_timing(report) == _without_timing(_run([DEV_BIN / "mathhammer", *command]).stdout)


def test_the_extras_draw_tabulate_and_serve_once_a_ruleset_is_added(venv: Venv, dist: Path, index_url: str) -> None:
    # A user who installed only the core is told which ruleset a scenario needs ...
    venv.install_third_party(*sorted(third_party(Requirement("mathhammer[plot,pandas,web]"), dist)))
    venv.install_ours("mathhammer[plot,pandas,web]", index_url, dist)
    venv.pip("check")
    assert not re.search(r"^\s*(wh40k|t9a|skilldice)\b", venv.run("mathhammer", "plugins").stdout, re.MULTILINE)
    refused = venv.run("mathhammer", "simulate", "examples/boltguns.toml", check=False)
    assert refused.returncode == 2
    assert "unknown ruleset 'wh40k'" in refused.stderr
    # ... and adding it later makes plot and pandas work on the same file.
    venv.install_ours("mathhammer-wh40k", index_url, dist)
    venv.pip("check")
    chart = venv.path / "boltguns.png"
    venv.run("mathhammer", "plot", "examples/boltguns.toml", "--seed", "1", "-o", str(chart))
    assert chart.read_bytes().startswith(b"\x89PNG")
    table = (
        "import mathhammer; print(mathhammer.evaluate(mathhammer.load_scenario('examples/boltguns.toml')).to_pandas())"
    )
    assert "models_destroyed" in venv.run("python", "-c", table).stdout
    # ... and the web page, with its templates, script and plotly.js from the installed wheels.
    _serve_boltguns(venv)


def _serve_boltguns(venv: Venv) -> None:
    command = [str(venv.path / "bin" / "mathhammer"), "serve", "--port", "0"]
    with subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True) as server:
        try:
            assert server.stdout is not None
            line = server.stdout.readline()
            found = re.search(r"http://localhost:\d+/", line)
            assert found, f"mathhammer serve printed {line!r}"
            _run_boltguns_at(found.group(0))
        finally:
            server.terminate()


def _run_boltguns_at(url: str) -> None:
    for asset in ("", "static/app.js", "static/app.css", "plotly.min.js"):
        with urllib.request.urlopen(url + asset, timeout=30) as response:
            assert response.status == 200, asset
    body = json.dumps({"scenario": tomllib.loads((ROOT / "examples/boltguns.toml").read_text())}).encode()
    request = urllib.request.Request(url + "api/run", body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        job = json.load(response)
    deadline = time.monotonic() + 60
    while job["state"] in ("queued", "running") and time.monotonic() < deadline:
        time.sleep(0.05)
        with urllib.request.urlopen(f"{url}api/jobs/{job['id']}", timeout=30) as response:
            job = json.load(response)
    assert job["state"] == "done", job
    assert f"{job['answer']['models_destroyed']['mean']:.3f}" == "1.417"


def test_the_tutorials_plugin_installs_by_name(venv: Venv, dist: Path, index_url: str, tutorial: Path) -> None:
    # A third party's keyword, built from the guide, pulls the 40k ruleset and its keywords by name.
    venv.install_third_party(*sorted(third_party(Requirement("mathhammer-steady-aim"), dist)))
    venv.install_ours("mathhammer-steady-aim", index_url, dist)
    venv.pip("check")
    listed = venv.run("mathhammer", "plugins").stdout
    assert "Steady Aim" in listed and "Sustained Hits" in listed
    report = venv.run("mathhammer", "simulate", str(tutorial / "steady-aim.toml"), "--exact").stdout
    assert re.search(r"^Hits\s+6\.667\b", report, re.MULTILINE), report  # 10 shots on 3+, not 5.000 on 4+


def test_the_index_works_as_an_index_url(venv: Venv, index_url: str, tmp_path: Path) -> None:
    # pip reads the project pages as PEP 503 ones, checking each file's sha256 against its link.
    downloads = tmp_path / "downloads"
    venv.pip(
        "download",
        "--quiet",
        "--no-deps",
        "--index-url",
        index_url,
        "--dest",
        str(downloads),
        "mathhammer-wh40k",
        env=_only_ours(),
    )
    (wheel,) = downloads.iterdir()
    assert wheel.name.startswith("mathhammer_wh40k-") and wheel.suffix == ".whl"
