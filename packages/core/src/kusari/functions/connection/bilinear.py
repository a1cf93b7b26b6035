"""Bilinear function ``y = e1^T W e2 + V1^T e1 + V2^T e2 + b``."""

from __future__ import annotations

from typing import Any

from kusari.utils import type_check
from kusari.variable import Variable


def bilinear(
    e1: Any, e2: Any, W: Any, V1: Any = None, V2: Any = None, b: Any = None
) -> Variable:
    """Bilinear function: ``y_il = sum_jk e1_ij e2_ik W_jkl (+ e1 V1 + e2 V2 + b)``.

    Args:
        e1: Left input of shape ``(i, j)`` (trailing axes are flattened).
        e2: Right input of shape ``(i, k)`` (trailing axes are flattened).
        W: Quadratic weight of shape ``(j, k, l)``.
        V1: Left linear weight ``(j, l)``; ``V1``, ``V2`` and ``b`` are given
            together or not at all.
        V2: Right linear weight ``(k, l)``.
        b: Bias ``(l,)``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> e1 = np.ones((2, 3), np.float32)
        >>> e2 = np.ones((2, 4), np.float32)
        >>> W = np.ones((3, 4, 5), np.float32)
        >>> F.bilinear(e1, e2, W).shape
        (2, 5)
    """
    from kusari.functions.array.reshape import reshape
    from kusari.functions.math.matmul import matmul

    flags = [V1 is None, V2 is None, b is None]
    if any(flags) and not all(flags):
        raise ValueError("bilinear: V1, V2 and b must be all None or all given")
    n = e1.shape[0]
    e1 = reshape(e1, (n, -1)) if len(e1.shape) != 2 else e1
    e2 = reshape(e2, (e2.shape[0], -1)) if len(e2.shape) != 2 else e2
    J, K = e1.shape[1], e2.shape[1]
    if len(W.shape) != 3 or W.shape[0] != J or W.shape[1] != K or e2.shape[0] != n:
        raise type_check.InvalidType(
            "e1.shape[0] == e2.shape[0], W.shape[:2] == (e1.shape[1], e2.shape[1])",
            f"e1.shape={tuple(e1.shape)}, e2.shape={tuple(e2.shape)}, "
            f"W.shape={tuple(W.shape)}",
            "Invalid operation is performed in: BilinearFunction (Forward)\n\n"
            "Expect: e1.shape[0] == e2.shape[0], W.shape[:2] == (e1.shape[1], "
            f"e2.shape[1])\nActual: e1.shape={tuple(e1.shape)}, "
            f"e2.shape={tuple(e2.shape)}, W.shape={tuple(W.shape)}",
        )
    L = W.shape[2]
    outer = reshape(e1, (n, J, 1)) * reshape(e2, (n, 1, K))
    y = matmul(reshape(outer, (n, J * K)), reshape(W, (J * K, L)))
    if V1 is not None:
        y = y + matmul(e1, V1) + matmul(e2, V2) + reshape(b, (1, L))
    return y
