import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.testing import check_op


def _f(x, y):
    return x * x * y + F.exp(x)


@pytest.mark.parametrize("shape", [(3, 4), ()])
def test_forget(shape, float_dtype, device):
    check_op(
        lambda x, y: F.forget(_f, x, y),
        lambda x, y: x * x * y + np.exp(x),
        [shape, shape],
        dtype=float_dtype,
        device=device,
    )


def test_forget_multiple_outputs(float_dtype, device):
    check_op(
        lambda x: F.forget(lambda a: (a * a, a * 3.0), x),
        lambda x: (x * x, x * 3.0),
        [(2, 3)],
        dtype=float_dtype,
        device=device,
    )


def test_forget_recomputes_in_backward():
    calls = []

    def f(a):
        calls.append(kusari.config.enable_backprop)
        return a * a

    x = kusari.Variable(np.array([1.0, 2.0], np.float32))
    y = F.forget(f, x)
    assert calls == [False]  # forward runs without recording a graph
    assert y.creator is not None
    F.sum(y).backward()
    assert calls == [False, True]
    np.testing.assert_array_equal(x.grad, [2, 4])


def test_forget_keeps_no_intermediates():
    from kusari.functions.util.forget import Forget

    x = kusari.Variable(np.ones(3, np.float32))
    y = F.forget(lambda a: F.exp(a) * 2.0, x)
    # One node stands for the whole sub-graph; its input is x itself.
    assert isinstance(y.creator, Forget)
    assert y.creator.inputs[0] is x.node


def test_forget_partial_output_grad():
    x = kusari.Variable(np.ones(3, np.float32))
    a, b = F.forget(lambda v: (v * 2.0, v * v), x)
    F.sum(b).backward()
    np.testing.assert_array_equal(x.grad, 2)


def test_forget_errors():
    x = kusari.Variable(np.ones(3, np.float32))
    with pytest.raises(RuntimeError, match="Variable"):
        F.forget(lambda a: a.array, x)
    with pytest.raises(RuntimeError, match="element 1"):
        F.forget(lambda a: (a * 1.0, 3), x)
    with pytest.raises(TypeError, match="callable"):
        F.forget(3, x)
