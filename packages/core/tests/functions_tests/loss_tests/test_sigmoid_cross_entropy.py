import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _ref(x, t, normalize, reduce):
    mask = t != -1
    loss = (np.logaddexp(0, x) - x * t) * mask
    if reduce == "no":
        return loss
    count = mask.sum() if normalize else x.shape[0]
    return np.asarray(loss.sum() / max(count, 1))


@pytest.mark.parametrize("reduce", ["mean", "no"])
@pytest.mark.parametrize("normalize", [True, False])
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 2)])
def test_sigmoid_cross_entropy(shape, normalize, reduce, float_dtype, device):
    def labels(rng, dtype):
        return rng.integers(-1, 2, shape).astype(np.int32)

    check_op(
        lambda x, t: F.sigmoid_cross_entropy(x, t, normalize, reduce),
        lambda x, t: _ref(x, t, normalize, reduce),
        [shape, labels],
        dtype=float_dtype,
        device=device,
    )


def test_sigmoid_cross_entropy_large_inputs_stable():
    x = np.array([[100.0, -100.0]], np.float32)
    y = F.sigmoid_cross_entropy(x, np.array([[1, 0]], np.int32), reduce="no")
    np.testing.assert_allclose(y.array, [[0, 0]], atol=1e-6)


def test_sigmoid_cross_entropy_all_ignored():
    x = np.ones((2, 2), np.float32)
    y = F.sigmoid_cross_entropy(x, -np.ones((2, 2), np.int32))
    assert float(y.array) == 0.0


def test_sigmoid_cross_entropy_bad_reduce():
    with pytest.raises(ValueError, match="reduce"):
        F.sigmoid_cross_entropy(
            np.zeros(2, np.float32), np.zeros(2, np.int32), reduce="sum"
        )


def test_sigmoid_cross_entropy_bad_types():
    with pytest.raises(type_check.InvalidType, match="SigmoidCrossEntropy"):
        F.sigmoid_cross_entropy(np.zeros((2, 2), np.float32), np.zeros(2, np.int32))
    with pytest.raises(type_check.InvalidType):
        F.sigmoid_cross_entropy(np.zeros(2, np.float32), np.zeros(2, np.float32))


def test_sigmoid_cross_entropy_known_values():
    x = np.array([[-2.0, 3.0, 0.5], [5.0, 2.0, -0.5]], np.float32)
    t = np.array([[0, 1, 0], [1, 1, -1]], np.int32)
    assert float(F.sigmoid_cross_entropy(x, t).array) == pytest.approx(0.25664714)
    assert float(F.sigmoid_cross_entropy(x, t, normalize=False).array) == pytest.approx(
        0.64161783
    )
    y = F.sigmoid_cross_entropy(x, t, reduce="no")
    assert y.shape == (2, 3) and y.dtype == np.float32
    assert y.array[1, 2] == 0
