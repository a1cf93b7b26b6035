"""Variable's zerograd/addgrad/copydata (kusari._variable_grads) and the
private attributes Chainer v7's own tests read on Variables."""

from __future__ import annotations

import numpy as np
import pytest

import kusari
from kusari._variable_grads import AddgradDtypeError


def _with_grad(dtype: type, value: float) -> kusari.Variable:
    v = kusari.Variable(np.zeros(2, dtype))
    v.grad = np.full(2, value, dtype)
    return v


@pytest.mark.parametrize("dst_has_grad", [True, False])
def test_addgrad_refuses_a_gradient_of_another_dtype(dst_has_grad: bool) -> None:
    dst = _with_grad(np.float32, 3.0)
    if not dst_has_grad:
        dst.cleargrad()
    src = _with_grad(np.float64, 2.0)
    with pytest.raises(AddgradDtypeError, match="float64 but this variable is float32"):
        dst.addgrad(src)
    # Chainer 7 raised TypeError for this; its later tests expect ValueError.
    assert issubclass(AddgradDtypeError, TypeError)
    assert issubclass(AddgradDtypeError, ValueError)
    assert dst.grad is None if not dst_has_grad else dst.grad.dtype == np.float32


def test_addgrad_of_the_same_dtype_adds() -> None:
    dst = _with_grad(np.float32, 3.0)
    dst.addgrad(_with_grad(np.float32, 2.0))
    np.testing.assert_array_equal(dst.grad, [5.0, 5.0])
    assert dst.grad.dtype == np.float32


def test_chainer_private_attributes() -> None:
    x = kusari.Variable(np.ones(3, np.float32))
    # There is no ChainerX array in kusari.
    assert x._has_chainerx_array is False
    # A user's Variable has its node from the start (as in Chainer) ...
    assert x._node is not None and x._node is x.node
    # ... whose rank Chainer calls _rank.
    x.node._rank = 4
    assert x.rank == 4 and x.node.rank == 4
    y = x * 2.0
    assert y.rank == 5
    # A Variable that needs no gradient gets no node until asked.
    assert kusari.Variable(np.ones(1), requires_grad=False)._node is None
