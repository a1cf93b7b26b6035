"""Broadcasted multiplication with a learnable scale (``Scale``)."""

from __future__ import annotations

from typing import Any

from kusari import link, variable
from kusari.functions.math import scale as scale_module
from kusari.links.connection.bias import Bias, WrongInputCountError


class Scale(link.Chain):
    """Broadcasted elementwise product with learnable parameters.

    Computes :func:`~kusari.functions.scale` with ``W`` as the second input
    when ``W_shape`` is given (else the scale is the call's second argument),
    optionally followed by a learnable :class:`Bias`.

    Args:
        axis: The first axis of the input along which the scale is applied.
        W_shape: Shape of the learnable ``W`` (one at first); None means the
            scale is passed to each call.
        bias_term: Also learn a bias (child link ``bias``).
        bias_shape: Shape of the bias when ``W_shape`` is None (otherwise
            the bias has ``W_shape``).

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> layer = L.Scale(W_shape=(3,), bias_term=True)
        >>> sorted(name for name, _ in layer.namedparams())
        ['/W', '/bias/b']
        >>> layer(np.ones((2, 3), np.float32)).shape
        (2, 3)
    """

    def __init__(
        self,
        axis: int = 1,
        W_shape: Any = None,
        bias_term: bool = False,
        bias_shape: Any = None,
    ) -> None:
        super().__init__()
        with self.init_scope():
            if W_shape is not None:
                self.W = variable.Parameter(1, W_shape)
                if bias_term:
                    self.bias = Bias(axis, W_shape)
            elif bias_term:
                if bias_shape is None:
                    raise ValueError(
                        "Scale: bias_shape should be given if W is not a learnt "
                        "parameter and bias_term is True"
                    )
                self.bias = Bias(axis, bias_shape)
        self.axis = axis

    def forward(self, *xs: Any) -> Any:
        """``scale(x, W)`` (one input) or ``scale(x, y)`` (two), then the bias."""
        if hasattr(self, "W"):
            if len(xs) != 1:
                raise WrongInputCountError(
                    f"Scale with a learnable W takes one input, got {len(xs)}"
                )
            z = scale_module.scale(xs[0], self.W, self.axis)
        else:
            if len(xs) != 2:
                raise WrongInputCountError(
                    f"Scale without a learnable W takes two inputs, got {len(xs)}"
                )
            z = scale_module.scale(xs[0], xs[1], self.axis)
        if hasattr(self, "bias"):
            return self.bias(z)
        return z
