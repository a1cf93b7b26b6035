"""Atomic file writes: readers never see a half-written file."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from typing import IO, Any


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike[str], mode: str = "wb") -> Iterator[IO[Any]]:
    """Open a temporary file that replaces ``path`` only if the block succeeds.

    The temporary file lives in the same directory as ``path`` so that the
    final :func:`os.replace` is a rename within one file system, which POSIX
    guarantees to be atomic. If the block raises, the temporary file is
    removed and ``path`` is left untouched.

    Args:
        path: Destination file.
        mode: ``'wb'`` (default) or ``'w'``; other modes are rejected because
            appending or reading makes no sense for a fresh temporary file.

    Example:
        >>> import os, tempfile
        >>> d = tempfile.mkdtemp()
        >>> with atomic_write(os.path.join(d, 'a.txt'), 'w') as f:
        ...     _ = f.write('hello')
        >>> with open(os.path.join(d, 'a.txt')) as f:
        ...     f.read()
        'hello'
    """
    if mode not in ("wb", "w"):
        raise ValueError(f"atomic_write: mode must be 'wb' or 'w', got {mode!r}")
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp_path = tempfile.mkstemp(
        prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=directory
    )
    try:
        with os.fdopen(fd, mode) as f:
            yield f
            f.flush()
            # fsync so that a crash right after the rename cannot leave an
            # empty file under the final name.
            os.fsync(f.fileno())
        _apply_umask(tmp_path)
        os.replace(tmp_path, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_path)
        raise


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[str]:
    """Yield a temporary path that is renamed to ``path`` if the block succeeds.

    For writers that insist on opening the file themselves (h5py,
    ``numpy.savez`` with a name). The temporary file is in the same directory
    as ``path``; on error it is removed and ``path`` is untouched.

    Example:
        >>> import os, tempfile
        >>> d = tempfile.mkdtemp()
        >>> with atomic_path(os.path.join(d, 'b.txt')) as tmp:
        ...     with open(tmp, 'w') as f:
        ...         _ = f.write('hi')
        >>> with open(os.path.join(d, 'b.txt')) as f:
        ...     f.read()
        'hi'
    """
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp_path = tempfile.mkstemp(
        prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=directory
    )
    os.close(fd)
    try:
        yield tmp_path
        _apply_umask(tmp_path)
        os.replace(tmp_path, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_path)
        raise


def _apply_umask(tmp_path: str) -> None:
    # mkstemp creates files with mode 0600; give the result the permissions a
    # plain open() would have produced. Reading the umask means setting it, so
    # it is restored at once.
    umask = os.umask(0o022)
    os.umask(umask)
    os.chmod(tmp_path, 0o666 & ~umask)
