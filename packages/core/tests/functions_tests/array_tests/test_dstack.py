import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize(
    "shapes",
    [
        [(3,), (3,)],
        [(2, 3), (2, 3)],
        [(2, 3, 4), (2, 3, 1)],
        [(), ()],
        [(2, 3, 1, 2), (2, 3, 2, 2)],
    ],
)
def test_dstack(shapes, float_dtype, device):
    check_op(
        lambda *xs: F.dstack(xs),
        lambda *xs: np.dstack(xs),
        shapes,
        dtype=float_dtype,
        device=device,
    )


def test_dstack_errors():
    with pytest.raises(type_check.InvalidType, match="Concat"):
        F.dstack([np.zeros((2, 3), np.float32), np.zeros((2, 2), np.float32)])
    with pytest.raises(type_check.InvalidType, match="Dstack"):
        F.dstack([])


@pytest.mark.parametrize(
    "fn,shapes",
    [
        (F.dstack, [(), (1,)]),
        (F.dstack, [(1,), (1, 1)]),
        (F.hstack, [(), (1,)]),
        (F.vstack, [(1,), (1, 1)]),
    ],
)
def test_stacking_refuses_mixed_ndim_even_when_lifting_agrees(fn, shapes):
    # NumPy lifts () and (1,) to the same rank and would stack them; v7
    # compares the inputs' own ndim first and refuses.
    xs = [np.zeros(s, np.float32) for s in shapes]
    with pytest.raises(type_check.InvalidType, match="same ndim"):
        fn(xs)
