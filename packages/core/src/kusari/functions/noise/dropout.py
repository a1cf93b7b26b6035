"""``dropout``: zero elements at random in training, scaling the rest."""

from __future__ import annotations

from typing import Any

import numpy

import kusari
from kusari import backend
from kusari.backends import cuda
from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable, as_variable


class Dropout(FunctionNode):
    """``y = x * mask`` with ``mask`` in ``{0, 1 / (1 - ratio)}``."""

    def __init__(
        self, dropout_ratio: float, mask: Any = None, return_mask: bool = False
    ) -> None:
        if not 0.0 <= dropout_ratio < 1.0:
            raise ValueError(
                f"dropout: ratio must be in the range [0, 1), got {dropout_ratio!r}"
            )
        self.dropout_ratio = dropout_ratio
        self.mask = mask
        self.return_mask = return_mask

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x = in_types[0]
        type_check.expect(x.dtype.kind == "f")
        if self.mask is not None:
            mshape = getattr(self.mask, "shape", None)
            xshape = type_check.eval(x.shape)
            if mshape != xshape:
                raise type_check.InvalidType(
                    "mask.shape == x.shape", f"{mshape} != {xshape}"
                )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        xp = backend.get_array_module(x)
        if self.mask is None:
            scale = x.dtype.type(1.0 / (1 - self.dropout_ratio))
            if xp is numpy:
                flag = numpy.random.rand(*x.shape) >= self.dropout_ratio
                self.mask = flag * scale
            else:  # pragma: no cover - needs CuPy
                # The mask and the product in one pass over the uniform draws.
                u = xp.random.rand(*x.shape, dtype=numpy.float32)
                self.mask, y = cuda.elementwise(
                    "float32 u, T x, float32 ratio, T scale",
                    "T mask, T y",
                    "mask = u >= ratio ? scale : (T)0; y = x * mask",
                    "kusari_dropout_fwd",
                )(u, x, self.dropout_ratio, scale)
                return (y,)
        else:
            mask = self.mask.array if isinstance(self.mask, Variable) else self.mask
            self.mask = xp.asarray(mask).astype(x.dtype, copy=False)
        return (x * self.mask,)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return DropoutGrad(self.mask).apply(grad_outputs)


class DropoutGrad(FunctionNode):
    """Multiply by the fixed mask (its own adjoint)."""

    def __init__(self, mask: Any) -> None:
        self.mask = mask

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (inputs[0] * self.mask,)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return DropoutGrad(self.mask).apply(grad_outputs)


def dropout(
    x: Any,
    ratio: float = 0.5,
    mask: Any = None,
    return_mask: bool = False,
    **kwargs: Any,
) -> Any:
    """Drop elements of ``x`` with probability ``ratio`` (training only).

    Kept elements are scaled by ``1 / (1 - ratio)``. When
    ``kusari.config.train`` is False, ``x`` is returned unchanged (as a
    Variable) and the mask is None.

    Args:
        x: Input variable (floating point).
        ratio: Dropout ratio in ``[0, 1)``.
        mask: A fixed scaled mask (values ``0`` or ``1 / (1 - ratio)``) of
            ``x``'s shape to use instead of a random one.
        return_mask: Also return the mask that was used.

    Returns:
        The output Variable, or ``(output, mask)`` when ``return_mask``.

    Example:
        >>> import numpy as np
        >>> import kusari
        >>> import kusari.functions as F
        >>> x = np.ones((2, 3), np.float32)
        >>> with kusari.using_config('train', False):
        ...     F.dropout(x).array.tolist()
        [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
    """
    if kwargs:
        if "train" in kwargs:
            raise ValueError(
                "dropout: the train argument is not supported anymore; "
                "use kusari.using_config('train', ...)"
            )
        raise TypeError(f"dropout: unexpected keyword arguments {sorted(kwargs)}")
    if kusari.config.train:
        func = Dropout(ratio, mask, return_mask)
        out = func.apply((x,))[0]
        used = func.mask
    else:
        out = as_variable(x)
        used = None
    if return_mask:
        return out, used
    return out
