import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize(
    "shape,axis", [((4,), 0), ((4, 3), 0), ((3, 4), 1), ((2, 4), -1)]
)
@pytest.mark.parametrize("inv", [False, True])
def test_permutate(shape, axis, inv, float_dtype, device):
    n = shape[axis]
    ind = np.random.default_rng(1).permutation(n).astype(np.int32)

    def ref(x, i):
        return np.take(x, np.argsort(i) if inv else i, axis=axis)

    check_op(
        lambda x, i: F.permutate(x, i, axis, inv),
        ref,
        [shape, ind],
        dtype=float_dtype,
        device=device,
    )


def test_permutate_inverse_roundtrip():
    x = np.arange(5, dtype=np.float32)
    ind = np.array([3, 0, 4, 1, 2], np.int32)
    y = F.permutate(F.permutate(x, ind), ind, inv=True)
    np.testing.assert_array_equal(y.array, x)
    np.testing.assert_array_equal(F.permutate(x, ind).array, x[ind])


def test_permutate_errors():
    x = np.zeros((3, 2), np.float32)
    with pytest.raises(ValueError, match="not a permutation"):
        F.permutate(x, np.array([0, 0, 1], np.int32))
    with pytest.raises(ValueError, match="not a permutation"):
        F.permutate(x, np.array([0, 1, 3], np.int32))
    with pytest.raises(type_check.InvalidType, match="Permutate"):
        F.permutate(x, np.array([0, 1], np.int32))
    with pytest.raises(type_check.InvalidType):
        F.permutate(x, np.array([0.0, 1.0, 2.0], np.float32))
    with pytest.raises(type_check.InvalidType):
        F.permutate(x, np.array([0, 1], np.int32), axis=2)
