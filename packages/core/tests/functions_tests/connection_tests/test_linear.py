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


def _linear_grads(x, W, b, gy, n_batch_axes, double):
    xs = [kusari.Variable(a.copy()) for a in (x, W) + (() if b is None else (b,))]
    y = F.linear(*xs[:2], xs[2] if b is not None else None, n_batch_axes=n_batch_axes)
    y.grad = gy
    # enable_double_backprop=True runs backward on Variables; the default
    # first-order pass runs backward_array on the arrays.
    y.backward(enable_double_backprop=double)
    return [v.grad for v in xs]


@pytest.mark.parametrize(
    "dx,dw",
    [
        (np.float16, np.float16),
        (np.float32, np.float32),
        (np.float64, np.float64),
        (np.float16, np.float32),
        (np.float64, np.float32),
    ],
)
@pytest.mark.parametrize(
    "x_shape,n_batch_axes", [((6, 4), 1), ((6, 2, 2), 1), ((3, 2, 4), 2)]
)
@pytest.mark.parametrize("nobias", [False, True])
def test_linear_backward_array_matches_variable_backward(
    dx, dw, x_shape, n_batch_axes, nobias
):
    rng = np.random.default_rng(1)
    in_size = int(np.prod(x_shape[n_batch_axes:]))
    x = rng.standard_normal(x_shape).astype(dx)
    W = rng.standard_normal((5, in_size)).astype(dw)
    b = None if nobias else rng.standard_normal(5).astype(dx)
    gy = rng.standard_normal(x_shape[:n_batch_axes] + (5,)).astype(dx)
    fast = _linear_grads(x, W, b, gy, n_batch_axes, False)
    slow = _linear_grads(x, W, b, gy, n_batch_axes, True)
    for f, s, a in zip(fast, slow, (x, W, b)):
        assert f.dtype == a.dtype and f.shape == a.shape
        np.testing.assert_array_equal(f, s)
    # And against NumPy in float64.
    x2 = x.reshape(-1, in_size).astype(np.float64)
    gy2 = gy.reshape(-1, 5).astype(np.float64)
    tol = 1e-2 if np.float16 in (dx, dw) else 1e-5
    np.testing.assert_allclose(
        fast[0].reshape(-1, in_size), gy2 @ W.astype(np.float64), rtol=tol, atol=tol
    )
    np.testing.assert_allclose(fast[1], gy2.T @ x2, rtol=tol, atol=tol)
    if b is not None:
        np.testing.assert_allclose(fast[2], gy2.sum(axis=0), rtol=tol, atol=tol)


def test_linear_backward_array_large_bias_gradient():
    # A gradient above the intra-op threshold sums the bias gradient over the
    # pool: it must still be the column sum.
    from kusari.utils import threads

    rows = threads.MIN_ELEMENTS // 8 + 3
    rng = np.random.default_rng(2)
    x = rng.standard_normal((rows, 3)).astype(np.float32)
    W = rng.standard_normal((8, 3)).astype(np.float32)
    b = np.zeros(8, np.float32)
    gy = rng.standard_normal((rows, 8)).astype(np.float32)
    gx, gW, gb = _linear_grads(x, W, b, gy, 1, False)
    np.testing.assert_allclose(gb, gy.astype(np.float64).sum(axis=0), rtol=1e-4)
    np.testing.assert_allclose(gx, gy @ W, rtol=1e-5)
    np.testing.assert_allclose(gW, gy.T @ x, rtol=1e-4)


def test_linear_backward_array_is_used_and_hooks_still_see_backward():
    from kusari.functions.connection.linear import LinearFunction

    x = kusari.Variable(np.ones((2, 3), np.float32))
    W = kusari.Variable(np.ones((4, 3), np.float32))
    assert LinearFunction._has_backward_array
    calls = []

    class Hook(kusari.FunctionHook):
        name = "record"

        def backward_preprocess(self, function, in_data, out_grad):
            calls.append(function.label)

    y = F.linear(x, W)
    y.grad = np.ones((2, 4), np.float32)
    with Hook():
        # A hook makes the pass run backward on Variables; it sees the call.
        y.backward()
    assert "LinearFunction" in calls
    np.testing.assert_array_equal(W.grad, np.full((4, 3), 2, np.float32))
