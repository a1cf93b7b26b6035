"""Dataset cache directory, verified downloads and build-once caches.

The root is ``$KUSARI_DATASET_ROOT`` or ``~/.kusari/dataset``. Downloads go to
``<root>/_dl_cache/<md5 of the URL>`` (Chainer's layout). A download is:

* guarded by an ``fcntl`` lock, so concurrent processes download once;
* written to a ``.part`` file and renamed only when complete and verified;
* resumed with an HTTP ``Range`` request after a dropped connection, and
  retried with exponential backoff on network errors;
* bounded by socket timeouts and by an overall deadline
  (``$KUSARI_DOWNLOAD_TIMEOUT`` seconds, default :data:`DOWNLOAD_DEADLINE`),
  so neither a silent nor a dripping server can hang it;
* checked against a SHA-256 digest (or a custom verifier) when one is given,
  both after downloading and every time the cached file is used again.

A file built from downloads (e.g. MNIST's ``train.npz``, through
:func:`cache_or_load_file`) that cannot be loaded is reported with its path
(:class:`CacheFileError`) rather than as the loader's bare exception.
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
import zipfile
import zlib
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
#: Seconds a whole download (every attempt and wait) may take, unless
#: ``$KUSARI_DOWNLOAD_TIMEOUT`` or the ``deadline`` argument says otherwise.
DOWNLOAD_DEADLINE = 3600.0
DEADLINE_ENV = "KUSARI_DOWNLOAD_TIMEOUT"
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


class DownloadTimeoutError(DownloadError, TimeoutError):
    """A download did not finish within its overall deadline."""


class CacheFileError(OSError):
    """A file in the dataset cache exists but cannot be loaded; the message
    names the file and says how to rebuild it."""


class _DeadlineExceeded(Exception):
    """Raised inside an attempt when the overall deadline has passed."""


def _deadline_seconds(deadline: float | None) -> float:
    if deadline is None:
        text = os.environ.get(DEADLINE_ENV)
        if not text:
            return DOWNLOAD_DEADLINE
        try:
            deadline = float(text)
        except ValueError:
            raise ValueError(
                f"cached_download: ${DEADLINE_ENV} must be a number of seconds, "
                f"got {text!r}"
            ) from None
        where = f"${DEADLINE_ENV}"
    else:
        where = "deadline"
    if not deadline > 0:
        raise ValueError(f"cached_download: {where} must be > 0, got {deadline!r}")
    return float(deadline)


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
def file_lock(path: str, timeout: float | None = None) -> Iterator[None]:
    """Hold an exclusive inter-process ``flock`` on ``path`` (created if missing).

    Downloads and dataset builders take it so that two processes never fetch
    or build the same file at once.

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


def _fetch_once(url: str, part: str, timeout: float, end: float) -> None:
    """Download ``url`` into ``part``, resuming from its current size.

    ``end`` is the :func:`time.monotonic` time by which the whole download
    must be done. It is checked after every read, and no socket operation
    may block past it, so a server that drips bytes cannot keep the
    download alive forever.
    """
    timeout = min(timeout, max(end - time.monotonic(), 0.01))
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
                # read1 returns whatever arrived; read(n) would wait for n.
                chunk = response.read1(_CHUNK)
                if not chunk:
                    break
                f.write(chunk)
                received += len(chunk)
                done = expected is not None and received >= expected
                if not done and time.monotonic() > end:
                    raise _DeadlineExceeded
        if expected is not None and received < expected:
            raise http.client.IncompleteRead(b"", expected - received)


