"""Running mean/variance normalization of observations."""

from __future__ import annotations

from typing import Any

import numpy as np

import kusari
import kusari.functions as F

__all__ = ["EmpiricalNormalization"]


class EmpiricalNormalization(kusari.Link):
    """Normalize inputs with the mean and variance of all inputs seen so far.

    Args:
        shape: Shape of one input (without the batch axis).
        batch_axis: Axis of the batch.
        eps: Added to the standard deviation.
        dtype: Dtype of the statistics.
        until: Stop updating after this many samples (None: never stop).
        clip_threshold: Clip normalized values into ``±clip_threshold``.

    Example:
        >>> norm = EmpiricalNormalization(2)
        >>> y = norm(np.array([[1., 2.], [3., 6.]], dtype=np.float32))
        >>> norm.mean.tolist()
        [2.0, 4.0]
    """

    _mean: Any
    _var: Any
    count: int

    def __init__(
        self,
        shape: int | tuple[int, ...],
        batch_axis: int = 0,
        eps: float = 1e-2,
        dtype: Any = np.float32,
        until: int | None = None,
        clip_threshold: float | None = None,
    ) -> None:
        super().__init__()
        dtype = np.dtype(dtype)
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        self.batch_axis = batch_axis
        self.eps = dtype.type(eps)
        self.until = until
        self.clip_threshold = clip_threshold
        self.add_persistent("_mean", np.zeros(shape, dtype=dtype))
        self.add_persistent("_var", np.ones(shape, dtype=dtype))
        self.add_persistent("count", 0)
        self._cached_std_inverse: Any = None

    @property
    def mean(self) -> Any:
        return self._mean.copy()

    @property
    def std(self) -> Any:
        return self.xp.sqrt(self._var)

    @property
    def _std_inverse(self) -> Any:
        if self._cached_std_inverse is None:
            self._cached_std_inverse = (self.xp.sqrt(self._var) + self.eps) ** -1
        return self._cached_std_inverse

    def experience(self, x: Any) -> None:
        """Update the statistics with the batch ``x`` (an array)."""
        if self.until is not None and self.count >= self.until:
            return
        xp = self.xp
        count_x = x.shape[self.batch_axis]
        if count_x == 0:
            return
        self.count += count_x
        rate = self._mean.dtype.type(count_x / self.count)
        mean_x = xp.mean(x, axis=self.batch_axis)
        var_x = xp.var(x, axis=self.batch_axis)
        delta = mean_x - self._mean
        # Chan et al.'s parallel update of mean and variance.
        self._mean += rate * delta
        self._var += rate * (var_x - self._var + delta * (mean_x - self._mean))
        self._cached_std_inverse = None

    def forward(self, x: Any, update: bool = True) -> Any:
        arr = x.array if isinstance(x, kusari.Variable) else x
        if update:
            self.experience(arr)
        mean = self.xp.expand_dims(self._mean, self.batch_axis)
        inv = self.xp.expand_dims(self._std_inverse, self.batch_axis)
        y = (x - mean) * inv
        if self.clip_threshold is not None:
            y = F.clip(y, -self.clip_threshold, self.clip_threshold)
        return y

    def inverse(self, y: Any) -> Any:
        """Undo the normalization."""
        mean = self.xp.expand_dims(self._mean, self.batch_axis)
        std = self.xp.expand_dims(self.xp.sqrt(self._var) + self.eps, self.batch_axis)
        return y * std + mean
