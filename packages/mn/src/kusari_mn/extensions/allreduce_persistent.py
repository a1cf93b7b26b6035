"""Average the persistent values (e.g. BN running statistics) over the ranks."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import serializer as serializer_module
from kusari.training import extension


class _Collector(serializer_module.Serializer):
    """Visits every value a link serializes; records the float arrays."""

    def __init__(self, found: dict[str, Any], path: str = "") -> None:
        self.found = found
        self.path = path

    def __getitem__(self, key: str) -> _Collector:
        return _Collector(self.found, self.path + key + "/")

    def __call__(self, key: str, value: Any) -> Any:
        if hasattr(value, "dtype") and getattr(value.dtype, "kind", "") == "f":
            self.found[self.path + key] = value
        return value


class AllreducePersistent(extension.Extension):
    """Replace every floating-point persistent array by its mean over ranks.

    Batch normalization's running averages differ between ranks in data
    parallel training; run this (e.g. before evaluation or a snapshot) to
    make them identical. Parameters are left alone (the multi-node
    optimizer keeps them in sync).

    Args:
        model: The link whose persistents to average.
        comm: The communicator.
    """

    trigger = (1, "epoch")
    priority = extension.PRIORITY_WRITER + 1  # before evaluators and snapshots

    def __init__(self, model: Any, comm: Any) -> None:
        self.model = model
        self.comm = comm

    def __call__(self, trainer: Any = None) -> None:
        found: dict[str, Any] = {}
        self.model.serialize(_Collector(found))
        params = {"/" + name.lstrip("/") for name, _ in self.model.namedparams()}
        for path in sorted(found):
            if "/" + path in params:
                continue
            value = found[path]
            total = self.comm.allreduce(value)
            xp_mean = total / self.comm.size
            if isinstance(value, numpy.ndarray):
                numpy.copyto(value, xp_mean, casting="unsafe")
            else:
                value[...] = xp_mean
