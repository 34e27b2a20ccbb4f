"""Build every distribution into one folder and write a PEP 503 simple index over it.

    python scripts/dist.py                       # the core and every plugin under plugins/, into dist/
    python scripts/dist.py --out DIR . plugins/mathhammer-wh40k path/to/another-plugin

The core (the project root) gives an sdist and one abi3 wheel for CPython 3.11 and later.
maturin builds it with the features in pyproject.toml and rust/py/Cargo.toml, the same ones
the editable install uses, so cargo reuses the release build `make install` left in target/.
Every other project gives an sdist and a pure wheel built from that sdist, which checks
that the sdist is complete.

setuptools writes build/ and *.egg-info/ next to the sources it builds, so each plugin is
copied to a temporary folder and built there: the checkout is left as it was.

The folder ends up holding the files and simple/, a PEP 503 index, so either of

    pip install --find-links DIR mathhammer-wh40k
    pip install --index-url http://HOST:PORT/simple/ mathhammer-wh40k   # DIR served over HTTP

resolves mathhammer-* requirements by name from the files just built.

Each version is set once: the core's in Cargo.toml ([workspace.package] version, which
maturin gives the Python distribution too), each plugin's in its own pyproject.toml.
"""

from __future__ import annotations

import argparse
import hashlib
import html
import itertools
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from packaging.utils import parse_sdist_filename, parse_wheel_filename

ROOT = Path(__file__).resolve().parent.parent

# What a plugin's copy leaves out: build output and caches, never sources.
_NOT_SOURCES = shutil.ignore_patterns("build", "dist", "*.egg-info", "__pycache__", ".pytest_cache", ".mypy_cache")


def default_projects() -> list[Path]:
    """The core, then every plugin under plugins/, in a stable order."""
    return [ROOT, *sorted(p for p in (ROOT / "plugins").iterdir() if (p / "pyproject.toml").is_file())]


def clean(out: Path) -> None:
    """Remove what an earlier run wrote to ``out``, so the index lists only this build."""
    for path in [*out.glob("*.whl"), *out.glob("*.tar.gz")]:
        path.unlink()
    shutil.rmtree(out / "simple", ignore_errors=True)


def build_project(project: Path, out: Path) -> None:
    """Build one project's sdist and wheel into ``out``."""
    name = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))["project"]["name"]
    command = [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out)]
    if project == ROOT:
        # The wheel comes from the checkout, not from the sdist: built from an unpacked
        # sdist, the Rust core would compile from scratch in a fresh target folder.
        print(f"==> {name}: sdist, and the abi3 wheel from the release build in target/", flush=True)
        subprocess.run([*command, "--sdist", "--wheel", str(project)], check=True, cwd=ROOT)
        return
    print(f"==> {name}: sdist, then a pure wheel built from it", flush=True)
    with tempfile.TemporaryDirectory(prefix="mathhammer-dist-") as scratch:
        copy = Path(scratch) / project.name
        shutil.copytree(project, copy, ignore=_NOT_SOURCES)
        built = subprocess.run([*command, str(copy)], check=False, cwd=scratch, capture_output=True, text=True)
    if built.returncode:
        sys.stderr.write(built.stdout + built.stderr)
        raise SystemExit(f"building {name} from {project} failed (exit {built.returncode})")


def project_name(filename: str) -> str:
    """The normalized project name of a wheel or sdist file name (PEP 503)."""
    if filename.endswith(".whl"):
        return str(parse_wheel_filename(filename)[0])
    return str(parse_sdist_filename(filename)[0])


def write_index(out: Path) -> dict[str, list[str]]:
    """Write ``out/simple/``, a PEP 503 index over the files in ``out``, and return it as {project: files}.

    Each link carries the file's sha256, which pip checks on download.
    """
    projects: dict[str, list[str]] = defaultdict(list)
    for path in sorted([*out.glob("*.whl"), *out.glob("*.tar.gz")]):
        projects[project_name(path.name)].append(path.name)
    simple = out / "simple"
    simple.mkdir(exist_ok=True)
    _write_page(simple / "index.html", "Simple index", [(f"{name}/", name) for name in sorted(projects)])
    for name, files in projects.items():
        links = [(f"../../{file}#sha256={_sha256(out / file)}", file) for file in files]
        (simple / name).mkdir(exist_ok=True)
        _write_page(simple / name / "index.html", f"Links for {name}", links)
    return dict(projects)


def _sha256(path: Path) -> str:
    with path.open("rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()


def _write_page(path: Path, title: str, links: list[tuple[str, str]]) -> None:
    anchors = "\n".join(f'    <a href="{html.escape(href)}">{html.escape(text)}</a><br>' for href, text in links)
    path.write_text(
        f'<!DOCTYPE html>\n<html>\n  <head>\n    <meta name="pypi:repository-version" content="1.0">\n'
        f"    <title>{html.escape(title)}</title>\n  </head>\n  <body>\n{anchors}\n  </body>\n</html>\n",
        encoding="utf-8",
    )


def build_all(out: Path, projects: list[Path]) -> dict[str, list[str]]:
    """Build ``projects`` into ``out``, replacing what was there, and index them."""
    out.mkdir(parents=True, exist_ok=True)
    clean(out)
    if ROOT in projects:
        build_project(ROOT, out)
    # A pure build is mostly interpreter start-up and file copying: two at a time halves the wait.
    with ThreadPoolExecutor(max_workers=2) as pool:
        for built in pool.map(build_project, [p for p in projects if p != ROOT], itertools.repeat(out)):
            assert built is None
    return write_index(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("projects", nargs="*", type=Path, help="project folders (default: the core and plugins/*)")
    parser.add_argument(
        "--out", type=Path, default=ROOT / "dist", help="where the files and simple/ go (default: dist/)"
    )
    args = parser.parse_args(argv)
    started = time.monotonic()
    index = build_all(args.out.resolve(), [p.resolve() for p in args.projects] or default_projects())
    files = sum(len(f) for f in index.values())
    print(f"==> {files} files from {len(index)} projects in {args.out}, index in {args.out / 'simple'}", end=" ")
    print(f"({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