def _download(
    url: str, part: str, timeout: float, attempts: int, deadline: float
) -> None:
    end = time.monotonic() + deadline
    delay = RETRY_BACKOFF
    last: BaseException | None = None
    for attempt in range(attempts):
        try:
            _fetch_once(url, part, timeout, end)
            return
        except _Permanent as e:
            raise DownloadError(f"cannot download {url}: {e}") from e
        except _DeadlineExceeded:
            last = None
        except (OSError, http.client.HTTPException) as e:
            # URLError, HTTPError 5xx, timeouts, resets and short reads.
            last = e
        out_of_time = time.monotonic() + (delay if attempt + 1 < attempts else 0)
        if out_of_time >= end:
            kept = os.path.getsize(part) if os.path.exists(part) else 0
            raise DownloadTimeoutError(
                f"cannot download {url}: not finished within the {deadline:g} s "
                f"deadline (set ${DEADLINE_ENV} to allow longer); the {kept} "
                "bytes received are kept and the next try resumes from there"
                + (f" (last error: {last!r})" if last is not None else "")
            ) from last
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
    deadline: float | None = None,
) -> str:
    """Download a file once into the cache and return its local path.

    When ``sha256`` or ``verify`` is given, a file already in the cache is
    checked again before it is returned; one that fails (corrupted, or
    replaced by something else) is downloaded anew.

    Args:
        url: The URL to fetch.
        sha256: Expected hex SHA-256 of the downloaded bytes, if known.
        verify: Optional extra check ``verify(path) -> bool`` run on the
            complete file (e.g. a digest of the decompressed payload).
        timeout: Seconds per socket operation (default
            :data:`DOWNLOAD_TIMEOUT`).
        attempts: Tries before giving up (default :data:`DOWNLOAD_ATTEMPTS`).
        deadline: Seconds the whole download may take, retries included
            (default ``$KUSARI_DOWNLOAD_TIMEOUT``, else
            :data:`DOWNLOAD_DEADLINE`).

    Returns:
        Path of the cached file.

    Raises:
        DownloadError: The file cannot be fetched (the message names the URL).
        ChecksumError: The file was fetched but does not verify.
        DownloadTimeoutError: The deadline passed first.

    Example:
        >>> path = cached_download('https://example.org/data.bin')  # doctest: +SKIP
    """
    timeout = DOWNLOAD_TIMEOUT if timeout is None else timeout
    attempts = DOWNLOAD_ATTEMPTS if attempts is None else attempts
    if attempts < 1:
        raise ValueError(f"cached_download: attempts must be >= 1, got {attempts}")
    deadline = _deadline_seconds(deadline)
    cache_root = os.path.join(_dataset_root, "_dl_cache")
    os.makedirs(cache_root, exist_ok=True)
    # MD5 only names the file, as Chainer does; it is not a security check.
    name = hashlib.md5(url.encode("utf-8"), usedforsecurity=False).hexdigest()
    cache_path = os.path.join(cache_root, name)
    checked = sha256 is not None or verify is not None
    if os.path.exists(cache_path) and (
        not checked or _passes(cache_path, sha256, verify)
    ):
        return cache_path
    with file_lock(cache_path + ".lock"):
        if os.path.exists(cache_path):  # another process finished meanwhile?
            if not checked or _passes(cache_path, sha256, verify):
                return cache_path
            print(
                f"The cached copy of {url} ({cache_path}) fails its checksum; "
                "downloading it again",
                file=sys.stderr,
            )
            os.unlink(cache_path)
        part = cache_path + ".part"
        print(f"Downloading from {url}...", file=sys.stderr)
        _download(url, part, timeout, attempts, deadline)
        _check(url, part, sha256, verify)
        os.replace(part, cache_path)
    return cache_path


def _passes(
    path: str, sha256: str | None, verify: Callable[[str], bool] | None
) -> bool:
    """Whether a cached file matches its digest and passes ``verify``."""
    if sha256 is not None and sha256_of_file(path) != sha256.lower():
        return False
    if verify is None:
        return True
    try:
        return bool(verify(path))
    except (OSError, ValueError, EOFError, zlib.error):
        return False  # e.g. a gzip verifier fed a file that is not gzip


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
    if verify is not None and not _passes(part, None, verify):
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
    same file twice. A cache file that ``loader`` cannot read (truncated or
    corrupt) raises :class:`CacheFileError`, which names it: delete it and
    it is rebuilt on the next call.

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
        return _load_cached(path, loader)
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    with file_lock(path + ".lock"):
        if os.path.exists(path):
            return _load_cached(path, loader)
        tmp_dir = tempfile.mkdtemp(dir=directory, prefix=".tmp-")
        try:
            tmp_path = os.path.join(tmp_dir, os.path.basename(path))
            content = creator(tmp_path)
            if os.path.exists(tmp_path):
                os.replace(tmp_path, path)
        finally:
            shutil.rmtree(tmp_dir, ignore_errors=True)
    return content


def _load_cached(path: str, loader: Callable[[str], T]) -> T:
    try:
        return loader(path)
    except FileNotFoundError:
        raise
    except (
        OSError,
        ValueError,
        EOFError,
        KeyError,
        IndexError,
        zipfile.BadZipFile,
        zlib.error,
    ) as e:
        raise CacheFileError(
            f"cannot load the cached file {path!r} ({type(e).__name__}: {e}); "
            "it is probably truncated or corrupt: delete it and it will be "
            "rebuilt on the next call"
        ) from e


__all__ = [
    "CacheFileError",
    "ChecksumError",
    "DownloadError",
    "DownloadTimeoutError",
    "cache_or_load_file",
    "cached_download",
    "env_base_url",
    "file_lock",
    "get_dataset_directory",
    "get_dataset_root",
    "set_dataset_root",
    "sha256_of_file",
]
