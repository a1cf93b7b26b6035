"""Cached downloads of data sets and pretrained models, and archive extraction.

The byte transfer itself (resume, retries, timeouts, ``.part`` file renamed on
success, a lock so concurrent processes download once) is kusari core's
:func:`kusari.dataset.cached_download`; this module adds ChainerCV's
``download_model`` layout, MD5 checksums (the digests data set hosts publish)
and an archive extractor that refuses members escaping the destination.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tarfile
import tempfile
import zipfile
from collections.abc import Iterator

import kusari
from kusari.dataset import download as kusari_download

#: Directory (under the dataset root) that holds downloaded model files.
MODEL_DIRECTORY = os.path.join("pfnet", "chainercv", "models")

_ARCHIVE_EXTS = (".zip", ".tar", ".gz", ".tgz")


@contextlib.contextmanager
def file_lock(path: str, timeout: float = 3600.0) -> Iterator[None]:
    """Hold an exclusive inter-process lock on ``path`` (created if missing).

    Used so that two processes (e.g. ChainerMN workers) never download or
    extract the same data set at the same time. A holder that dies releases
    the lock automatically. This is kusari's own download lock
    (:func:`kusari.dataset.download.file_lock`), creating the folder first.

    Args:
        path: The lock file.
        timeout: Seconds to wait for another holder before giving up.

    Example:
        >>> import tempfile, os
        >>> with file_lock(os.path.join(tempfile.mkdtemp(), 'x.lock')):
        ...     pass
    """
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with kusari_download.file_lock(path, timeout):
        yield


def _md5_of_file(path: str) -> str:
    digest = hashlib.md5(usedforsecurity=False)
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def cached_download(url: str, md5: str | None = None, sha256: str | None = None) -> str:
    """Download a file once into the cache and return its local path.

    The cache lives in ``<dataset root>/_dl_cache`` and is keyed by the URL,
    so a second call (from any process) returns at once. The file is written
    to a temporary name and renamed only after it verified.

    Args:
        url: The URL to fetch.
        md5: Expected hex MD5 digest of the file, if known.
        sha256: Expected hex SHA-256 digest of the file, if known.

    Returns:
        Path of the cached file.

    Raises:
        kusari.dataset.download.DownloadError: The file cannot be fetched
            (offline, or the server refuses); the message names the URL.
        kusari.dataset.download.ChecksumError: The file does not match the
            given digest; the partial file is deleted.

    Example:
        >>> path = cached_download('https://example.org/a.zip')  # doctest: +SKIP
    """
    verify = None
    if md5 is not None:
        expected = md5.lower()

        def verify(path: str) -> bool:
            return _md5_of_file(path) == expected

    return kusari.dataset.cached_download(url, sha256=sha256, verify=verify)


def download_model(url: str, md5: str | None = None) -> str:
    """Download a pretrained model file into the model directory.

    ``http://host/dir/model.npz`` is stored as
    ``<dataset root>/pfnet/chainercv/models/model.npz``; if that file exists
    already, nothing is downloaded.

    Args:
        url: The URL to fetch.
        md5: Expected hex MD5 digest of the file, if known.

    Returns:
        Path of the model file.

    Example:
        >>> path = download_model('https://example.org/m.npz')  # doctest: +SKIP
    """
    root = kusari.dataset.get_dataset_directory(MODEL_DIRECTORY)
    path = os.path.join(root, os.path.basename(url))
    if os.path.exists(path):
        return path
    with file_lock(path + ".lock"):
        if not os.path.exists(path):  # another process may have finished
            cache_path = cached_download(url, md5=md5)
            # Copy then rename: the cache entry stays valid and the model file
            # appears complete or not at all.
            part = path + ".part"
            shutil.copyfile(cache_path, part)
            os.replace(part, path)
    return path


def _check_member(name: str, destination: str, archive: str) -> None:
    """Refuse member names that would land outside ``destination``."""
    root = os.path.realpath(destination)
    target = os.path.realpath(os.path.join(root, name))
    if os.path.isabs(name) or os.path.commonpath([root, target]) != root:
        raise ValueError(
            f"extractall: member {name!r} of {archive!r} would be written "
            f"outside {destination!r}; refusing to extract this archive"
        )


def _extract_tar(file_path: str, gzipped: bool, destination: str) -> None:
    # ".tar" files in the wild are sometimes compressed: let tarfile sniff.
    with tarfile.open(file_path, "r:gz" if gzipped else "r:*") as archive:
        for member in archive.getmembers():
            _check_member(member.name, destination, file_path)
            if member.issym() or member.islnk():
                link_base = os.path.dirname(member.name) if member.issym() else ""
                _check_member(
                    os.path.join(link_base, member.linkname), destination, file_path
                )
            elif not (member.isfile() or member.isdir()):
                raise ValueError(
                    f"extractall: member {member.name!r} of {file_path!r} is a "
                    "device or FIFO; refusing to extract this archive"
                )
        if hasattr(tarfile, "data_filter"):
            # The 'data' filter re-checks the same rules inside tarfile.
            archive.extractall(destination, filter="data")
        else:  # Python < 3.10.12 / 3.11.4: the checks above must do
            archive.extractall(destination)


def _extract_zip(file_path: str, destination: str) -> None:
    with zipfile.ZipFile(file_path, "r") as archive:
        for name in archive.namelist():
            _check_member(name, destination, file_path)
        archive.extractall(destination)


def _merge_into(source: str, destination: str) -> None:
    """Move the tree ``source`` into ``destination``, merging directories."""
    for entry in os.listdir(source):
        src = os.path.join(source, entry)
        dst = os.path.join(destination, entry)
        dst_is_dir = os.path.isdir(dst) and not os.path.islink(dst)
        if os.path.isdir(src) and dst_is_dir:
            _merge_into(src, dst)
            continue
        # The archive's entry replaces whatever was there.
        if dst_is_dir:
            shutil.rmtree(dst)
        elif os.path.lexists(dst):
            os.remove(dst)
        os.replace(src, dst)


def extractall(file_path: str, destination: str, ext: str) -> None:
    """Extract an archive into ``destination``.

    The archive is unpacked into a hidden temporary folder next to its final
    place and then moved in, so an interrupted extraction leaves nothing
    half-written. Members with absolute paths, ``..`` components, links
    pointing outside ``destination`` or device files are refused.

    Args:
        file_path: The archive.
        destination: The directory to extract into (created if missing).
        ext: The archive's extension: ``'.zip'``, ``'.tar'``, ``'.gz'`` or
            ``'.tgz'`` (the last two are gzipped tar files).

    Example:
        >>> import io, os, tempfile, zipfile
        >>> tmp = tempfile.mkdtemp()
        >>> with zipfile.ZipFile(os.path.join(tmp, 'a.zip'), 'w') as z:
        ...     z.writestr('d/x.txt', 'hi')
        >>> extractall(os.path.join(tmp, 'a.zip'), os.path.join(tmp, 'out'), '.zip')
        >>> with open(os.path.join(tmp, 'out', 'd', 'x.txt')) as f:
        ...     f.read()
        'hi'
    """
    if ext not in _ARCHIVE_EXTS:
        raise ValueError(f"extractall: ext must be one of {_ARCHIVE_EXTS}, got {ext!r}")
    if not os.path.isfile(file_path):
        raise FileNotFoundError(f"extractall: no archive at {file_path!r}")
    os.makedirs(destination, exist_ok=True)
    staging = tempfile.mkdtemp(dir=destination, prefix=".extract-")
    try:
        if ext == ".zip":
            _extract_zip(file_path, staging)
        else:
            _extract_tar(file_path, ext != ".tar", staging)
        _merge_into(staging, destination)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


__all__ = [
    "cached_download",
    "download_model",
    "extractall",
    "file_lock",
]
