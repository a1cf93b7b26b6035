"""Snapshots in a multi-process job: one writer per set of identical ranks."""

from __future__ import annotations

import io
import os
from collections.abc import Iterable
from typing import Any

from kusari.serializers import load_npz, save_npz
from kusari.training import extension


def _parse_replica_sets(replica_sets: Iterable[Any], size: int) -> list[set[int]]:
    sets: list[set[int]] = []
    for item in replica_sets:
        ranks = {item} if isinstance(item, int) else set(item)
        bad = sorted(r for r in ranks if not 0 <= r < size)
        if bad:
            raise ValueError(
                f"multi_node_snapshot: replica set ranks must be in [0, {size}), "
                f"got {bad}"
            )
        for s in sets:
            if s & ranks:
                raise ValueError(
                    f"multi_node_snapshot: ranks {sorted(s & ranks)} appear in "
                    "two replica sets"
                )
        sets.append(ranks)
    rest = set(range(size)).difference(*sets) if sets else set(range(size))
    if rest:
        sets.append(rest)
    return sets


def _has_snapshot(fmt: str, outdir: str) -> bool:
    # The same prefix/suffix match as kusari's snapshot autoload.
    if not os.path.isdir(outdir):
        return False
    prefix = fmt.split("{")[0]
    suffix = fmt.split("}")[-1] if "}" in fmt else ""
    return any(
        n.startswith(prefix) and n.endswith(suffix) and len(n) > len(prefix + suffix)
        for n in os.listdir(outdir)
    )


class _MultiNodeSnapshot(extension.Extension):
    # Restore before the other extensions initialize (the trainer
    # initializes state-restoring extensions first).
    restores_state = True

    def __init__(self, comm: Any, snapshot: Any, replica_sets: Iterable[Any]) -> None:
        self.comm = comm
        self.snapshot = snapshot
        self.trigger = getattr(snapshot, "trigger", (1, "epoch"))
        self.priority = getattr(snapshot, "priority", -100)
        filename = snapshot.filename
        if callable(filename):
            inner = filename
            snapshot.filename = lambda trainer: f"{inner(trainer)}.{comm.rank}"
        else:
            snapshot.filename = f"{filename}.{comm.rank}"
        sets = _parse_replica_sets(replica_sets, comm.size)
        self.replica_set = next(s for s in sets if comm.rank in s)
        self.master = min(self.replica_set)

    @property
    def is_master(self) -> bool:
        return self.master == self.comm.rank

    def initialize(self, trainer: Any) -> None:
        if self.is_master:
            self.snapshot.initialize(trainer)
        if not getattr(self.snapshot, "autoload", False):
            return
        target = getattr(self.snapshot, "target", None) or trainer
        if self.is_master:
            data = None
            fmt = self.snapshot.filename
            if isinstance(fmt, str) and _has_snapshot(fmt, trainer.out):
                buf = io.BytesIO()
                save_npz(buf, target)
                data = buf.getvalue()
            for rank in sorted(self.replica_set - {self.comm.rank}):
                self.comm.send_obj_chunked(data, rank)
        else:
            data = self.comm.recv_obj_chunked(self.master)
            if data is not None:
                load_npz(io.BytesIO(data), target)

    def on_error(self, trainer: Any, exc: BaseException, tb: Any) -> None:
        if self.is_master:
            self.snapshot.on_error(trainer, exc, tb)

    def __call__(self, trainer: Any) -> None:
        if self.is_master:
            self.snapshot(trainer)

    def finalize(self) -> None:
        if self.is_master:
            self.snapshot.finalize()


def multi_node_snapshot(comm: Any, snapshot: Any, replica_sets: Iterable[Any]) -> Any:
    """Wrap a snapshot extension so that one rank per replica set writes it.

    Ranks whose state is identical form a *replica set* (e.g. ``[0]`` for a
    rank 0 with extra extensions such as LogReport, and the remaining ranks
    as another set). The lowest rank of each set writes the snapshot, with
    ``.<rank>`` appended to the file name; with ``autoload`` it loads the
    newest one at start and sends it to the rest of its set, so a job can
    restart even with another number of ranks.

    Args:
        comm: The communicator.
        snapshot: A :func:`kusari.training.extensions.snapshot` extension.
        replica_sets: Ranks (ints) or iterables of ranks; ranks not listed
            form one more set. ``[]`` makes all ranks one set.

    Returns:
        The wrapping extension.

    Example:
        >>> snapshot = kusari_mn.extensions.multi_node_snapshot(
        ...     comm, extensions.snapshot(autoload=True), [0])  # doctest: +SKIP
        >>> trainer.extend(snapshot, trigger=(1, 'epoch'))  # doctest: +SKIP
    """
    return _MultiNodeSnapshot(comm, snapshot, replica_sets)
