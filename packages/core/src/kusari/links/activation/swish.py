"""The Swish activation link (``Swish``)."""

from __future__ import annotations

from typing import Any

from kusari import initializers, link, variable
from kusari.functions.activation import swish as swish_module


class Swish(link.Link):
    """Swish activation ``x * sigmoid(beta * x)`` with a learnt ``beta``.

    Args:
        beta_shape: Shape of ``beta``; None takes ``x.shape[1:]`` from the
            first input.
        beta_init: Initial value of ``beta``.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> s = L.Swish(None)
        >>> s(np.zeros((2, 3), np.float32)).shape, s.beta.shape
        ((2, 3), (3,))
    """

    def __init__(self, beta_shape: Any, beta_init: Any = 1.0) -> None:
        super().__init__()
        with self.init_scope():
            if beta_shape is not None:
                self.beta = variable.Parameter(beta_init, beta_shape)
            else:
                self.beta = variable.Parameter(initializers.Constant(beta_init))

    def forward(self, x: Any) -> Any:
        if self.beta.array is None:
            self.beta.initialize(tuple(x.shape[1:]))
        return swish_module.swish(x, self.beta)
