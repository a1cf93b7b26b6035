from __future__ import annotations

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize(
    "x_shape,n_batch_axes", [((4, 3), 1), ((4, 3, 2), 1), ((2, 4, 3), 2)]
)
@pytest.mark.parametrize("nobias", [False, True])
def test_linear(x_shape, n_batch_axes, nobias, float_dtype, device):
    in_size = int(np.prod(x_shape[n_batch_axes:]))

    def ref(x, W, *b):
        y = x.reshape(x_shape[:n_batch_axes] + (in_size,)) @ W.T
        return y + b[0] if b else y

    inputs = [x_shape, (5, in_size)] + ([] if nobias else [(5,)])
    tol = {"forward": (1e-2, 1e-2)} if float_dtype == np.float16 else None
    check_op(
        lambda *a: F.linear(
            *a[:2], a[2] if len(a) > 2 else None, n_batch_axes=n_batch_axes
        ),
        ref,
        inputs,
        dtype=float_dtype,
        device=device,
        tolerances=tol,
    )


def test_linear_bad_n_batch_axes():
    with pytest.raises(ValueError, match="n_batch_axes must be positive"):
        F.linear(
            np.ones((2, 3), np.float32), np.ones((4, 3), np.float32), n_batch_axes=0
        )


# Chainer 7 accepts x and W of different float dtypes: y (and b) in x's dtype,
# gx in x's and gW in W's (check_op checks each gradient's dtype).
@pytest.mark.parametrize(
    "dx,dw",
    [(np.float16, np.float32), (np.float32, np.float16), (np.float64, np.float32)],
)
@pytest.mark.parametrize("x_shape,n_batch_axes", [((4, 3), 1), ((2, 4, 3), 2)])
@pytest.mark.parametrize("nobias", [False, True])
def test_linear_mixed_dtypes(dx, dw, x_shape, n_batch_axes, nobias, device):
    in_size = int(np.prod(x_shape[n_batch_axes:]))

    def ref(x, W, *b):
        y = x.reshape(x_shape[:n_batch_axes] + (in_size,)) @ W.T
        return y + b[0] if b else y

    inputs = [x_shape, (5, in_size)] + ([] if nobias else [(5,)])
    dtypes = [dx, dw] + ([] if nobias else [dx])
    check_op(
        lambda *a: F.linear(
            *a[:2], a[2] if len(a) > 2 else None, n_batch_axes=n_batch_axes
        ),
        ref,
        inputs,
        input_dtypes=dtypes,
        dtype=dx,
        device=device,
    )


def test_linear_mixed_accumulates_weight_gradient_in_float32():
    # A float16 x with a float32 W: gW is summed in float32, so a long batch
    # of small products is not rounded to float16 on the way.
    x = np.full((4097, 1), 0.3, np.float16)
    W = kusari.Variable(np.ones((1, 1), np.float32))
    y = F.linear(x, W)
    assert y.dtype == np.float16
    y.grad = np.ones_like(y.array)
    y.backward()
    assert W.grad.dtype == np.float32
    np.testing.assert_allclose(W.grad, [[4097 * float(np.float16(0.3))]], rtol=1e-6)


def test_linear_dtype_errors():
    x = np.ones((2, 3), np.float32)
    with pytest.raises(type_check.InvalidType, match="b.dtype == x.dtype"):
        F.linear(x, np.ones((4, 3), np.float16), np.ones(4, np.float16))
    with pytest.raises(type_check.InvalidType, match=r"W\.dtype\.kind == 'f'"):
        F.linear(x, np.ones((4, 3), np.int32))
