import numpy as np
import pytest

import kusari.functions as F
from kusari import Variable
from kusari.testing import check_op
from kusari.utils import type_check


def _ref(x0, x1, y, margin, reduce):
    d = np.sqrt(((x0 - x1) ** 2).sum(axis=1))
    loss = 0.5 * (y * d**2 + (1 - y) * np.maximum(margin - d, 0) ** 2)
    return np.asarray(loss.sum() / len(y)) if reduce == "mean" else loss


def _labels(rng, dtype):
    return np.array([0, 1, 0, 1, 0], np.int32)


@pytest.mark.parametrize("reduce", ["mean", "no"])
@pytest.mark.parametrize("margin", [1.0, 2.0])
def test_contrastive(margin, reduce, float_dtype, device):
    def x_gen(rng, dtype):
        # distances stay below 0.9 * margin: away from the hinge at margin
        return rng.uniform(-0.25, 0.25, (5, 3)).astype(dtype) * margin

    check_op(
        lambda a, b, y: F.contrastive(a, b, y, margin=margin, reduce=reduce),
        lambda a, b, y: _ref(a, b, y, margin, reduce),
        [x_gen, x_gen, _labels],
        dtype=float_dtype,
        device=device,
    )


def test_contrastive_coincident_pair_finite_grad():
    x0 = Variable(np.ones((2, 3), np.float32))
    x1 = Variable(np.ones((2, 3), np.float32))
    loss = F.contrastive(x0, x1, np.array([1, 0], np.int32))
    loss.backward()
    assert np.isfinite(x0.grad).all()
    assert float(loss.array) == pytest.approx(0.25)


def test_contrastive_bad_margin():
    a = np.zeros((2, 2), np.float32)
    with pytest.raises(ValueError, match="margin"):
        F.contrastive(a, a, np.zeros(2, np.int32), margin=0)


def test_contrastive_bad_reduce():
    a = np.zeros((2, 2), np.float32)
    with pytest.raises(ValueError, match="reduce"):
        F.contrastive(a, a, np.zeros(2, np.int32), reduce="sum")


def test_contrastive_bad_types():
    a = np.zeros((2, 2), np.float32)
    with pytest.raises(type_check.InvalidType, match="Contrastive"):
        F.contrastive(a, a, np.zeros(3, np.int32))
    with pytest.raises(type_check.InvalidType):
        F.contrastive(a, np.zeros((2, 3), np.float32), np.zeros(2, np.int32))
