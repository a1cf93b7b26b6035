import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize(
    "shape,width",
    [
        ((3, 4), 1),
        ((3, 4), (1, 2)),
        ((2, 3, 4), ((0, 1), (2, 0), (1, 1))),
        ((3,), 0),
        # A 0-d array has no axis to pad; NumPy gives it back unchanged.
        ((), 1),
    ],
)
@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap"])
def test_pad(shape, width, mode, float_dtype, device):
    check_op(
        lambda x: F.pad(x, width, mode),
        lambda x: np.pad(x, width, mode=mode),
        [shape],
        dtype=float_dtype,
        device=device,
    )


def test_pad_constant_values(float_dtype, device):
    check_op(
        lambda x: F.pad(x, ((1, 0), (0, 2)), "constant", constant_values=(3, -2)),
        lambda x: np.pad(x, ((1, 0), (0, 2)), constant_values=(3, -2)),
        [(2, 3)],
        dtype=float_dtype,
        device=device,
    )


def test_pad_wide_reflect_repeats_elements(float_dtype):
    # Pads wider than the input reuse elements several times; their
    # gradients add up.
    check_op(
        lambda x: F.pad(x, 5, "reflect"),
        lambda x: np.pad(x, 5, mode="reflect"),
        [(3,)],
        dtype=float_dtype,
    )


def test_pad_errors():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match="not supported"):
        F.pad(x, 1, "mean")
    with pytest.raises(TypeError, match="unexpected keyword"):
        F.pad(x, 1, "edge", constant_values=1)
    with pytest.raises(ValueError, match="non-negative"):
        F.pad(x, -1, "constant")
    with pytest.raises(type_check.InvalidType, match="Pad"):
        F.pad(x, ((1, 1), (1, 1), (1, 1)), "constant")
    with pytest.raises(type_check.InvalidType, match="dtype.kind"):
        F.pad(np.zeros(3, np.int32), 1, "constant")
