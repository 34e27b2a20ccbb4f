"""Every code block in README.md and docs/*.md runs as written.

Each document runs in a fresh directory holding a link to ``examples/``, its
blocks in order, as a reader would follow them:

- ``python`` blocks run, in one namespace per document; a ``test_*`` function
  a block defines is then called (``make_registry`` is the one fixture given);
- ``toml`` blocks load; one with a ``ruleset`` key is a scenario and compiles;
- ``sh`` blocks whose first command is ``mathhammer`` run through the command
  line, each line in turn, and must exit 0 (``> file`` is honoured); other
  shell blocks (``pip``, ``make``, ``mkdir``) are instructions, not run.

A block whose first line is a comment naming a file (``# steady-aim.toml``,
``# src/mathhammer_steady_aim/__init__.py``) is written to that file first, so
later blocks can use it: a ``pyproject.toml`` adds its ``mathhammer`` entry
points to the registry the commands use (as ``pip install`` would), and the
``tests/`` files written run under pytest at the end, as the plugin's author
would run them.

A block opts out only with ``<!-- not run: reason -->`` on the line before it;
:data:`OPT_OUTS` lists every one, so a new opt-out is a visible change here.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import re
import shlex
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

import mathhammer
from mathhammer.face import cli
from mathhammer.registry import Registry

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]

OPT_OUTS: dict[tuple[str, int], str] = {}
"""``(document, line of the fence)`` to the reason given, for every block that is not run."""

FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)
NOT_RUN = re.compile(r"<!--\s*not run:\s*(.+?)\s*-->\s*$")
FILE_COMMENT = re.compile(r"^#\s*([\w./-]+\.(?:py|toml))\b")


@dataclass
class Block:
    document: str
    line: int
    language: str
    text: str
    opt_out: str | None

    @property
    def file(self) -> str | None:
        """The file the block's first line names, if it names one."""
        match = FILE_COMMENT.match(self.text)
        return match.group(1) if match else None

    def where(self) -> str:
        return f"{self.document}:{self.line}"


def blocks(path: Path) -> list[Block]:
    text = path.read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        opt_out = NOT_RUN.search(before)
        found.append(
            Block(
                document=str(path.relative_to(ROOT)),
                line=text.count("\n", 0, match.start()) + 1,
                language=match.group(1),
                text=match.group(2),
                opt_out=opt_out.group(1) if opt_out else None,
            )
        )
    return found


def installed_plugins() -> list[tuple[str, object]]:
    return [(ep.name, ep.load()) for ep in sorted(entry_points(group="mathhammer"), key=lambda e: e.name)]


class Reader:
    """Follows one document in ``workdir``, block by block."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.namespace: dict[str, Any] = {"__name__": "__doc__"}
        self.extra: list[EntryPoint] = []  # the plugins a written pyproject.toml declares
        self.registry = Registry.from_plugins(installed_plugins())

    def follow(self, block: Block) -> None:
        if block.file:
            target = self.workdir / block.file
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block.text, encoding="utf-8")
        if block.language == "python":
            self.python(block)
        elif block.language == "toml":
            self.toml(block)
        elif block.language in ("sh", "bash", "shell") and first_command(block.text).startswith("mathhammer"):
            self.shell(block)

    def python(self, block: Block) -> None:
        if block.file and block.file.startswith("src/"):
            self.import_module(block.file)
            return
        if block.file and Path(block.file).name.startswith("test_"):
            return  # run under pytest at the end, as its author would
        exec(compile(block.text, block.where(), "exec"), self.namespace)
        for name, value in list(self.namespace.items()):
            if name.startswith("test_") and callable(value) and not getattr(value, "_ran", False):
                fixtures = {"make_registry": lambda *plugins: Registry.from_plugins(plugins)}
                value(**{p: fixtures[p] for p in value.__code__.co_varnames[: value.__code__.co_argcount]})
                value._ran = True

    def import_module(self, file: str) -> None:
        parts = Path(file).with_suffix("").parts[1:]
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        spec = importlib.util.spec_from_file_location(name, self.workdir / file)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)

    def toml(self, block: Block) -> None:
        data = tomllib.loads(block.text)
        if block.file == "pyproject.toml":
            for name, value in data.get("project", {}).get("entry-points", {}).get("mathhammer", {}).items():
                self.extra.append(EntryPoint(name=name, value=value, group="mathhammer"))
            return
        if "ruleset" in data and ("attacker" in data or "target" in data or data["ruleset"] == "toy"):
            scenario = mathhammer.scenario_from_data(data, source=block.where(), registry=self.current())
            mathhammer.compile_scenario(scenario, registry=self.current())

    def current(self) -> Registry:
        """The installed plugins, and those the document's ``pyproject.toml`` declares, once importable."""
        if not self.extra:
            return self.registry
        return Registry.from_plugins(installed_plugins() + [(ep.name, ep.load()) for ep in self.extra])

    def shell(self, block: Block) -> None:
        registry = self.current()
        for line in block.text.splitlines():
            words = shlex.split(line, comments=True)
            if not words:
                continue
            assert words[0] == "mathhammer", f"{block.where()}: a mathhammer block runs mathhammer only: {line}"
            output = None
            if ">" in words:
                output = words[words.index(">") + 1]
                words = words[: words.index(">")]
            out, err = io.StringIO(), io.StringIO()
            with (
                mock.patch.object(cli, "default_registry", lambda: registry),
                contextlib.redirect_stdout(out),
                contextlib.redirect_stderr(err),
            ):
                code = cli.main(words[1:])
            assert code == 0, f"{block.where()}: `{line}` exited {code}: {err.getvalue()}"
            if output:
                (self.workdir / output).write_text(out.getvalue(), encoding="utf-8")

    def run_written_tests(self) -> None:
        tests = sorted((self.workdir / "tests").glob("test_*.py")) if (self.workdir / "tests").is_dir() else []
        if not tests:
            return
        env = dict(os.environ, PYTHONPATH=str(self.workdir / "src"))
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *map(str, tests)],
            cwd=self.workdir,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0 and f"{len(tests)} passed" in done.stdout, done.stdout + done.stderr


def first_command(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")), "")


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: p.name)
def test_every_block_of_the_document_runs(document: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [str(tmp_path / "src"), *sys.path])
    modules = set(sys.modules)
    try:
        reader = Reader(tmp_path)
        for block in blocks(document):
            if block.opt_out is None:
                reader.follow(block)
        reader.run_written_tests()
    finally:  # forget the modules the document wrote, so the next one starts afresh
        for name in set(sys.modules) - modules:
            if name.startswith("mathhammer_steady_aim"):
                del sys.modules[name]


def test_opting_out_is_visible_and_listed() -> None:
    found = {(b.document, b.line): b.opt_out for d in DOCUMENTS for b in blocks(d) if b.opt_out is not None}
    assert found == OPT_OUTS


def test_the_reader_finds_the_blocks_a_document_has() -> None:
    plugins = blocks(ROOT / "docs" / "plugins.md")
    assert {b.file for b in plugins} >= {
        "pyproject.toml",
        "src/mathhammer_steady_aim/__init__.py",
        "steady-aim.toml",
        "tests/test_steady_aim.py",
    }
    assert sum(b.language == "python" for d in DOCUMENTS for b in blocks(d)) >= 5
    assert any(first_command(b.text).startswith("mathhammer") for b in blocks(ROOT / "docs" / "cli.md"))
