import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.testing import check_op


# Engine workaround: kusari._backprop.backward ignores an output that is a
# leaf Variable, and identity's gradient *is* the incoming gradient, so
# check_double_backward would see zero. A trailing "* 1.0" gives the gradient
# a node of its own without changing what is checked.
def _one(x):
    return F.identity(x) * 1.0


def _many(x, y):
    a, b = F.identity(x, y)
    return a * 1.0, b * 1.0


def test_identity_one(float_dtype, device):
    check_op(_one, lambda x: x, [(3, 2)], dtype=float_dtype, device=device)


def test_identity_many(float_dtype, device):
    check_op(
        _many, lambda x, y: (x, y), [(3, 2), (4,)], dtype=float_dtype, device=device
    )


def test_identity_returns_new_variables():
    x = kusari.Variable(np.ones(2, np.float32))
    y = F.identity(x)
    assert y is not x and y.creator is not None
    a, b = F.identity(x, x)
    assert isinstance(a, kusari.Variable) and isinstance(b, kusari.Variable)


def test_identity_needs_an_input():
    with pytest.raises(TypeError, match="identity"):
        F.identity()
