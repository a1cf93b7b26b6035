"""Snapshot writers: how (and in which thread or process) snapshots are saved.

Each writer is called as ``writer(filename, outdir, target)`` where
``target`` supports ``serialize``; the file appears under ``outdir`` only
once it is complete (written in a temporary directory, synced to disk, then
renamed). A process killed mid-write leaves its temporary directory
(``tmp<filename><8 random characters>``) behind; the snapshot extension
removes such leftovers when it starts (:func:`_remove_stale_temporaries`).
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from typing import Any

from kusari.serializers import npz

_TMP_PREFIX = "tmp"
_IMPORT_TIME = time.time()


def _fsync(path: str) -> None:
    """Flush a file, or every file in a folder a savefun wrote, to disk."""
    if os.path.isdir(path):
        for name in os.listdir(path):
            _fsync(os.path.join(path, name))
        _fsync_dir(path)
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(path: str) -> None:
    """Make a rename in ``path`` durable; a no-op where folders cannot be
    opened or synced (Windows, some network file systems)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _process_start_time() -> float:
    """When this process started (Linux: from ``/proc``), at the latest when
    this module was imported."""
    try:
        with open("/proc/self/stat") as f:
            # Field 22 is the start time in clock ticks after boot; the fields
            # are counted after the command name, which may hold spaces.
            ticks = int(f.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/stat") as f:
            boot = next(int(line.split()[1]) for line in f if line.startswith("btime"))
        started = boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return _IMPORT_TIME
    return min(started, _IMPORT_TIME)


def _name_pattern(fmt: str) -> str | None:
    """A regex of the names ``fmt.format(trainer)`` can give, or None when
    ``fmt`` is too unusual to tell (escaped braces, folders)."""
    if "{{" in fmt or "}}" in fmt or os.sep in fmt or "/" in fmt:
        return None
    return ".*".join(re.escape(part) for part in re.split(r"\{[^{}]*\}", fmt))


def _remove_stale_temporaries(outdir: str, fmt: str, before: float) -> list[str]:
    """Remove the temporary folders of :meth:`Writer.save` calls that never
    finished, e.g. because the process was killed mid-write.

    Only folders named as ``Writer.save`` names them for files named by
    ``fmt``, holding nothing but such files (or the temporaries of
    :func:`~kusari.utils.atomic.atomic_write` for them), and untouched since
    ``before`` (this process's start: a running writer's folder is newer)
    are removed. Anything else in ``outdir`` is left alone.

    Returns:
        The names of the folders removed.
    """
    body = _name_pattern(fmt)
    if body is None or not os.path.isdir(outdir):
        return []
    folder = re.compile(re.escape(_TMP_PREFIX) + body + r"[a-z0-9_]{8}")
    inner = re.compile(rf"{body}|\.{body}\..*\.tmp")
    with os.scandir(outdir) as entries:
        candidates = [
            entry.path
            for entry in entries
            if folder.fullmatch(entry.name) and entry.is_dir(follow_symlinks=False)
        ]
    removed = []
    for path in candidates:
        try:
            newest = os.lstat(path).st_mtime
            ours = True
            with os.scandir(path) as children:
                for child in children:
                    if not inner.fullmatch(child.name) or not child.is_file(
                        follow_symlinks=False
                    ):
                        ours = False
                        break
                    newest = max(newest, child.stat(follow_symlinks=False).st_mtime)
        except FileNotFoundError:  # removed meanwhile (e.g. by another trainer)
            continue
        if ours and newest < before:
            shutil.rmtree(path, ignore_errors=True)
            removed.append(os.path.basename(path))
    return removed


class Writer:
    """Base class of snapshot writers."""

    def __init__(self) -> None:
        self._post_save_hooks: list[Callable[[], None]] = []

    def __call__(self, filename: str, outdir: str, target: Any) -> None:
        raise NotImplementedError

    def __del__(self) -> None:
        self.finalize()

    def finalize(self) -> None:
        """Wait for pending writes and release workers."""

    def save(
        self,
        filename: str,
        outdir: str,
        target: Any,
        savefun: Callable[..., Any],
        **kwds: Any,
    ) -> None:
        """Save ``target`` with ``savefun`` to ``outdir/filename`` atomically.

        The file is synced to disk before it is renamed into place, and the
        folder after, so that a crash leaves either the old file or the
        complete new one, never an empty or partial file under the name.
        """
        tmpdir = tempfile.mkdtemp(prefix=_TMP_PREFIX + filename, dir=outdir)
        try:
            tmppath = os.path.join(tmpdir, filename)
            savefun(tmppath, target, **kwds)
            _fsync(tmppath)
            os.replace(tmppath, os.path.join(outdir, filename))
            _fsync_dir(outdir)
        finally:
            shutil.rmtree(tmpdir, ignore_errors=True)
        self._post_save()

    def _post_save(self) -> None:
        for hook in self._post_save_hooks:
            hook()

    def _add_cleanup_hook(self, hook: Callable[[], None]) -> None:
        self._post_save_hooks.append(hook)


class SimpleWriter(Writer):
    """Save in the calling thread.

    Args:
        savefun: ``savefun(path, target, **kwds)``; :func:`save_npz` by default.
        kwds: Passed to ``savefun``.
    """

    def __init__(self, savefun: Callable[..., Any] = npz.save_npz, **kwds: Any) -> None:
        super().__init__()
        self._savefun = savefun
        self._kwds = kwds

    def __call__(self, filename: str, outdir: str, target: Any) -> None:
        self.save(filename, outdir, target, self._savefun, **self._kwds)


class StandardWriter(Writer):
    """Save in a new worker per snapshot, waiting for the previous one first."""

    def __init__(self, savefun: Callable[..., Any] = npz.save_npz, **kwds: Any) -> None:
        super().__init__()
        self._savefun = savefun
        self._kwds = kwds
        self._worker: Any = None
        self._started = False
        self._finalized = False

    def __call__(self, filename: str, outdir: str, target: Any) -> None:
        if self._started:
            self._worker.join()
            self._started = False
        self._worker = self.create_worker(filename, outdir, target, **self._kwds)
        self._worker.start()
        self._started = True

    def create_worker(
        self, filename: str, outdir: str, target: Any, **kwds: Any
    ) -> Any:
        raise NotImplementedError

    def finalize(self) -> None:
        if getattr(self, "_started", False):
            if not self._finalized:
                self._worker.join()
            self._started = False
        self._finalized = True


class ThreadWriter(StandardWriter):
    """Save in a new thread."""

    def create_worker(
        self, filename: str, outdir: str, target: Any, **kwds: Any
    ) -> Any:
        return threading.Thread(
            target=self.save,
            args=(filename, outdir, target, self._savefun),
            kwargs=kwds,
        )


class ProcessWriter(StandardWriter):
    """Save in a new process (``savefun`` and the target must be picklable
    with the ``fork`` start method's relaxed rules)."""

    def create_worker(
        self, filename: str, outdir: str, target: Any, **kwds: Any
    ) -> Any:
        return multiprocessing.Process(
            target=self.save,
            args=(filename, outdir, target, self._savefun),
            kwargs=kwds,
        )


class QueueWriter(Writer):
    """Save through a queue consumed by one long-lived worker.

    Args:
        savefun: The save function (used when ``task`` is None).
        task: A callable ``task(filename, outdir, target)``; a
            :class:`SimpleWriter` by default.
    """

    def __init__(
        self, savefun: Callable[..., Any] = npz.save_npz, task: Any = None
    ) -> None:
        super().__init__()
        self._task = self.create_task(savefun) if task is None else task
        self._queue = self.create_queue()
        self._consumer = self.create_consumer(self._queue)
        self._consumer.start()
        self._started = True
        self._finalized = False

    def __call__(self, filename: str, outdir: str, target: Any) -> None:
        self._queue.put([self._task, filename, outdir, target])

    def create_task(self, savefun: Callable[..., Any]) -> Any:
        return SimpleWriter(savefun=savefun)

    def create_queue(self) -> Any:
        raise NotImplementedError

    def create_consumer(self, q: Any) -> Any:
        raise NotImplementedError

    def consume(self, q: Any) -> None:
        while True:
            task = q.get()
            if task is None:
                q.task_done()
                return
            task[0](task[1], task[2], task[3])
            self._post_save()  # e.g. the n_retains cleanup of the snapshot
            q.task_done()

    def finalize(self) -> None:
        if getattr(self, "_started", False):
            if not self._finalized:
                self._queue.put(None)
                self._queue.join()
                self._consumer.join()
            self._started = False
        self._finalized = True


class ThreadQueueWriter(QueueWriter):
    """Save through a queue consumed by a thread."""

    def create_queue(self) -> Any:
        return queue.Queue()

    def create_consumer(self, q: Any) -> Any:
        return threading.Thread(target=self.consume, args=(q,))


class ProcessQueueWriter(QueueWriter):
    """Save through a queue consumed by a process.

    The consumer process starts before the snapshot extension registers its
    cleanup hook, so the hooks (e.g. ``n_retains``) run in this process:
    before each new snapshot is queued and after the queue is drained.
    """

    def __call__(self, filename: str, outdir: str, target: Any) -> None:
        self._post_save()
        super().__call__(filename, outdir, target)

    def finalize(self) -> None:
        drained = getattr(self, "_started", False) and not self._finalized
        super().finalize()
        if drained:
            self._post_save()

    def create_queue(self) -> Any:
        return multiprocessing.JoinableQueue()

    def create_consumer(self, q: Any) -> Any:
        return multiprocessing.Process(target=self.consume, args=(q,))
