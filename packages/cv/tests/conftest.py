"""Shared test setup for kusari-cv."""

from __future__ import annotations

import os
import queue
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

# Draw off-screen: plots are checked through their artists and pixels.
os.environ.setdefault("MPLBACKEND", "Agg")


@pytest.fixture(autouse=True)
def _close_figures() -> Iterator[None]:
    """Close the matplotlib figures a test opened, so they do not pile up."""
    yield
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")


@pytest.fixture
def backend_config(request: pytest.FixtureRequest) -> Iterator[str]:
    """Run a test under each image backend (``'PIL'``, ``'cv2'``) given as
    its parameter; ``'cv2'`` is skipped when OpenCV is not installed."""
    import kusari

    name = request.param
    if name == "cv2":
        pytest.importorskip("cv2", reason="OpenCV is not installed")
    keys = ("cv_read_image_backend", "cv_resize_backend", "cv_rotate_backend")
    with kusari.using_config(keys[0], name), kusari.using_config(keys[1], name):
        with kusari.using_config(keys[2], name):
            yield name


@pytest.fixture
def offline(tmp_path, monkeypatch) -> Iterator[Any]:
    """An empty dataset root (``tmp_path``, yielded) and a network that is
    unreachable: a download fails at once with ``URLError``."""
    import urllib.error
    import urllib.request

    import kusari
    from kusari.dataset import download

    def unreachable(*args, **kwargs):
        raise urllib.error.URLError("network is unreachable")

    monkeypatch.setattr(urllib.request, "urlopen", unreachable)
    monkeypatch.setattr(download, "RETRY_BACKOFF", 0.0)
    old_root = kusari.dataset.get_dataset_root()
    kusari.dataset.set_dataset_root(str(tmp_path))
    yield tmp_path
    kusari.dataset.set_dataset_root(old_root)


# Workers as threads: a stand-in for a kusari_mn communicator, for code that
# spreads work over workers (apply_to_iterator, the evaluators).


class ThreadComm:
    """Rank ``rank`` of ``size`` workers sharing ``channels`` (point to point
    queues) and a gather queue; only the calls apply_to_iterator makes."""

    def __init__(self, rank, size, channels, gather):
        self.rank, self.size = rank, size
        self._channels, self._gather = channels, gather

    @classmethod
    def group(cls, size):
        channels = {(s, d): queue.Queue() for s in range(size) for d in range(size)}
        gather = [queue.Queue() for _ in range(size)]
        return [cls(r, size, channels, gather) for r in range(size)]

    def send_obj(self, obj, dest, tag=0):
        self._channels[self.rank, dest].put(obj)

    def recv_obj(self, source, status=None, tag=-1):
        return self._channels[source, self.rank].get(timeout=30)

    def gather_obj(self, obj, root=0):
        self._gather[self.rank].put(obj)
        if self.rank != root:
            return None
        return [q.get(timeout=30) for q in self._gather]


def _run_workers(comms, target):
    """Start ``target(comm)`` for every non-root rank; return the threads."""
    threads = [
        threading.Thread(target=target, args=(c,), daemon=True) for c in comms[1:]
    ]
    for t in threads:
        t.start()
    return threads


@pytest.fixture
def thread_comms() -> Callable[[int], list[Any]]:
    """``thread_comms(size)``: the communicators of ``size`` thread workers."""
    return ThreadComm.group


@pytest.fixture
def run_workers() -> Callable[..., list[threading.Thread]]:
    """``run_workers(comms, target)`` runs ``target(comm)`` for every rank but
    0 in a thread and returns the threads."""
    return _run_workers
