import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _src(o, n_in, n_out, mode, align):
    if mode == "nearest":
        return min(int(np.floor(o * n_in / n_out)), n_in - 1), 0.0
    if align:
        pos = o * (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    else:
        pos = max((o + 0.5) * n_in / n_out - 0.5, 0.0)
    i = int(np.floor(pos))
    return i, pos - i


def _ref(out_hw, mode, align):
    def ref(x):
        n, c, h, w = x.shape
        y = np.zeros((n, c) + out_hw)
        for a in range(out_hw[0]):
            i, fy = _src(a, h, out_hw[0], mode, align)
            i1 = min(i + 1, h - 1)
            for b in range(out_hw[1]):
                j, fx = _src(b, w, out_hw[1], mode, align)
                j1 = min(j + 1, w - 1)
                y[:, :, a, b] = (
                    (1 - fy) * (1 - fx) * x[:, :, i, j]
                    + (1 - fy) * fx * x[:, :, i, j1]
                    + fy * (1 - fx) * x[:, :, i1, j]
                    + fy * fx * x[:, :, i1, j1]
                )
        return y

    return ref


@pytest.mark.parametrize(
    "shape,out",
    [((2, 2, 3, 4), (5, 7)), ((1, 1, 4, 4), (2, 3)), ((1, 2, 1, 3), (1, 1))],
)
@pytest.mark.parametrize(
    "mode,align", [("bilinear", True), ("bilinear", False), ("nearest", True)]
)
def test_resize_images(shape, out, mode, align, float_dtype, device):
    check_op(
        lambda x: F.resize_images(x, out, mode, align),
        _ref(out, mode, align),
        [shape],
        dtype=float_dtype,
        device=device,
    )


def test_resize_images_identity():
    x = np.random.default_rng(0).random((1, 2, 3, 4)).astype(np.float32)
    np.testing.assert_allclose(F.resize_images(x, (3, 4)).array, x, rtol=1e-6)


def test_resize_images_errors():
    with pytest.raises(type_check.InvalidType, match="ResizeImages"):
        F.resize_images(np.zeros((2, 3, 4), np.float32), (2, 2))
    with pytest.raises(ValueError, match="mode"):
        F.resize_images(np.zeros((1, 1, 2, 2), np.float32), (2, 2), mode="cubic")
    with pytest.raises(ValueError, match="output_shape"):
        F.resize_images(np.zeros((1, 1, 2, 2), np.float32), (2,))
