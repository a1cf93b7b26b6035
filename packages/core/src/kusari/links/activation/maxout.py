"""The maxout link (``Maxout``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy

from kusari import link
from kusari.functions.activation import maxout as maxout_module
from kusari.links.connection.linear import Linear


def _reshaped_initializer(init: Any, shape: tuple[int, ...]) -> Any:
    """An initializer that fills the flat parameter through a view of
    ``shape`` (so fans are those of the un-flattened weight)."""

    def fill(array: Any) -> None:
        init(array.reshape(shape))

    fill.dtype = getattr(init, "dtype", None)  # type: ignore[attr-defined]
    return fill


class Maxout(link.Chain):
    """Fully connected maxout layer (Goodfellow et al., 2013).

    A :class:`Linear` child ``linear`` maps the input to
    ``out_size * pool_size`` units; each output is the maximum over its
    ``pool_size`` units.

    Args:
        in_size: Input dimension (None: lazy).
        out_size: Output dimension.
        pool_size: Number of units per output.
        initialW: Initializer of the weight; an array must have shape
            ``(out_size, pool_size, in_size)``.
        initial_bias: Initializer of the bias (zero by default); an array
            must have shape ``(out_size, pool_size)``; None leaves out the
            bias.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> m = L.Maxout(3, 2, 4)
        >>> m.linear.W.shape, m(np.ones((5, 3), np.float32)).shape
        ((8, 3), (5, 2))
    """

    def __init__(
        self,
        in_size: int | None,
        out_size: int,
        pool_size: int,
        initialW: Any = None,
        initial_bias: Any = 0,
    ) -> None:
        super().__init__()
        linear_out_size = out_size * pool_size
        if initialW is None or numpy.isscalar(initialW):
            pass
        elif hasattr(initialW, "ndim") and hasattr(initialW, "reshape"):
            if initialW.ndim != 3:
                raise ValueError("Maxout: initialW.ndim should be 3")
            initialW = initialW.reshape(linear_out_size, -1)
        elif callable(initialW):
            in_dim = -1 if in_size is None else in_size
            initialW = _reshaped_initializer(initialW, (out_size, pool_size, in_dim))
        if initial_bias is None or numpy.isscalar(initial_bias):
            pass
        elif hasattr(initial_bias, "ndim") and hasattr(initial_bias, "reshape"):
            if initial_bias.ndim != 2:
                raise ValueError("Maxout: initial_bias.ndim should be 2")
            initial_bias = initial_bias.reshape(linear_out_size)
        elif callable(initial_bias):
            initial_bias = _reshaped_initializer(initial_bias, (out_size, pool_size))
        with self.init_scope():
            self.linear = Linear(
                in_size,
                linear_out_size,
                nobias=initial_bias is None,
                initialW=initialW,
                initial_bias=initial_bias,
            )
        self.out_size = out_size
        self.pool_size = pool_size

    @property
    def printable_specs(self) -> Iterator[tuple[str, Any]]:
        yield "in_size", self.linear.in_size
        yield "out_size", self.out_size
        yield "pool_size", self.pool_size

    def forward(self, x: Any) -> Any:
        return maxout_module.maxout(self.linear(x), self.pool_size)
