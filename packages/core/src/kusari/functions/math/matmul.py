"""Matrix products with NumPy's ``matmul`` broadcasting over batch axes.

The operands may have different float dtypes (as in Chainer 7): the product is
computed and returned in the promoted dtype (float16 @ float32 is float32), and
each operand's gradient comes back in that operand's own dtype.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.math import _gemm_split
from kusari.utils import force_array, type_check
from kusari.variable import Variable


def _t(a: Any) -> Any:
    return a.swapaxes(-1, -2) if a.ndim >= 2 else a


class MatMul(FunctionNode):
    """``op(a) @ op(b)`` where ``op`` optionally swaps the last two axes."""

    def __init__(self, transa: bool = False, transb: bool = False) -> None:
        self.transa = transa
        self.transb = transb

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("a", "b"))
        a, b = in_types
        type_check.expect(
            a.dtype.kind == "f", b.dtype.kind == "f", a.ndim >= 1, b.ndim >= 1
        )
        a_shape = type_check.eval(a.shape)
        b_shape = type_check.eval(b.shape)
        ka = a_shape[-2] if self.transa and len(a_shape) >= 2 else a_shape[-1]
        if len(b_shape) == 1:
            kb = b_shape[0]
        else:
            kb = b_shape[-1] if self.transb else b_shape[-2]
        if ka != kb:
            raise type_check.InvalidType(
                "the contracted axes of a and b have the same length",
                f"a.shape={a_shape}, b.shape={b_shape}, transa={self.transa}, "
                f"transb={self.transb}",
            )
        # The leading (batch) axes must broadcast; otherwise NumPy's own
        # error would come from inside forward.
        try:
            numpy.broadcast_shapes(tuple(a_shape[:-2]), tuple(b_shape[:-2]))
        except ValueError:
            raise type_check.InvalidType(
                "the batch axes of a and b (all but the last two) broadcast",
                f"a.shape={a_shape}, b.shape={b_shape}",
            ) from None

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        a, b = inputs
        # 1-D operands are promoted to matrices (as numpy.matmul does) and a
        # transpose flag on a 1-D operand has no effect.
        self._ta = self.transa and a.ndim >= 2
        self._tb = self.transb and b.ndim >= 2
        a2 = a[None, :] if a.ndim == 1 else a
        b2 = b[:, None] if b.ndim == 1 else b
        xp = backend.get_array_module(a)
        lhs = _t(a2) if self._ta else a2
        rhs = _t(b2) if self._tb else b2
        if lhs.ndim == 2 and rhs.ndim == 2:
            # Large float32/64 products run as blocks on kusari's pool (the
            # same blocks, so the same bits, as Linear's products).
            y = _gemm_split.matmul(lhs, rhs)
        else:
            y = xp.matmul(lhs, rhs)
        self._y2_shape = y.shape
        if b.ndim == 1:
            y = y[..., 0]
        if a.ndim == 1:
            y = y[..., 0, :] if b.ndim > 1 else y[..., 0]
        return (force_array(y),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.array.cast import cast
        from kusari.functions.array.reshape import reshape
        from kusari.functions.math.sum import sum_to

        a, b = self.get_retained_inputs()
        gy2 = reshape(grad_outputs[0], self._y2_shape)
        a2 = reshape(a, (1,) + a.shape) if a.ndim == 1 else a
        b2 = reshape(b, b.shape + (1,)) if b.ndim == 1 else b
        ta, tb = self._ta, self._tb
        ret = []
        for i in indexes:
            if i == 0:
                if ta:
                    g = matmul(b2, gy2, transa=tb, transb=True)
                else:
                    g = matmul(gy2, b2, transb=not tb)
                target, orig = a2.shape, a.shape
            else:
                if tb:
                    g = matmul(gy2, a2, transa=True, transb=ta)
                else:
                    g = matmul(a2, gy2, transa=not ta)
                target, orig = b2.shape, b.shape
            if g.shape != target:
                g = sum_to(g, target)
            # With mixed operand dtypes the product above is in the promoted
            # dtype; each gradient goes back in its own operand's dtype.
            want = a.dtype if i == 0 else b.dtype
            if g.dtype != want:
                g = cast(g, want)
            ret.append(reshape(g, orig))
        return tuple(ret)


def matmul(a: Any, b: Any, transa: bool = False, transb: bool = False) -> Variable:
    """Matrix product; batch axes broadcast as in ``numpy.matmul``.

    ``a`` and ``b`` may differ in float dtype; the result has NumPy's promoted
    dtype and each gradient its operand's dtype.

    Args:
        a: Left operand (``ndim >= 1``).
        b: Right operand (``ndim >= 1``).
        transa: Swap the last two axes of ``a`` first.
        transb: Swap the last two axes of ``b`` first.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.matmul(np.ones((2, 3), np.float32), np.ones((3, 4), np.float32)).shape
        (2, 4)
    """
    return MatMul(transa, transb).apply((a, b))[0]


def batch_matmul(
    a: Any, b: Any, transa: bool = False, transb: bool = False
) -> Variable:
    """Batched matrix product of ``(B, N, M)`` arrays (deprecated; use matmul).

    A 2-D operand ``(B, N)`` is taken as a batch of column vectors ``(B, N, 1)``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> a, b = np.ones((2, 3, 4), np.float32), np.ones((2, 4, 5), np.float32)
        >>> import warnings
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     F.batch_matmul(a, b).shape
        (2, 3, 5)
        >>> caught[0].category.__name__
        'DeprecationWarning'
    """
    from kusari.functions.array.reshape import reshape
    from kusari.variable import as_variable

    # Chainer 7 warns on every call; code and tests written for it expect it.
    warnings.warn(
        "batch_matmul is deprecated. Use matmul instead.",
        DeprecationWarning,
        stacklevel=2,
    )
    a = as_variable(a)
    b = as_variable(b)
    if a.ndim == 2:
        a = reshape(a, a.shape + (1,))
    if b.ndim == 2:
        b = reshape(b, b.shape + (1,))
    if a.ndim != 3 or b.ndim != 3:
        raise type_check.InvalidType(
            "batch_matmul: a.ndim in (2, 3) and b.ndim in (2, 3)",
            f"a.ndim={a.ndim}, b.ndim={b.ndim}",
        )
    return matmul(a, b, transa, transb)
