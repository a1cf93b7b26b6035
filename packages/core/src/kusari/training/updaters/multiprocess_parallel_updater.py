"""MultiprocessParallelUpdater: multi-GPU training over NCCL (not supported)."""

from __future__ import annotations

from typing import Any


class MultiprocessParallelUpdater:
    """Chainer's NCCL-based multi-GPU updater; kusari does not provide NCCL
    support, so :meth:`available` is False and construction raises."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError(
            "MultiprocessParallelUpdater needs NCCL multi-GPU support, which "
            "kusari does not provide; use StandardUpdater or ParallelUpdater"
        )

    @staticmethod
    def available() -> bool:
        """Always False."""
        return False
