"""Per-rank checkpoints that restart from the newest iteration every rank has."""

from __future__ import annotations

import os
import re
import time
from typing import Any

from kusari.serializers import load_npz, save_npz
from kusari.training import extension


class _MultiNodeCheckpointer(extension.Extension):
    trigger = (1, "epoch")
    priority = -100

    def __init__(
        self,
        name: str,
        comm: Any,
        cp_interval: int = 5,
        gc_interval: int = 5,
        path: str | None = None,
    ) -> None:
        if cp_interval < 1 or gc_interval < 1:
            raise ValueError(
                "create_multi_node_checkpointer: cp_interval and gc_interval "
                f"must be >= 1, got {cp_interval} and {gc_interval}"
            )
        self.name = name
        self.comm = comm
        self.cp_interval = cp_interval
        self.gc_interval = gc_interval
        self.path = path
        self.files: list[str] = []
        self.stats: dict[str, Any] = {
            "saved": 0,
            "removed": 0,
            "save_time": 0.0,
            "loaded_iteration": None,
        }
        self._pattern = re.compile(rf"^{re.escape(name)}\.{comm.rank}\.(\d+)$")

    def _dir(self, trainer: Any = None, path: str | None = None) -> str:
        out = path or self.path or (trainer.out if trainer is not None else ".")
        return str(out)

    def __call__(self, trainer: Any) -> None:
        outdir = self._dir(trainer)
        os.makedirs(outdir, exist_ok=True)
        filename = f"{self.name}.{self.comm.rank}.{trainer.updater.iteration}"
        start = time.perf_counter()
        save_npz(os.path.join(outdir, filename), trainer)  # atomic rename
        self.stats["save_time"] += time.perf_counter() - start
        self.stats["saved"] += 1
        if filename not in self.files:
            self.files.append(filename)
        if len(self.files) >= self.cp_interval + self.gc_interval:
            self._collect_garbage(outdir)

    def _collect_garbage(self, outdir: str) -> None:
        stale, self.files = (
            self.files[: -self.cp_interval],
            self.files[-self.cp_interval :],
        )
        for name in stale:
            try:
                os.remove(os.path.join(outdir, name))
                self.stats["removed"] += 1
            except FileNotFoundError:
                pass

    def _local_iterations(self, outdir: str) -> set[int]:
        if not os.path.isdir(outdir):
            return set()
        found = set()
        for name in os.listdir(outdir):
            m = self._pattern.match(name)
            if m:
                found.add(int(m.group(1)))
        return found

    def maybe_load(
        self, trainer: Any = None, optimizer: Any = None, path: str | None = None
    ) -> int | None:
        """Load the newest checkpoint that every rank has; returns its iteration.

        Collective: every rank must call it. Nothing is loaded (None is
        returned) when the ranks have no iteration in common.

        Args:
            trainer: The trainer to restore.
            optimizer: An optimizer to restore as well (from the
                ``updater/optimizer:main/`` part of the checkpoint).
            path: Directory of the checkpoints (the trainer's ``out`` by
                default).
        """
        outdir = self._dir(trainer, path)
        mine = self._local_iterations(outdir)
        everyone = self.comm.allgather_obj(sorted(mine))
        common = set(everyone[0]).intersection(*map(set, everyone[1:]))
        if not common:
            return None
        iteration = max(common)
        filename = os.path.join(outdir, f"{self.name}.{self.comm.rank}.{iteration}")
        if trainer is not None:
            load_npz(filename, trainer)
        if optimizer is not None:
            load_npz(filename, optimizer, path="updater/optimizer:main/")
        self.files = sorted(
            (f"{self.name}.{self.comm.rank}.{i}" for i in mine),
            key=lambda n: int(n.rsplit(".", 1)[1]),
        )
        self.stats["loaded_iteration"] = iteration
        return iteration

    def get_stats(self) -> dict[str, Any]:
        """Counts and timings of saves, removals and the last load."""
        return dict(self.stats)

    def finalize(self) -> None:
        """Nothing to flush: each save is complete when it returns."""


def create_multi_node_checkpointer(
    name: str,
    comm: Any,
    cp_interval: int = 5,
    gc_interval: int = 5,
    path: str | None = None,
) -> Any:
    """An extension writing a checkpoint of the trainer on every rank.

    Each rank writes ``<name>.<rank>.<iteration>`` (atomically) in ``path``
    (the trainer's ``out`` by default) and keeps the newest
    ``cp_interval`` files, deleting older ones every ``gc_interval``
    saves. Call ``checkpointer.maybe_load(trainer, optimizer)`` before
    ``trainer.run()`` to resume from the newest iteration that *every* rank
    saved, so a job killed while some ranks were writing restarts
    consistently.

    Args:
        name: Prefix of the checkpoint files (one name per job).
        comm: The communicator.
        cp_interval: Number of checkpoints to keep.
        gc_interval: Saves between removals of old checkpoints.
        path: Directory of the checkpoints.

    Example:
        >>> checkpointer = kusari_mn.create_multi_node_checkpointer(
        ...     'mnist', comm)  # doctest: +SKIP
        >>> checkpointer.maybe_load(trainer, optimizer)  # doctest: +SKIP
        >>> trainer.extend(checkpointer, trigger=(100, 'iteration'))  # doctest: +SKIP
    """
    return _MultiNodeCheckpointer(name, comm, cp_interval, gc_interval, path)
