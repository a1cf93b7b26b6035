import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _ref(a, p, n, margin, reduce):
    loss = np.maximum(((a - p) ** 2).sum(1) - ((a - n) ** 2).sum(1) + margin, 0)
    return np.asarray(loss.mean()) if reduce == "mean" else loss


@pytest.mark.parametrize("reduce", ["mean", "no"])
@pytest.mark.parametrize("margin", [0.2, 1.0])
def test_triplet(margin, reduce, float_dtype, device):
    def anchor(rng, dtype):
        return rng.uniform(-1, 1, (4, 3)).astype(dtype)

    def positive(rng, dtype):
        return rng.uniform(-0.1, 0.1, (4, 3)).astype(dtype)

    def negative(rng, dtype):
        # rows 0, 1 far from the anchor (inactive), rows 2, 3 close (active)
        off = np.array([[3.0], [-3.0], [0.0], [0.0]])
        return (rng.uniform(-0.1, 0.1, (4, 3)) + off).astype(dtype)

    def op(a, p, n):
        return F.triplet(a, a + p, a + n, margin=margin, reduce=reduce)

    def ref(a, p, n):
        return _ref(a, a + p, a + n, margin, reduce)

    check_op(op, ref, [anchor, positive, negative], dtype=float_dtype, device=device)


def test_triplet_bad_margin():
    a = np.zeros((2, 2), np.float32)
    with pytest.raises(ValueError, match="margin"):
        F.triplet(a, a, a, margin=-1)


def test_triplet_bad_reduce():
    a = np.zeros((2, 2), np.float32)
    with pytest.raises(ValueError, match="reduce"):
        F.triplet(a, a, a, reduce="sum")


def test_triplet_bad_shapes():
    a = np.zeros((2, 2), np.float32)
    with pytest.raises(type_check.InvalidType, match="Triplet"):
        F.triplet(a, a, np.zeros((3, 2), np.float32))
