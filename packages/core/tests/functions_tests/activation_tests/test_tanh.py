import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.functions.activation.tanh import TanhGrad
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize("shape", [(3, 4), ()])
def test_tanh(shape, float_dtype, device):
    check_op(F.tanh, np.tanh, [shape], dtype=float_dtype, device=device)


def test_tanh_backward_is_one_node():
    x = kusari.Variable(np.array([0.3, -0.2], np.float64))
    y = F.tanh(x)
    (gx,) = kusari.grad(
        [y], [x], grad_outputs=[np.ones(2)], enable_double_backprop=True
    )
    assert isinstance(gx.creator, TanhGrad)
    np.testing.assert_allclose(gx.array, 1 - np.tanh(x.array) ** 2)


def test_tanh_int_input():
    with pytest.raises(type_check.InvalidType):
        F.tanh(np.zeros(3, np.int32))
