import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import get_conv_outsize, type_check


def _ref(k, s, p, cover_all, d):
    kh, kw = k
    sy, sx = s
    ph, pw = p
    dy, dx = d

    def ref(x):
        n, c, h, w = x.shape
        oh = get_conv_outsize(h, kh, sy, ph, cover_all, dy)
        ow = get_conv_outsize(w, kw, sx, pw, cover_all, dx)
        y = np.zeros((n, c, kh, kw, oh, ow))
        for i in range(kh):
            for j in range(kw):
                for a in range(oh):
                    for b in range(ow):
                        yy = a * sy + i * dy - ph
                        xx = b * sx + j * dx - pw
                        if 0 <= yy < h and 0 <= xx < w:
                            y[:, :, i, j, a, b] = x[:, :, yy, xx]
        return y.reshape(n, c * kh * kw, oh, ow)

    return ref


@pytest.mark.parametrize(
    "shape,k,s,p,cover_all,d",
    [
        ((2, 3, 4, 5), (3, 3), (1, 1), (1, 1), False, (1, 1)),
        ((1, 2, 5, 6), (2, 3), (2, 1), (0, 1), False, (1, 1)),
        ((1, 2, 5, 5), (3, 2), (2, 2), (1, 0), True, (1, 1)),
        ((1, 1, 6, 5), (2, 2), (1, 2), (1, 1), False, (2, 1)),
    ],
)
def test_im2col(shape, k, s, p, cover_all, d, float_dtype, device):
    check_op(
        lambda x: F.im2col(x, k, s, p, cover_all, d),
        _ref(k, s, p, cover_all, d),
        [shape],
        dtype=float_dtype,
        device=device,
    )


def test_im2col_int_args():
    x = np.random.default_rng(0).random((1, 2, 4, 4)).astype(np.float32)
    y = F.im2col(x, 3, stride=1, pad=1)
    np.testing.assert_allclose(y.array, _ref((3, 3), (1, 1), (1, 1), False, (1, 1))(x))


def test_im2col_errors():
    with pytest.raises(type_check.InvalidType, match="Im2Col"):
        F.im2col(np.zeros((2, 4, 4), np.float32), 3)
    with pytest.raises(ValueError, match="positive"):
        F.im2col(np.zeros((1, 1, 4, 4), np.float32), 0)
    with pytest.raises(ValueError, match="empty"):
        F.im2col(np.zeros((1, 1, 2, 2), np.float32), 3)
