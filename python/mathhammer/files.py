"""Reading the user's files: the one place every command opens a scenario or profile library.

A path on the command line can name anything: a FIFO that never ends, a
device such as ``/dev/zero`` that never stops giving bytes, a directory, or a
file far larger than any scenario. Reading one of those whole would hang or
exhaust memory, so :func:`read_text` refuses, with an error naming the file,
anything that is not a regular file and any file over :data:`MAX_FILE_BYTES`.
It reads in chunks, so Ctrl-C stops it between two chunks.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from mathhammer.exceptions import ScenarioError

MAX_FILE_BYTES = 1024 * 1024
"""The largest file mathhammer reads (1 MiB); scenario files and profile libraries are a few kilobytes."""

_CHUNK = 64 * 1024

_BOM = "\ufeff"


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_text(path: str | Path) -> str:
    """The text of the user's file at ``path``: UTF-8, with a leading byte-order mark dropped.

    Raises:
        ScenarioError: naming the file, when it is missing or unreadable, is not
            a regular file, is larger than :data:`MAX_FILE_BYTES`, or is not UTF-8.
    """
    return decode(read_bytes(path), str(path))


def decode(data: bytes, source: str) -> str:
    """``data`` as UTF-8 text, with a leading byte-order mark dropped.

    Raises:
        ScenarioError: naming ``source``, when the bytes are not UTF-8.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ScenarioError(f"is not UTF-8 text: {exc.reason} at byte {exc.start}", source=source) from None
    return text.removeprefix(_BOM)


def read_bytes(
    path: str | Path, limit: int = MAX_FILE_BYTES, what: str = "a scenario file or profile library"
) -> bytes:
    """The bytes of the user's regular file at ``path``, refusing more than ``limit`` of them.

    ``what`` names the kind of file expected, for the message about a file too large.

    Raises:
        ScenarioError: naming the file, when it is missing or unreadable, is not
            a regular file, or is larger than ``limit``.
    """
    source = str(path)
    try:
        # stat before open: opening a FIFO for reading blocks until a writer comes.
        kind = os.stat(path).st_mode
        if not stat.S_ISREG(kind):
            raise ScenarioError(f"cannot be read: it is {_kind(kind)}, not a file", source=source)
        # O_NONBLOCK, and a second look at what was opened, in case the path was
        # replaced by a FIFO between the two calls.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as file:
            opened = os.fstat(file.fileno())
            if not stat.S_ISREG(opened.st_mode):
                raise ScenarioError(f"cannot be read: it is {_kind(opened.st_mode)}, not a file", source=source)
            if opened.st_size > limit:
                raise _too_large(source, opened.st_size, limit, what)
            chunks: list[bytes] = []
            size = 0
            while chunk := file.read(_CHUNK):  # Ctrl-C lands between two chunks
                size += len(chunk)
                if size > limit:  # it grew while being read
                    raise _too_large(source, size, limit, what)
                chunks.append(chunk)
    except OSError as exc:
        raise ScenarioError(f"cannot be read: {exc.strerror or exc}", source=source) from None
    return b"".join(chunks)


def _too_large(source: str, size: int, limit: int, what: str) -> ScenarioError:
    return ScenarioError(
        f"is too large: {size:,} bytes, over the {limit:,} ({limit // 1024 // 1024} MiB) mathhammer reads for {what}",
        source=source,
    )
