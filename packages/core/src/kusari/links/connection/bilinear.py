"""The bilinear layer (``Bilinear``)."""

from __future__ import annotations

from typing import Any

from kusari import initializers, link, variable
from kusari.functions.connection import bilinear as bilinear_module


class InitialShapeError(ValueError, AssertionError):
    """An initial array given to :class:`Bilinear` has the wrong shape.

    A ``ValueError``, and also an ``AssertionError`` because Chainer checked
    these shapes with ``assert`` and code written for it catches that.
    """


def _check_shape(name: str, value: Any, shape: tuple[int, ...]) -> None:
    actual = getattr(value, "shape", None)
    if actual is not None and tuple(actual) != shape:
        raise InitialShapeError(
            f"Bilinear: {name} must have shape {shape}, got {actual}"
        )


class Bilinear(link.Link):
    """Bilinear layer: ``y_l = e1 W_l e2 + e1 V1_l + e2 V2_l + b_l``.

    Args:
        left_size: Dimension of the first input ``e1``.
        right_size: Dimension of the second input ``e2``.
        out_size: Dimension of the output.
        nobias: Leave out ``V1``, ``V2`` and ``b``.
        initialW: Initializer of ``W`` (shape ``(left_size, right_size,
            out_size)``); LeCunNormal by default.
        initial_bias: None, or a tuple ``(initialV1, initialV2, initialb)``
            of initializers; by default ``V1`` and ``V2`` use LeCunNormal and
            ``b`` is zero.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> layer = L.Bilinear(2, 3, 4)
        >>> layer(np.ones((5, 2), np.float32), np.ones((5, 3), np.float32)).shape
        (5, 4)
    """

    def __init__(
        self,
        left_size: int,
        right_size: int,
        out_size: int,
        nobias: bool = False,
        initialW: Any = None,
        initial_bias: Any = None,
    ) -> None:
        super().__init__()
        self.in_sizes = (left_size, right_size)
        self.nobias = nobias
        shape = (left_size, right_size, out_size)
        _check_shape("initialW", initialW, shape)
        with self.init_scope():
            self.W = variable.Parameter(initializers._get_initializer(initialW), shape)
            if not nobias:
                v1_shape = (left_size, out_size)
                v2_shape = (right_size, out_size)
                if isinstance(initial_bias, tuple):
                    if len(initial_bias) != 3:
                        raise ValueError(
                            "Bilinear: initial_bias must be a tuple of three "
                            "initializers (V1, V2, b)"
                        )
                    init_v1, init_v2, init_b = initial_bias
                    _check_shape("initial V1", init_v1, v1_shape)
                    _check_shape("initial V2", init_v2, v2_shape)
                    _check_shape("initial b", init_b, (out_size,))
                elif initial_bias is None:
                    init_v1 = init_v2 = None
                    init_b = 0
                else:
                    raise ValueError("Bilinear: initial_bias must be a tuple or None")
                self.V1 = variable.Parameter(
                    initializers._get_initializer(init_v1), v1_shape
                )
                self.V2 = variable.Parameter(
                    initializers._get_initializer(init_v2), v2_shape
                )
                self.b = variable.Parameter(
                    initializers._get_initializer(init_b), (out_size,)
                )

    def forward(self, e1: Any, e2: Any) -> Any:
        if self.nobias:
            return bilinear_module.bilinear(e1, e2, self.W)
        return bilinear_module.bilinear(e1, e2, self.W, self.V1, self.V2, self.b)
