"""Broadcasted addition with a learnable bias (``Bias``)."""

from __future__ import annotations

from typing import Any

from kusari import link, variable
from kusari.functions.math import bias as bias_module


class WrongInputCountError(TypeError, AssertionError):
    """A :class:`Bias` or :class:`Scale` link called with the wrong number
    of inputs.

    A ``TypeError``, and also an ``AssertionError`` because Chainer checked
    the count with ``assert`` in debug mode and code written for it catches
    that.
    """


class Bias(link.Link):
    """Broadcasted elementwise sum with a learnable parameter.

    Computes :func:`~kusari.functions.bias` with ``b`` as the second input
    when ``shape`` is given; otherwise the bias is the second argument of the
    call.

    Args:
        axis: The first axis of the input along which the bias is applied.
        shape: Shape of the learnable bias ``b`` (zero at first); None means
            the bias is passed to each call.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> layer = L.Bias(axis=1, shape=(3,))
        >>> layer(np.ones((2, 3, 4), np.float32)).shape
        (2, 3, 4)
        >>> L.Bias()(np.zeros((2, 3), np.float32), np.ones(3, np.float32)).array
        array([[1., 1., 1.],
               [1., 1., 1.]], dtype=float32)
    """

    def __init__(self, axis: int = 1, shape: Any = None) -> None:
        super().__init__()
        if shape is not None:
            with self.init_scope():
                self.b = variable.Parameter(0, shape)
        self.axis = axis

    def forward(self, *xs: Any) -> Any:
        """``bias(x, b)`` with ``b`` learnt (one input) or given (two)."""
        if hasattr(self, "b"):
            if len(xs) != 1:
                raise WrongInputCountError(
                    f"Bias with a learnable b takes one input, got {len(xs)}"
                )
            return bias_module.bias(xs[0], self.b, self.axis)
        if len(xs) != 2:
            raise WrongInputCountError(
                f"Bias without a learnable b takes two inputs, got {len(xs)}"
            )
        return bias_module.bias(xs[0], xs[1], self.axis)
