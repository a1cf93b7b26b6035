"""The decorrelated batch normalization link (``DecorrelatedBatchNormalization``)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy

from kusari import backend, configuration, link, serializer
from kusari.functions.normalization import decorrelated_batch_normalization as dbn


def _group_shape(size: int, groups: int | None, group_size: int | None) -> Any:
    if group_size is None:
        assert groups is not None
        group_size, err = divmod(size, groups)
    elif groups is None:
        groups, err = divmod(size, group_size)
    else:
        err = size - groups * group_size
    return err, groups, group_size


class DecorrelatedBatchNormalization(link.Link):
    """Decorrelated batch normalization (Huang et al., 2018).

    Whitens every group of channels with the batch's (training mode) or the
    running (test mode) mean and projection (ZCA whitening matrix).

    Args:
        size: Number of channels.
        groups: Number of groups (None: derived from ``group_size``).
        decay: Decay rate of the running averages.
        eps: Added to the covariance's eigenvalues.
        dtype: Dtype of the statistics.
        group_size: Channels per group (instead of ``groups``).

    Attributes:
        avg_mean: Running mean, shape ``(groups, size // groups)``.
        avg_projection: Running projection, shape ``(groups, C, C)``.
        N: Number of batches seen in fine-tuning.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> dbn = L.DecorrelatedBatchNormalization(4, groups=2)
        >>> dbn(np.random.rand(8, 4).astype(np.float32)).shape, dbn.avg_mean.shape
        ((8, 4), (2, 2))
    """

    def __init__(
        self,
        size: int,
        groups: int | None = 16,
        decay: float = 0.9,
        eps: float = 2e-5,
        dtype: Any = numpy.float32,
        *,
        group_size: int | None = None,
    ) -> None:
        super().__init__()
        if group_size is None and groups is None:
            group_size = 16
        err, groups, C = _group_shape(size, groups, group_size)
        if err:
            raise ValueError(
                "DecorrelatedBatchNormalization: cannot satisfy size == groups * "
                f"group_size (size = {size}, groups = {groups}, group_size = "
                f"{group_size})"
            )
        self.avg_mean = numpy.zeros((groups, C), dtype=dtype)
        self.register_persistent("avg_mean")
        projection = numpy.zeros((groups, C, C), dtype=dtype)
        projection[:, numpy.arange(C), numpy.arange(C)] = 1
        self.avg_projection = projection
        self.register_persistent("avg_projection")
        self.N = 0
        self.register_persistent("N")
        self.decay = decay
        self.eps = eps
        self.groups = groups

    def serialize(self, serializer_: Any) -> None:
        if isinstance(serializer_, serializer.Deserializer):
            serializer_ = _OldShapeFixer(serializer_, self.groups)
        super().serialize(serializer_)

    def forward(self, x: Any, *, finetune: bool = False) -> Any:
        """Whiten ``x``; ``finetune`` averages the statistics over batches."""
        if configuration.config.train:
            if finetune:
                self.N += 1
                decay = 1.0 - 1.0 / self.N
            else:
                decay = self.decay
            avg_mean: Any = self.avg_mean
            avg_projection: Any = self.avg_projection
            if configuration.config.in_recomputing:
                # Recomputation must not update the statistics twice.
                if finetune:
                    self.N -= 1
                avg_mean = None
                avg_projection = None
            return dbn.decorrelated_batch_normalization(
                x,
                groups=self.groups,
                eps=self.eps,
                running_mean=avg_mean,
                running_projection=avg_projection,
                decay=decay,
            )
        return dbn.fixed_decorrelated_batch_normalization(
            x, self.avg_mean, self.avg_projection, groups=self.groups
        )

    def start_finetuning(self) -> None:
        """Reset the batch count used by ``finetune=True``."""
        self.N = 0


class _OldShapeFixer(serializer.Deserializer):
    """Loads statistics saved without the group axis (old Chainer models)."""

    def __init__(self, base: Any, groups: int) -> None:
        self.base = base
        self.groups = groups

    def __getitem__(self, key: str) -> Any:
        return self.base[key]

    def __call__(self, key: str, value: Any) -> Any:
        ndim = {"avg_mean": 1, "avg_projection": 2}.get(key)
        if ndim is None:
            return self.base(key, value)
        arr = self.base(key, None)
        if arr is None:
            return value
        if arr.ndim == ndim:
            if self.groups != 1:
                warnings.warn(
                    "Found moving statistics of an old DecorrelatedBatchNormalization "
                    "whose algorithm differed from the paper"
                )
            arr = numpy.broadcast_to(arr, (self.groups,) + arr.shape)
        elif arr.ndim != ndim + 1:
            raise ValueError(
                f"DecorrelatedBatchNormalization: unexpected shape of {key}"
            )
        if value is None:
            return arr
        backend.copyto(value, arr)
        return value
