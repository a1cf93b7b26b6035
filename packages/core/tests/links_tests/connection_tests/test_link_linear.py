"""L.Linear's dtypes: under ``kusari.mixed16``, and fed another float dtype."""

import numpy as np
import pytest

import kusari
import kusari.links as L
from kusari import gradient_check
from kusari.utils import type_check


def test_parameters_under_mixed16_are_float16():
    # As in Chainer 7: mixed16 means float16 parameters for Linear.
    with kusari.using_config("dtype", kusari.mixed16):
        eager = L.Linear(3, 2)
        lazy = L.Linear(2)
        lazy(np.ones((1, 3), np.float16))
    for link in (eager, lazy):
        assert link.W.dtype == link.b.dtype == np.float16


def test_lazy_parameters_take_the_dtype_configured_at_initialization():
    # As Chainer's Parameter: the initializer's dtype is resolved when the
    # array is made, not when the link is.
    with kusari.using_config("dtype", kusari.mixed16):
        lazy = L.Linear(2, nobias=True)
    lazy(np.ones((1, 3), np.float32))
    assert lazy.W.dtype == np.float32


def test_float32_weight_with_float16_input():
    link = L.Linear(3, 2, nobias=True)
    rng = np.random.default_rng(0)
    x = kusari.Variable(rng.uniform(-1, 1, (4, 3)).astype(np.float16))
    y = link(x)
    assert y.dtype == np.float16
    expected = x.array.astype(np.float64) @ link.W.array.T.astype(np.float64)
    np.testing.assert_allclose(y.array, expected, atol=5e-3, rtol=5e-3)
    y.grad = np.ones_like(y.array)
    link.cleargrads()
    y.backward()
    assert x.grad.dtype == np.float16 and link.W.grad.dtype == np.float32
    gy = rng.uniform(-1, 1, (4, 2)).astype(np.float16)
    gradient_check.check_backward(
        link,
        x.array,
        gy,
        params=(link.W,),
        eps=2e-2,
        atol=5e-2,
        rtol=5e-2,
        dtype=np.float64,
    )


def test_bias_must_have_the_input_dtype():
    # Chainer's check: b.dtype == x.dtype, so a float32 Linear with a bias
    # does not take float16 inputs.
    link = L.Linear(3, 2)
    with pytest.raises(type_check.InvalidType, match="b.dtype == x.dtype"):
        link(np.ones((1, 3), np.float16))
