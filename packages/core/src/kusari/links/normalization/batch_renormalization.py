"""The batch renormalization link (``BatchRenormalization``)."""

from __future__ import annotations

from typing import Any

from kusari import backend, configuration
from kusari.functions.normalization import batch_normalization as bn_module
from kusari.functions.normalization import batch_renormalization as brn_module
from kusari.links.normalization.batch_normalization import BatchNormalization


class BatchRenormalization(BatchNormalization):
    """Batch renormalization layer (Ioffe, 2017).

    Like :class:`BatchNormalization`, but in training mode the batch
    statistics are corrected towards the running ones with factors clipped
    by ``rmax`` and ``dmax``, so training and inference agree better.

    Args:
        size: Size (int or tuple) of the statistics.
        rmax: Upper bound of the variance correction ``r``.
        dmax: Upper bound of the mean correction ``d``.
        decay: Decay rate of the running averages.
        eps: Added to the variance.
        dtype: Dtype of the parameters and statistics.
        use_gamma: Learn a scale ``gamma``.
        use_beta: Learn a shift ``beta``.
        initial_gamma: Initializer of ``gamma``; one by default.
        initial_beta: Initializer of ``beta``; zero by default.
        initial_avg_mean: Initializer of ``avg_mean``; zero by default.
        initial_avg_var: Initializer of ``avg_var``; one by default.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> brn = L.BatchRenormalization(3, rmax=3.0, dmax=5.0)
        >>> brn(np.arange(12, dtype=np.float32).reshape(4, 3)).shape
        (4, 3)
    """

    def __init__(
        self,
        size: Any,
        rmax: float = 1,
        dmax: float = 0,
        decay: float = 0.9,
        eps: float = 2e-5,
        dtype: Any = None,
        use_gamma: bool = True,
        use_beta: bool = True,
        initial_gamma: Any = None,
        initial_beta: Any = None,
        initial_avg_mean: Any = None,
        initial_avg_var: Any = None,
    ) -> None:
        super().__init__(
            size,
            decay,
            eps,
            dtype,
            use_gamma,
            use_beta,
            initial_gamma,
            initial_beta,
            initial_avg_mean=initial_avg_mean,
            initial_avg_var=initial_avg_var,
        )
        self.rmax = rmax
        self.dmax = dmax

    def forward(self, x: Any, finetune: bool = False, **kwargs: Any) -> Any:
        if kwargs:
            raise TypeError(
                "BatchRenormalization.forward got unexpected keyword arguments: "
                + ", ".join(sorted(kwargs))
            )
        xp = self.xp
        gamma = getattr(self, "gamma", None)
        beta = getattr(self, "beta", None)
        with backend.using_device(self.device):
            if gamma is None:
                gamma = xp.ones(self.avg_mean.shape, dtype=self._highprec_dtype)
            if beta is None:
                beta = xp.zeros(self.avg_mean.shape, dtype=self._highprec_dtype)
        if not configuration.config.train:
            return bn_module.fixed_batch_normalization(
                x, gamma, beta, self.avg_mean, self.avg_var, self.eps
            )
        if finetune:
            self.N += 1
            decay = 1.0 - 1.0 / self.N
        else:
            decay = self.decay
        update_statistics = True
        if configuration.config.in_recomputing:
            # Recomputation must not update the statistics twice.
            if finetune:
                self.N -= 1
            update_statistics = False
        return brn_module.batch_renormalization(
            x,
            gamma,
            beta,
            self.rmax,
            self.dmax,
            self.eps,
            running_mean=self.avg_mean,
            running_var=self.avg_var,
            decay=decay,
            update_statistics=update_statistics,
        )
