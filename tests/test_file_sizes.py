"""No source file grows past 1,000 lines: a module that long holds more than one thing, and is split by what it does."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MOST_LINES = 1_000
SOURCE = (".py", ".pyi", ".rs", ".js", ".css", ".html")
SKIPPED = {".git", ".venv", "target", "build", "node_modules"}


def source_files() -> list[Path]:
    """The project's source files: those git tracks, or every one below the root outside build output."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, text=True
        ).stdout.split("\0")
        files = [ROOT / name for name in listed if name]
    except (OSError, subprocess.CalledProcessError):
        files = [p for p in ROOT.rglob("*") if not SKIPPED & set(p.relative_to(ROOT).parts)]
    return sorted(p for p in files if p.suffix in SOURCE and p.is_file())


def test_no_source_file_is_over_a_thousand_lines() -> None:
    files = source_files()
    assert any(p.name == "lib.rs" for p in files), "the Rust core's sources are among those checked"
    long = {
        str(p.relative_to(ROOT)): n
        for p in files
        if (n := len(p.read_text(encoding="utf-8", errors="replace").splitlines())) > MOST_LINES
    }
    assert long == {}, f"split these by what their parts do (at most {MOST_LINES:,} lines a file): {long}"
