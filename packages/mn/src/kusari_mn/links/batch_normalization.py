"""Batch normalization link with statistics over the batches of all ranks."""

from __future__ import annotations

from typing import Any

import numpy

import kusari
import kusari.functions as F
from kusari import configuration, initializers
from kusari_mn.functions.batch_normalization import multi_node_batch_normalization


class MultiNodeBatchNormalization(kusari.Link):
    """:class:`kusari.links.BatchNormalization` over the global batch.

    In training mode the mean and variance are computed over the batches of
    every rank of ``comm`` (one Allreduce each way), so a job of ``n`` ranks
    with batch ``b`` each normalizes as one process with batch ``n * b``. In
    test mode it uses the running averages, like the single-process link.

    Args:
        size: Number of channels (axis 1 of the input).
        comm: The communicator.
        decay: Decay of the running averages.
        eps: Added to the variance.
        dtype: dtype of parameters and averages (float32 by default).
        use_gamma: Learn a scale.
        use_beta: Learn a shift.
        initial_gamma: Initializer of the scale (1 by default).
        initial_beta: Initializer of the shift (0 by default).
        communication_backend: ``'mpi'``, ``'nccl'`` or ``'auto'``; the
            statistics always go through the communicator's ``allreduce``,
            so this is accepted for ChainerMN compatibility.
    """

    def __init__(
        self,
        size: int,
        comm: Any,
        decay: float = 0.9,
        eps: float = 2e-5,
        dtype: Any = None,
        use_gamma: bool = True,
        use_beta: bool = True,
        initial_gamma: Any = None,
        initial_beta: Any = None,
        communication_backend: str = "auto",
    ) -> None:
        super().__init__()
        if communication_backend not in ("mpi", "nccl", "auto"):
            raise ValueError(
                "MultiNodeBatchNormalization: communication_backend must be "
                f"'mpi', 'nccl' or 'auto', got {communication_backend!r}"
            )
        self.comm = comm
        self.communication_backend = communication_backend
        dtype = numpy.dtype(numpy.float32 if dtype is None else dtype)
        self.avg_mean = numpy.zeros(size, dtype=dtype)
        self.register_persistent("avg_mean")
        self.avg_var = numpy.ones(size, dtype=dtype)
        self.register_persistent("avg_var")
        self.N = 0
        self.register_persistent("N")
        self.decay = decay
        self.eps = eps
        self._dtype = dtype
        with self.init_scope():
            if use_gamma:
                self.gamma = kusari.Parameter(
                    _initializer(initial_gamma, 1, dtype), size
                )
            if use_beta:
                self.beta = kusari.Parameter(_initializer(initial_beta, 0, dtype), size)

    def forward(self, x: Any, finetune: bool = False) -> Any:
        """Normalize ``x`` of shape ``(N, C, ...)``.

        Args:
            x: The input.
            finetune: Average the statistics over all batches since
                :meth:`start_finetuning` instead of a moving average.
        """
        xp = self.xp
        gamma = (
            self.gamma
            if hasattr(self, "gamma")
            else xp.ones(self.avg_mean.shape, self._dtype)
        )
        beta = (
            self.beta
            if hasattr(self, "beta")
            else xp.zeros(self.avg_mean.shape, self._dtype)
        )
        if configuration.config.train:
            if finetune:
                self.N += 1
                decay = 1.0 - 1.0 / self.N
            else:
                decay = self.decay
            return multi_node_batch_normalization(
                x,
                gamma,
                beta,
                self.comm,
                eps=self.eps,
                running_mean=self.avg_mean,
                running_var=self.avg_var,
                decay=decay,
            )
        return F.fixed_batch_normalization(
            x, gamma, beta, self.avg_mean, self.avg_var, self.eps
        )

    def start_finetuning(self) -> None:
        """Reset the batch count used by ``finetune=True``."""
        self.N = 0


def _initializer(value: Any, default: float, dtype: Any) -> Any:
    if value is None:
        value = default
    if isinstance(value, (int, float)):
        return initializers.Constant(value, dtype=dtype)
    return value
