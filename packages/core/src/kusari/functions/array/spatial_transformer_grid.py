"""``spatial_transformer_grid``: sampling grid of an affine spatial transformer."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable


def _target_grid(xp: Any, out_hw: tuple[int, int], dtype: Any) -> Any:
    """Homogeneous target coordinates ``(x_t, y_t, 1)``, shape ``(3, H * W)``."""
    h, w = out_hw
    ys, xs = numpy.meshgrid(
        numpy.linspace(-1, 1, h), numpy.linspace(-1, 1, w), indexing="ij"
    )
    grid = numpy.stack([xs.ravel(), ys.ravel(), numpy.ones(h * w)])
    return xp.asarray(grid.astype(dtype))


class SpatialTransformerGrid(FunctionNode):
    """``theta @ (x_t, y_t, 1)`` for every output pixel."""

    def __init__(self, output_shape: Any) -> None:
        out = tuple(int(s) for s in output_shape)
        if len(out) != 2 or min(out) < 1:
            raise ValueError(
                "spatial_transformer_grid: output_shape must be a pair of "
                f"positive ints, got {output_shape!r}"
            )
        self.output_shape = out

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("theta",))
        theta = in_types[0]
        type_check.expect(
            theta.dtype.kind == "f",
            theta.ndim == 3,
            theta.shape[1] == 2,
            theta.shape[2] == 3,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (theta,) = inputs
        xp = backend.get_array_module(theta)
        self._grid_t = _target_grid(xp, self.output_shape, theta.dtype)
        y = xp.matmul(theta, self._grid_t)
        return (y.reshape((len(theta), 2) + self.output_shape),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.array.reshape import reshape
        from kusari.functions.math.matmul import matmul

        (gy,) = grad_outputs
        n = gy.shape[0]
        g = reshape(gy, (n, 2, -1))
        return (matmul(g, self._grid_t, transb=True),)


def spatial_transformer_grid(theta: Any, output_shape: Any, **kwargs: Any) -> Variable:
    """Sampling grid of an affine spatial transformer.

    Output pixel ``(i, j)`` with normalised target coordinates
    ``(x_t, y_t)`` in ``[-1, 1]`` samples at ``theta @ (x_t, y_t, 1)``.

    Args:
        theta: Variable of shape ``(n, 2, 3)`` (affine parameters).
        output_shape: ``(out_h, out_w)``.

    Returns:
        Variable of shape ``(n, 2, out_h, out_w)``; channel 0 holds the
        x (width) coordinates and channel 1 the y (height) coordinates.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> theta = np.array([[[1, 0, 0], [0, 1, 0]]], np.float32)
        >>> F.spatial_transformer_grid(theta, (2, 3)).array[0, 0]
        array([[-1.,  0.,  1.],
               [-1.,  0.,  1.]], dtype=float32)
    """
    if kwargs:
        if "use_cudnn" in kwargs:
            raise ValueError(
                "spatial_transformer_grid: use_cudnn is not supported "
                "anymore; use kusari.using_config('use_cudnn', ...)"
            )
        raise TypeError(
            f"spatial_transformer_grid: unexpected keyword arguments {sorted(kwargs)}"
        )
    return SpatialTransformerGrid(output_shape).apply((theta,))[0]
