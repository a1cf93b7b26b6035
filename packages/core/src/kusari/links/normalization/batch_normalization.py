"""The batch normalization link (``BatchNormalization``)."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import numpy

import kusari
from kusari import backend, configuration, initializers, link, variable
from kusari.functions.normalization import batch_normalization as bn_module


def _param_initializer(value: Any, default: float, dtype: Any) -> Any:
    if value is None:
        value = default
    init = copy.copy(initializers._get_initializer(value))
    init.dtype = dtype  # type: ignore[attr-defined]
    return init


class BatchNormalization(link.Link):
    """Batch normalization layer on the outputs of linear or convolution layers.

    In training mode (``kusari.config.train``) it normalizes with the batch's
    statistics and updates the running averages ``avg_mean`` and ``avg_var``;
    in test mode it uses the running averages.

    Args:
        size: Shape (int or tuple) of the statistics: the sizes of the axes
            that are not normalized. None infers it from the first input
            (``axis`` is then required).
        decay: Decay rate of the running averages.
        eps: Added to the variance for numerical stability.
        dtype: Dtype of the parameters and statistics (``mixed16`` maps to
            float32).
        use_gamma: Learn a scale ``gamma`` (else it is one).
        use_beta: Learn a shift ``beta`` (else it is zero).
        initial_gamma: Initializer of ``gamma``; one by default.
        initial_beta: Initializer of ``beta``; zero by default.
        axis: Normalized axes (int or tuple); by default ``0`` and the axes
            after the statistics' axes.
        initial_avg_mean: Initializer of ``avg_mean``; zero by default.
        initial_avg_var: Initializer of ``avg_var``; one by default.

    Attributes:
        gamma, beta: The scale and shift parameters; absent (``hasattr`` is
            False) when disabled, as in Chainer.
        avg_mean, avg_var: Running averages (persistent values).
        N: Number of batches seen in fine-tuning (persistent).

    Example:
        >>> import numpy as np
        >>> import kusari
        >>> import kusari.links as L
        >>> bn = L.BatchNormalization(3)
        >>> x = np.arange(12, dtype=np.float32).reshape(4, 3)
        >>> y = bn(x)
        >>> np.round(y.array[:, 0], 3)
        array([-1.342, -0.447,  0.447,  1.342], dtype=float32)
        >>> with kusari.using_config('train', False):
        ...     bn(x).shape
        (4, 3)
    """

    avg_mean: Any = None
    avg_var: Any = None

    def __init__(
        self,
        size: Any = None,
        decay: float = 0.9,
        eps: float = 2e-5,
        dtype: Any = None,
        use_gamma: bool = True,
        use_beta: bool = True,
        initial_gamma: Any = None,
        initial_beta: Any = None,
        axis: Any = None,
        initial_avg_mean: Any = None,
        initial_avg_var: Any = None,
    ) -> None:
        super().__init__()
        if size is None and axis is None:
            raise RuntimeError("BatchNormalization: size or axis is required")
        self._initial_avg_mean = initial_avg_mean
        self._initial_avg_var = initial_avg_var
        self.N = 0
        self.register_persistent("N")
        self.decay = decay
        self.eps = eps
        if isinstance(axis, int):
            axis = (axis,)
        self.axis = axis
        self._highprec_dtype = numpy.dtype(
            kusari.get_dtype(dtype, map_mixed16=numpy.float32)
        )
        with self.init_scope():
            if use_gamma:
                self.gamma = variable.Parameter(
                    _param_initializer(initial_gamma, 1, self._highprec_dtype)
                )
            if use_beta:
                self.beta = variable.Parameter(
                    _param_initializer(initial_beta, 0, self._highprec_dtype)
                )
        if size is None:
            self.avg_mean = None
            self.avg_var = None
        else:
            self._initialize_params(size)
        # Persistent even while None, so that a lazy link loads its running
        # averages from an npz (before any forward), as in Chainer.
        self.register_persistent("avg_mean")
        self.register_persistent("avg_var")

    def _initialize_params(self, shape: Any) -> None:
        self.avg_mean = self._init_array(self._initial_avg_mean, 0, shape)
        self._initial_avg_mean = None
        self.avg_var = self._init_array(self._initial_avg_var, 1, shape)
        self._initial_avg_var = None
        for name in ("gamma", "beta"):
            param = getattr(self, name, None)
            if param is not None:
                param.initialize(shape)

    def _init_array(self, value: Any, default: float, shape: Any) -> Any:
        init = _param_initializer(value, default, self._highprec_dtype)
        return initializers.generate_array(init, shape, self.xp, device=self.device)

    @property
    def printable_specs(self) -> Iterator[tuple[str, Any]]:
        size = None if self.avg_mean is None else self.avg_mean.shape
        if size is not None and len(size) == 1:
            size = size[0]
        yield "size", size
        yield "decay", self.decay
        yield "eps", self.eps
        yield "dtype", self._highprec_dtype
        yield "use_gamma", hasattr(self, "gamma")
        yield "use_beta", hasattr(self, "beta")
        yield "axis", self.axis

    def forward(self, x: Any, *, finetune: bool = False, **kwargs: Any) -> Any:
        """Normalize ``x``.

        Args:
            x: Input array or variable.
            finetune: In training mode, average the statistics over all the
                batches since :meth:`start_finetuning` (decay ``1 - 1/N``)
                instead of an exponential moving average.
        """
        if kwargs:
            if "test" in kwargs:
                raise ValueError(
                    "BatchNormalization: the test argument is not supported "
                    "anymore; use kusari.using_config('train', False)"
                )
            raise TypeError(
                "BatchNormalization.forward got unexpected keyword arguments: "
                + ", ".join(sorted(kwargs))
            )
        if self.avg_mean is None:
            axis = self.axis
            ndim = len(x.shape)
            axis = tuple(a % ndim for a in axis)
            param_shape = tuple(d for i, d in enumerate(x.shape) if i not in axis)
            self._initialize_params(param_shape)

        xp = self.xp
        gamma = getattr(self, "gamma", None)
        if gamma is None:
            with backend.using_device(self.device):
                gamma = xp.ones(self.avg_mean.shape, dtype=self._highprec_dtype)
        beta = getattr(self, "beta", None)
        if beta is None:
            with backend.using_device(self.device):
                beta = xp.zeros(self.avg_mean.shape, dtype=self._highprec_dtype)

        if configuration.config.train:
            if finetune:
                self.N += 1
                decay = 1.0 - 1.0 / self.N
            else:
                decay = self.decay
            avg_mean = self.avg_mean
            avg_var = self.avg_var
            if configuration.config.in_recomputing:
                # Recomputation must not update the statistics twice.
                avg_mean = avg_mean.copy() if avg_mean is not None else None
                avg_var = avg_var.copy() if avg_var is not None else None
            return bn_module.batch_normalization(
                x,
                gamma,
                beta,
                eps=self.eps,
                running_mean=avg_mean,
                running_var=avg_var,
                decay=decay,
                axis=self.axis,
            )
        return bn_module.fixed_batch_normalization(
            x, gamma, beta, self.avg_mean, self.avg_var, self.eps, axis=self.axis
        )

    def start_finetuning(self) -> None:
        """Reset the batch count used by ``finetune=True``."""
        self.N = 0
