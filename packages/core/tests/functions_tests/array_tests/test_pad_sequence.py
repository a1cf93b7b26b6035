import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _ref(length, padding):
    def ref(*xs):
        n = max(len(x) for x in xs) if length is None else length
        y = np.full((len(xs), n) + xs[0].shape[1:], padding, dtype=np.float64)
        for i, x in enumerate(xs):
            y[i, : len(x)] = x
        return y

    return ref


@pytest.mark.parametrize(
    "shapes", [[(3,), (1,), (2,)], [(2, 3), (4, 3)], [(0, 2), (1, 2)]]
)
@pytest.mark.parametrize("length,padding", [(None, 0), (5, -1.5)])
def test_pad_sequence(shapes, length, padding, float_dtype, device):
    check_op(
        lambda *xs: F.pad_sequence(xs, length, padding),
        _ref(length, padding),
        shapes,
        dtype=float_dtype,
        device=device,
    )


def test_pad_sequence_errors():
    with pytest.raises(type_check.InvalidType, match="PadSequence"):
        F.pad_sequence([np.zeros(3, np.float32)], length=2)
    with pytest.raises(type_check.InvalidType):
        F.pad_sequence([np.zeros((3, 2), np.float32), np.zeros((3, 1), np.float32)])
    with pytest.raises(type_check.InvalidType):
        F.pad_sequence([np.zeros(3, np.float32), np.zeros(3, np.float64)])


@pytest.mark.parametrize(
    "dtype, padding", [(np.uint8, -1), (np.int32, float("inf")), (np.int8, 300)]
)
def test_pad_sequence_padding_must_fit_the_dtype(dtype, padding):
    xs = [np.zeros(2, dtype), np.zeros(1, dtype)]
    with pytest.raises((OverflowError, ValueError), match="pad_sequence.*padding"):
        F.pad_sequence(xs, padding=padding)


def test_pad_sequence_padding_that_fits_integer_dtypes():
    xs = [np.zeros(2, np.uint8), np.zeros(1, np.uint8)]
    y = F.pad_sequence(xs, padding=255)
    assert y.dtype == np.uint8 and y.array[1, 1] == 255
