"""The line between the API and the face, read from the import statements of the source.

The face (``mathhammer.face``: the command line, reports, narration, the web
page) imports the API; the API never imports the face, so the API works and
is tested without it. The web page uses public names of the API modules the
command line uses, so it computes nothing the command line cannot.

Every import counts: at module level, inside functions, under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "python" / "mathhammer"
FACE = "mathhammer.face"

TEST_KIT = "mathhammer.testing"
"""The pytest plugin for plugin authors: it drives the command line (``run_cli``) as well as the API, so it
may import the face; no API module imports it."""

FORM_SCHEMA = "mathhammer.fields"
"""The page builds its form from each ruleset's field schema (``fields.describe``), which the command line,
having no form, never needs."""


def module_name(path: Path, root: Path = PACKAGE) -> str:
    parts = [root.name, *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(root: Path = PACKAGE) -> dict[str, Path]:
    return {module_name(path, root): path for path in sorted(root.rglob("*.py"))}


def imports(source: str, module: str, *, package: bool = False) -> Iterator[tuple[str, str | None]]:
    """Every ``(module, name)`` ``source`` imports; ``name`` is ``None`` for ``import module``.

    Relative imports are resolved against ``module`` (``package`` when it is an ``__init__``).
    """
    base = module.split(".") if package else module.split(".")[:-1]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, None
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = base[: len(base) - node.level + 1]
                target = ".".join([*anchor, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            for alias in node.names:
                yield target, alias.name


def imported_modules(path: Path, module: str, known: set[str]) -> set[str]:
    """The modules of ``known`` that ``path`` imports (``from package import submodule`` counts as the submodule)."""
    found = set()
    for target, name in imports(path.read_text(encoding="utf-8"), module, package=path.name == "__init__.py"):
        if name is not None and f"{target}.{name}" in known:
            found.add(f"{target}.{name}")
        elif target in known or target.startswith("mathhammer"):
            found.add(target)
    return found


def in_face(module: str) -> bool:
    return module == FACE or module.startswith(FACE + ".")


def test_the_import_walk_finds_lazy_relative_and_submodule_imports() -> None:
    source = (
        "from . import jobs\n"
        "from .app import create_app\n"
        "def f():\n    from mathhammer.face import cli\n    import mathhammer.face.report as r\n"
    )
    known = {"mathhammer.face.web.jobs", "mathhammer.face.web.app", "mathhammer.face.cli", "mathhammer.face.report"}
    found = set()
    for target, name in imports(source, "mathhammer.face.web.serve"):
        found.add(f"{target}.{name}" if name is not None and f"{target}.{name}" in known else target)
    assert found == known


def test_no_api_module_imports_the_face() -> None:
    known = set(modules())
    assert {FACE, f"{FACE}.cli", f"{FACE}.web.app"} <= known
    offenders = {
        module: sorted(m for m in imported_modules(path, module, known) if in_face(m))
        for module, path in modules().items()
        if not in_face(module) and module != TEST_KIT
    }
    assert {m: found for m, found in offenders.items() if found} == {}


def test_no_api_module_imports_the_test_kit() -> None:
    known = set(modules())
    offenders = [
        module
        for module, path in modules().items()
        if not in_face(module) and module != TEST_KIT and TEST_KIT in imported_modules(path, module, known)
    ]
    assert offenders == []


def test_the_web_page_uses_only_public_names_of_the_api_the_command_line_uses() -> None:
    known = set(modules())
    everything = modules()
    command_line = {m for m in imported_modules(everything[f"{FACE}.cli"], f"{FACE}.cli", known) if not in_face(m)}
    assert {"mathhammer.simulate", "mathhammer.scenario", "mathhammer.result"} <= command_line
    allowed = command_line | {FORM_SCHEMA, "mathhammer"}
    web = {m: p for m, p in everything.items() if m.startswith(f"{FACE}.web")}
    assert f"{FACE}.web.app" in web
    beyond: list[str] = []
    for module, path in web.items():
        for target, name in imports(path.read_text(encoding="utf-8"), module, package=path.name == "__init__.py"):
            if not target.startswith("mathhammer") or in_face(target):
                continue
            full = f"{target}.{name}" if name is not None and f"{target}.{name}" in known else target
            if in_face(full):
                continue
            private = any(part.startswith("_") for part in full.split(".")) or (
                full == target and name is not None and name.startswith("_") and name != "__version__"
            )
            if private or (full not in allowed and target not in allowed):
                beyond.append(f"{module}: {target} import {name}")
    assert beyond == []
