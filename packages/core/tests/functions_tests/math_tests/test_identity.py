import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.testing import check_op


def test_identity_one(float_dtype, device):
    check_op(F.identity, lambda x: x, [(3, 2)], dtype=float_dtype, device=device)


def test_identity_many(float_dtype, device):
    check_op(
        F.identity,
        lambda x, y: (x, y),
        [(3, 2), (4,)],
        dtype=float_dtype,
        device=device,
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
