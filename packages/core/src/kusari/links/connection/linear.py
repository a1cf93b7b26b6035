"""The fully connected layer link."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kusari import initializers, link, variable
from kusari.functions.connection import linear as linear_module
from kusari.links._params import bias_parameter
from kusari.utils import size_of_shape


class Linear(link.Link):
    """Fully connected layer: ``y = x W^T + b``.

    Args:
        in_size: Input size; None infers it from the first input (the
            parameters are then initialized lazily). Passing one argument
            means ``Linear(out_size)``.
        out_size: Output size.
        nobias: Leave out the bias.
        initialW: Initializer of ``W`` (shape ``(out_size, in_size)``);
            LeCunNormal by default.
        initial_bias: Initializer of ``b``; zero by default.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> layer = L.Linear(3, 2)
        >>> layer(np.ones((4, 3), np.float32)).shape
        (4, 2)
        >>> lazy = L.Linear(5)
        >>> lazy(np.ones((1, 7), np.float32)).shape, lazy.W.shape
        ((1, 5), (5, 7))
    """

    def __init__(
        self,
        in_size: int | None,
        out_size: int | None = None,
        nobias: bool = False,
        initialW: Any = None,
        initial_bias: Any = None,
    ) -> None:
        super().__init__()
        if out_size is None:
            in_size, out_size = None, in_size
        if out_size is None:
            raise ValueError("Linear: out_size is required")
        self.in_size = in_size
        self.out_size = out_size
        self.nobias = nobias
        with self.init_scope():
            self.W = variable.Parameter(initializers._get_initializer(initialW))
            if in_size is not None:
                self._initialize_params(in_size)
            if nobias:
                self.b = None
            else:
                self.b = bias_parameter(out_size, initial_bias)

    def _initialize_params(self, in_size: int) -> None:
        self.W.initialize((self.out_size, in_size))

    @property
    def printable_specs(self) -> Iterator[tuple[str, Any]]:
        yield "in_size", self.in_size
        yield "out_size", self.out_size
        yield "nobias", self.nobias

    @classmethod
    def from_params(cls, W: Any, b: Any = None, nobias: bool = False) -> Linear:
        """Build a Linear whose parameters start from the given arrays."""
        W = getattr(W, "array", W)
        out_size, in_size = W.shape
        if b is not None:
            b = getattr(b, "array", b)
            if b.shape != (out_size,):
                raise ValueError(
                    f"Linear.from_params: b must have shape ({out_size},), "
                    f"got {b.shape}"
                )
        return cls(
            in_size, out_size, nobias=nobias or b is None, initialW=W, initial_bias=b
        )

    def forward(self, x: Any, n_batch_axes: int = 1) -> Any:
        if self.W.array is None:
            shape = x.shape
            self.in_size = size_of_shape(shape[n_batch_axes:])
            self._initialize_params(self.in_size)
        return linear_module.linear(x, self.W, self.b, n_batch_axes=n_batch_axes)
