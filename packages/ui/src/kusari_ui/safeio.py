"""Opening files that someone else controls without ever blocking on them.

A run folder is written by the training job (or by anyone who can write
there): a FIFO named ``args`` would block a plain ``open`` until a writer
appears, and a device could feed bytes forever. Everything the crawler and
the API read from a run folder goes through :func:`open_regular`, which opens
with ``O_NONBLOCK`` and refuses anything that is not a regular file before a
single byte is read.

Example:
    >>> with open_regular("result/log") as f:  # doctest: +SKIP
    ...     head = f.read(100)
"""

from __future__ import annotations

import os
import stat
from typing import BinaryIO


class NotRegularFileError(OSError):
    """The path names a FIFO, a device, a socket or a folder, not a file."""


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """Open ``path`` for binary reading if, and only if, it is a regular file.

    The file is opened non-blocking (so a FIFO without a writer does not
    hang the caller) and checked with ``fstat`` on the opened descriptor, so
    a swap between a check and the open cannot slip a FIFO in.

    Args:
        path: The file to open.

    Returns:
        A binary file object positioned at the start (close it).

    Raises:
        NotRegularFileError: ``path`` is a FIFO, device, socket or folder.
        OSError: Any other failure to open (missing, permission denied...).
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFileError(
                f"{os.fspath(path)} is {_kind(st.st_mode)}, not a regular file"
            )
        # Regular files ignore O_NONBLOCK; clearing it keeps reads ordinary.
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: str | os.PathLike[str], limit: int) -> bytes:
    """At most ``limit`` bytes of the regular file ``path``.

    Raises:
        NotRegularFileError: ``path`` is not a regular file.
        OSError: It cannot be opened or read.
    """
    with open_regular(path) as f:
        return f.read(limit)
