"""``simplified_dropconnect``: a linear layer whose weights are dropped at random."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable


class SimplifiedDropconnect(FunctionNode):
    """``y[i] = (W * scale * mask[i]) @ x[i] + b``."""

    def __init__(
        self, ratio: float, mask: Any = None, use_batchwise_mask: bool = True
    ) -> None:
        if not 0.0 <= ratio < 1.0:
            raise ValueError(
                f"simplified_dropconnect: ratio must be in the range "
                f"[0, 1), got {ratio!r}"
            )
        self.ratio = ratio
        if isinstance(mask, Variable):
            mask = mask.array
        self.mask = mask
        self.use_batchwise_mask = use_batchwise_mask if mask is None else mask.ndim == 3

    def check_type_forward(self, in_types: Any) -> None:
        n_in = in_types.size()
        type_check.expect(2 <= n_in, n_in <= 3)
        x, w = in_types[0], in_types[1]
        type_check._argname((x, w), ("x", "W"))
        type_check.expect(
            x.dtype.kind == "f", w.dtype.kind == "f", x.ndim >= 2, w.ndim == 2
        )
        # (type_check.prod loops forever on a symbolic slice; compute it here.)
        n_in_features = int(numpy.prod(type_check.eval(x.shape)[1:]))
        w_in = type_check.eval(w.shape)[1]
        if n_in_features != w_in:
            raise type_check.InvalidType(
                "prod(x.shape[1:]) == W.shape[1]", f"{n_in_features} != {w_in}"
            )
        if type_check.eval(n_in) == 3:
            b = in_types[2]
            type_check._argname((b,), ("b",))
            type_check.expect(b.dtype == x.dtype, b.ndim == 1, b.shape[0] == w.shape[0])
        if self.mask is not None:
            mshape = tuple(self.mask.shape)
            xs, ws = type_check.eval(x.shape), type_check.eval(w.shape)
            want = (xs[0],) + tuple(ws) if self.use_batchwise_mask else tuple(ws)
            if mshape != want:
                raise type_check.InvalidType(f"mask.shape == {want}", f"{mshape}")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, W = inputs[:2]
        xp = backend.get_array_module(x)
        self._scale = 1.0 / (1 - self.ratio)
        if self.mask is None:
            shape = ((x.shape[0],) + W.shape) if self.use_batchwise_mask else W.shape
            if xp is numpy:
                self.mask = numpy.random.rand(*shape) >= self.ratio
            else:  # pragma: no cover - needs CuPy
                self.mask = xp.random.rand(*shape, dtype=numpy.float32) >= self.ratio
        self._maskf = xp.asarray(self.mask).astype(x.dtype) * x.dtype.type(self._scale)
        x2 = x.reshape(len(x), -1)
        Wm = W * self._maskf
        if self.use_batchwise_mask:
            y = xp.matmul(Wm, x2[:, :, None])[:, :, 0]
        else:
            y = x2 @ Wm.T
        if len(inputs) == 3:
            y = y + inputs[2]
        return (y.astype(x.dtype, copy=False),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.array.broadcast import broadcast_to
        from kusari.functions.array.cast import cast
        from kusari.functions.array.reshape import reshape
        from kusari.functions.math.matmul import matmul
        from kusari.functions.math.sum import sum as _sum

        x, W = self.get_retained_inputs()
        (gy,) = grad_outputs
        n = x.shape[0]
        x2 = reshape(x, (n, -1))
        maskf = self._maskf
        # The mask scaled in W's dtype, for products with W: a mask of x's
        # dtype would promote W's gradient to x's dtype.
        xp = backend.get_array_module(maskf)
        maskf_w = xp.asarray(self.mask).astype(W.dtype) * W.dtype.type(self._scale)
        ret = []
        for i in indexes:
            if i == 0:
                if self.use_batchwise_mask:
                    Wm = broadcast_to(W, maskf_w.shape) * maskf_w
                    gx = matmul(reshape(gy, (n, 1, -1)), Wm)
                else:
                    gx = matmul(gy, W * maskf_w)
                # x and W may differ in dtype (as in Chainer 7); each
                # gradient comes back in its own input's dtype.
                ret.append(cast(reshape(gx, x.shape), x.dtype))
            elif i == 1:
                if self.use_batchwise_mask:
                    shape = maskf.shape
                    outer = broadcast_to(reshape(gy, (n, -1, 1)), shape) * broadcast_to(
                        reshape(x2, (n, 1, -1)), shape
                    )
                    gW = _sum(outer * maskf, axis=0)
                else:
                    gW = matmul(gy, x2, transa=True) * maskf
                ret.append(cast(gW, W.dtype))
            else:
                ret.append(_sum(gy, axis=0))
        return tuple(ret)


def simplified_dropconnect(
    x: Any,
    W: Any,
    b: Any = None,
    ratio: float = 0.5,
    train: bool = True,
    mask: Any = None,
    use_batchwise_mask: bool = True,
) -> Variable:
    """Linear layer ``y = x W^T + b`` with weights dropped at random.

    Each weight is dropped with probability ``ratio`` and the rest are
    scaled by ``1 / (1 - ratio)``. ``x`` and ``W`` may have different float
    dtypes; the output and ``b`` have ``x``'s. As in Chainer, the ``train`` argument
    (not ``config.train``) switches it off: with ``train=False`` it is a
    plain linear function.

    Args:
        x: Input of shape ``(n, ...)``; the trailing axes flatten to ``N``.
        W: Weight of shape ``(M, N)``.
        b: Optional bias of shape ``(M,)``.
        ratio: Drop probability in ``[0, 1)``.
        train: Drop weights (True) or not.
        mask: A fixed boolean mask of shape ``(n, M, N)`` or ``(M, N)``.
        use_batchwise_mask: Draw a separate mask per sample.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x, W = np.ones((2, 3), np.float32), np.ones((4, 3), np.float32)
        >>> F.simplified_dropconnect(x, W, train=False).shape
        (2, 4)
    """
    if not train:
        ratio = 0
    func = SimplifiedDropconnect(ratio, mask, use_batchwise_mask)
    if b is None:
        return func.apply((x, W))[0]
    return func.apply((x, W, b))[0]
