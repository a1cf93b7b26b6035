"""Dataset cache directory, verified downloads and build-once caches.

The root is ``$KUSARI_DATASET_ROOT`` or ``~/.kusari/dataset``. Downloads go to
``<root>/_dl_cache/<md5 of the URL>`` (Chainer's layout). A download is:

* guarded by an ``fcntl`` lock, so concurrent processes download once;
* written to a ``.part`` file and renamed only when complete and verified;
* resumed with an HTTP ``Range`` request after a dropped connection, and
  retried with exponential backoff on network errors;
* bounded by socket timeouts, so it never hangs;
* checked against a SHA-256 digest (or a custom verifier) when one is given.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import os
import shutil
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from typing import TypeVar

try:
    import fcntl
except ImportError:  # Windows: no advisory locks; downloads are unguarded.
    fcntl = None  # type: ignore[assignment]

T = TypeVar("T")

_dataset_root = os.environ.get(
    "KUSARI_DATASET_ROOT",
    os.path.join(os.path.expanduser("~"), ".kusari", "dataset"),
)

#: Seconds a single socket operation may block before the attempt fails.
DOWNLOAD_TIMEOUT = 30.0
#: How many times a download is attempted before giving up.
DOWNLOAD_ATTEMPTS = 4
#: Seconds to wait before the first retry; doubled after every failure.
RETRY_BACKOFF = 1.0
#: Seconds to wait for another process's lock before giving up.
LOCK_TIMEOUT = 3600.0
_CHUNK = 1 << 16


class DownloadError(OSError):
    """A file could not be downloaded; the message names the URL."""


class ChecksumError(DownloadError):
    """A downloaded file does not match its expected checksum."""


def get_dataset_root() -> str:
    """Return the root directory of the dataset cache.

    Example:
        >>> isinstance(get_dataset_root(), str)
        True
    """
    return _dataset_root


def set_dataset_root(path: str | os.PathLike[str]) -> None:
    """Set the root directory of the dataset cache for this process.

    Example:
        >>> old = get_dataset_root()
        >>> set_dataset_root('/tmp/kusari-data')
        >>> get_dataset_root()
        '/tmp/kusari-data'
        >>> set_dataset_root(old)
    """
    global _dataset_root
    _dataset_root = os.fspath(path)


def get_dataset_directory(dataset_name: str, create_directory: bool = True) -> str:
    """Return ``<root>/<dataset_name>``, creating it unless told not to.

    Example:
        >>> get_dataset_directory('pfnet/chainer/mnist', False).endswith('mnist')
        True
    """
    path = os.path.join(_dataset_root, dataset_name)
    if create_directory:
        try:
            os.makedirs(path, exist_ok=True)
        except OSError as e:
            raise OSError(
                f"get_dataset_directory: cannot create {path!r} ({e}); set "
                "KUSARI_DATASET_ROOT or call set_dataset_root() to a writable place"
            ) from e
    return path


def env_base_url(env_var: str, default: str) -> str:
    """Return ``$env_var`` if set (e.g. a local mirror), else ``default``.

    Example:
        >>> env_base_url('KUSARI_NO_SUCH_VARIABLE', 'https://example.org/')
        'https://example.org/'
    """
    value = os.environ.get(env_var)
    return value if value else default


@contextlib.contextmanager
def _file_lock(path: str, timeout: float | None = None) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``path`` (created if missing).

    The lock is polled rather than blocking so that a stuck holder produces a
    clear error after ``timeout`` instead of a hang. A holder that dies
    releases the lock automatically.
    """
    if fcntl is None:
        yield
        return
    timeout = LOCK_TIMEOUT if timeout is None else timeout
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise TimeoutError(
                        f"timed out after {timeout:.0f} s waiting for the lock "
                        f"{path!r} held by another process"
                    ) from None
                time.sleep(0.05)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def sha256_of_file(path: str) -> str:
    """Return the hex SHA-256 digest of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


class _Permanent(Exception):
    """An HTTP answer that retrying cannot fix (404, 403, ...)."""


def _fetch_once(url: str, part: str, timeout: float) -> None:
    """Download ``url`` into ``part``, resuming from its current size."""
    offset = os.path.getsize(part) if os.path.exists(part) else 0
    headers = {"User-Agent": "kusari-dataset-downloader"}
    if offset:
        headers["Range"] = f"bytes={offset}-"
    request = urllib.request.Request(url, headers=headers)
    try:
        response = urllib.request.urlopen(request, timeout=timeout)
    except urllib.error.HTTPError as e:
        if e.code == 416 and offset:
            return  # the part file already holds the whole resource
        if 400 <= e.code < 500 and e.code not in (408, 429):
            raise _Permanent(f"HTTP {e.code} {e.reason}") from e
        raise
    with response:
        if offset and response.status == 206:
            content_range = response.headers.get("Content-Range", "")
            if not content_range.startswith(f"bytes {offset}-"):
                os.unlink(part)  # cannot tell where this piece goes: restart
                raise http.client.HTTPException(
                    f"unexpected Content-Range {content_range!r} for offset {offset}"
                )
            mode = "ab"
        else:  # the server ignored the range: start over
            mode, offset = "wb", 0
        length = response.headers.get("Content-Length")
        expected = int(length) if length is not None else None
        received = 0
        with open(part, mode) as f:
            while True:
                chunk = response.read(_CHUNK)
                if not chunk:
                    break
                f.write(chunk)
                received += len(chunk)
        if expected is not None and received < expected:
            raise http.client.IncompleteRead(b"", expected - received)


def _download(url: str, part: str, timeout: float, attempts: int) -> None:
    delay = RETRY_BACKOFF
    last: BaseException | None = None
    for attempt in range(attempts):
        try:
            _fetch_once(url, part, timeout)
            return
        except _Permanent as e:
            raise DownloadError(f"cannot download {url}: {e}") from e
        except (OSError, http.client.HTTPException) as e:
            # URLError, HTTPError 5xx, timeouts, resets and short reads.
            last = e
        if attempt + 1 < attempts:
            time.sleep(delay)
            delay *= 2
    raise DownloadError(
        f"cannot download {url} after {attempts} attempts (offline, or the "
        f"server is unreachable?): {last!r}"
    ) from last


def cached_download(
    url: str,
    *,
    sha256: str | None = None,
    verify: Callable[[str], bool] | None = None,
    timeout: float | None = None,
    attempts: int | None = None,
) -> str:
    """Download a file once into the cache and return its local path.

    Args:
        url: The URL to fetch.
        sha256: Expected hex SHA-256 of the downloaded bytes, if known.
        verify: Optional extra check ``verify(path) -> bool`` run on the
            complete file (e.g. a digest of the decompressed payload).
        timeout: Seconds per socket operation (default
            :data:`DOWNLOAD_TIMEOUT`).
        attempts: Tries before giving up (default :data:`DOWNLOAD_ATTEMPTS`).

    Returns:
        Path of the cached file.

    Raises:
        DownloadError: The file cannot be fetched (the message names the URL).
        ChecksumError: The file was fetched but does not verify.

    Example:
        >>> path = cached_download('https://example.org/data.bin')  # doctest: +SKIP
    """
    timeout = DOWNLOAD_TIMEOUT if timeout is None else timeout
    attempts = DOWNLOAD_ATTEMPTS if attempts is None else attempts
    if attempts < 1:
        raise ValueError(f"cached_download: attempts must be >= 1, got {attempts}")
    cache_root = os.path.join(_dataset_root, "_dl_cache")
    os.makedirs(cache_root, exist_ok=True)
    # MD5 only names the file, as Chainer does; it is not a security check.
    name = hashlib.md5(url.encode("utf-8"), usedforsecurity=False).hexdigest()
    cache_path = os.path.join(cache_root, name)
    if os.path.exists(cache_path):
        return cache_path
    with _file_lock(cache_path + ".lock"):
        if os.path.exists(cache_path):  # another process finished meanwhile
            return cache_path
        part = cache_path + ".part"
        print(f"Downloading from {url}...", file=sys.stderr)
        _download(url, part, timeout, attempts)
        _check(url, part, sha256, verify)
        os.replace(part, cache_path)
    return cache_path


def _check(
    url: str, part: str, sha256: str | None, verify: Callable[[str], bool] | None
) -> None:
    if sha256 is not None:
        actual = sha256_of_file(part)
        if actual != sha256.lower():
            os.unlink(part)
            raise ChecksumError(
                f"checksum mismatch for {url}: expected sha256 {sha256}, got "
                f"{actual}; the partial file was deleted, try again"
            )
    if verify is not None and not verify(part):
        os.unlink(part)
        raise ChecksumError(
            f"the file downloaded from {url} failed verification; it was deleted"
        )


def cache_or_load_file(
    path: str, creator: Callable[[str], T], loader: Callable[[str], T]
) -> T:
    """Load ``path`` if it exists; otherwise build it once with ``creator``.

    ``creator(tmp_path)`` writes the file to a temporary path and returns the
    content; the file is then renamed to ``path``, so no reader ever sees a
    half-written cache. A lock keeps concurrent processes from building the
    same file twice.

    Args:
        path: The cache file.
        creator: ``creator(tmp_path) -> content``.
        loader: ``loader(path) -> content``, used when the cache exists.

    Example:
        >>> import os, tempfile
        >>> p = os.path.join(tempfile.mkdtemp(), 'n.txt')
        >>> def create(tmp):
        ...     with open(tmp, 'w') as f:
        ...         _ = f.write('42')
        ...     return 42
        >>> def load(q):
        ...     with open(q) as f:
        ...         return int(f.read()) + 1
        >>> cache_or_load_file(p, create, load)
        42
        >>> cache_or_load_file(p, create, load)
        43
    """
    if os.path.exists(path):
        return loader(path)
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    with _file_lock(path + ".lock"):
        if os.path.exists(path):
            return loader(path)
        tmp_dir = tempfile.mkdtemp(dir=directory, prefix=".tmp-")
        try:
            tmp_path = os.path.join(tmp_dir, os.path.basename(path))
            content = creator(tmp_path)
            if os.path.exists(tmp_path):
                os.replace(tmp_path, path)
        finally:
            shutil.rmtree(tmp_dir, ignore_errors=True)
    return content


__all__ = [
    "ChecksumError",
    "DownloadError",
    "cache_or_load_file",
    "cached_download",
    "env_base_url",
    "get_dataset_directory",
    "get_dataset_root",
    "set_dataset_root",
    "sha256_of_file",
]
