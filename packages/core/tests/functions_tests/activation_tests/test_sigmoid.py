import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.functions.activation.sigmoid import SigmoidGrad
from kusari.testing import check_op
from kusari.utils import type_check


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


@pytest.mark.parametrize("shape", [(3, 4), ()])
def test_sigmoid(shape, float_dtype, device):
    check_op(F.sigmoid, _sigmoid, [shape], dtype=float_dtype, device=device)


def test_sigmoid_backward_is_one_node():
    x = kusari.Variable(np.array([0.3, -2.0], np.float64))
    y = F.sigmoid(x)
    (gx,) = kusari.grad(
        [y], [x], grad_outputs=[np.ones(2)], enable_double_backprop=True
    )
    assert isinstance(gx.creator, SigmoidGrad)
    s = _sigmoid(x.array)
    np.testing.assert_allclose(gx.array, s * (1 - s))


def test_sigmoid_int_input():
    with pytest.raises(type_check.InvalidType):
        F.sigmoid(np.zeros(3, np.int32))
