"""The two column layouts of ``_conv_core`` (sample-major and batch-innermost,
``_conv_batch_inner``)
agree with each other and with loop references, for convolutions and
transposed convolutions of every dimensionality, stride, pad, dilation and
group count, chunked or not."""

from __future__ import annotations

import numpy as np
import pytest
from test_convolution_nd import conv_ref

import kusari
import kusari.functions as F
from kusari.functions.connection import _conv_batch_inner, _conv_common
from kusari.testing import check_op

LAYOUTS = ["sample", "batch"]


@pytest.fixture(params=LAYOUTS)
def layout(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(_conv_batch_inner, "_FORCE_LAYOUT", request.param)
    return request.param


def _grads(fn, arrays, seed=5):
    vs = [kusari.Variable(a) for a in arrays]
    y = fn(*vs)
    gy = np.random.default_rng(seed).standard_normal(y.shape).astype(y.dtype)
    gs = kusari.grad([y], vs, [kusari.Variable(gy)])
    return [y.array] + [g.array for g in gs]


# (name, function of (x, W, b), x shape, W shape, bias length)
CASES = [
    (
        "conv2d",
        lambda x, W, b: F.convolution_2d(x, W, b),
        (5, 3, 7, 6),
        (4, 3, 3, 2),
        4,
    ),
    (
        "conv2d_stride_pad",
        lambda x, W, b: F.convolution_2d(x, W, b, stride=2, pad=1),
        (5, 3, 9, 8),
        (4, 3, 3, 3),
        4,
    ),
    (
        "conv2d_groups_dilate_cover_all",
        lambda x, W, b: F.convolution_2d(
            x, W, b, stride=(2, 1), pad=(0, 2), dilate=2, groups=2, cover_all=True
        ),
        (6, 4, 9, 8),
        (6, 2, 2, 3),
        6,
    ),
    (
        "conv2d_1x1",
        lambda x, W, b: F.convolution_2d(x, W, b),
        (5, 4, 3, 3),
        (6, 4, 1, 1),
        6,
    ),
    (
        "conv1d",
        lambda x, W, b: F.convolution_1d(x, W, b, stride=2, pad=1),
        (5, 3, 11),
        (4, 3, 3),
        4,
    ),
    (
        "conv3d",
        lambda x, W, b: F.convolution_3d(
            x, W, b, stride=(1, 2, 1), pad=1, dilate=(1, 1, 2)
        ),
        (4, 2, 5, 4, 6),
        (2, 2, 2, 2, 2),
        2,
    ),
    (
        "deconv2d",
        lambda x, W, b: F.deconvolution_2d(x, W, b, stride=2, pad=1),
        (5, 3, 5, 4),
        (3, 4, 3, 3),
        4,
    ),
    (
        "deconv2d_groups_outsize",
        lambda x, W, b: F.deconvolution_2d(
            x, W, b, stride=(2, 3), pad=(1, 0), groups=3, outsize=(10, 12)
        ),
        (5, 6, 5, 4),
        (6, 2, 3, 3),
        6,
    ),
    (
        "deconv2d_1x1",
        lambda x, W, b: F.deconvolution_2d(x, W, b),
        (5, 4, 3, 3),
        (4, 6, 1, 1),
        6,
    ),
    (
        "deconv1d",
        lambda x, W, b: F.deconvolution_1d(x, W, b, stride=3, pad=1),
        (5, 3, 6),
        (3, 4, 4),
        4,
    ),
    (
        "deconv3d",
        lambda x, W, b: F.deconvolution_3d(x, W, b, stride=2, dilate=(1, 2, 1)),
        (4, 2, 3, 3, 2),
        (2, 3, 2, 2, 2),
        3,
    ),
    # Sample stride 512 bytes (float32): the transpose into the
    # batch-innermost layout goes through the padded staging buffer.
    (
        "conv2d_aligned",
        lambda x, W, b: F.convolution_2d(x, W, b, pad=1),
        (6, 2, 8, 8),
        (3, 2, 3, 3),
        3,
    ),
]

TOL = {np.float64: 1e-10, np.float32: 1e-4, np.float16: 2e-2}


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_layouts_agree(case, dtype, monkeypatch):
    _, fn, xs, ws, nb = case
    rng = np.random.default_rng(0)
    args = (
        rng.standard_normal(xs).astype(dtype),
        rng.standard_normal(ws).astype(dtype),
        rng.standard_normal((nb,)).astype(dtype),
    )
    results = {}
    for layout in LAYOUTS:
        for chunk in (64 << 20, 1):
            monkeypatch.setattr(_conv_batch_inner, "_FORCE_LAYOUT", layout)
            monkeypatch.setattr(_conv_common, "_CHUNK_BYTES", chunk)
            results[layout, chunk] = _grads(fn, args)
    ref = results["sample", 64 << 20]
    tol = TOL[dtype]
    for key, res in results.items():
        for a, b in zip(ref, res):
            assert a.dtype == b.dtype == dtype and a.shape == b.shape, key
            a64, b64 = a.astype(np.float64), b.astype(np.float64)
            scale = max(1.0, float(np.abs(a64).max()))
            np.testing.assert_allclose(
                b64, a64, rtol=tol, atol=tol * scale, err_msg=str(key)
            )


@pytest.mark.parametrize(
    "xs,ws,kw",
    [
        ((4, 3, 6, 5), (4, 3, 3, 2), {"stride": 2, "pad": 1}),
        ((4, 4, 6, 6), (4, 2, 2, 2), {"dilate": 2, "groups": 2}),
        ((4, 2, 3, 3), (3, 2, 1, 1), {}),
    ],
)
def test_convolution_2d_layout(xs, ws, kw, layout):
    check_op(
        lambda x, W, b: F.convolution_2d(x, W, b, **kw),
        lambda x, W, b: conv_ref(x, W, b, **kw),
        [xs, ws, (ws[0],)],
        dtype=np.float64,
    )


def test_deconvolution_2d_layout(layout):
    check_op(
        lambda x, W: F.deconvolution_2d(x, W, stride=2, pad=1),
        None,
        [(4, 3, 3, 4), (3, 2, 3, 3)],
        dtype=np.float64,
    )


def test_batch_inner_matches_reference_lenet_like(monkeypatch):
    # A LeNet-like second layer with a batch large enough for the staged and
    # blocked transposes (N * 8 bytes = 512 for float64).
    monkeypatch.setattr(_conv_batch_inner, "_FORCE_LAYOUT", "batch")
    monkeypatch.setattr(_conv_common, "_COPY_BLOCK", 64)
    rng = np.random.default_rng(7)
    x = rng.standard_normal((64, 3, 8, 8))
    W = rng.standard_normal((4, 3, 5, 5))
    b = rng.standard_normal(4)
    ys, gx, gW = _grads(lambda x, W: F.convolution_2d(x, W, b), (x, W))
    np.testing.assert_allclose(ys, conv_ref(x, W, b), atol=1e-10)
    monkeypatch.setattr(_conv_batch_inner, "_FORCE_LAYOUT", "sample")
    ys2, gx2, gW2 = _grads(lambda x, W: F.convolution_2d(x, W, b), (x, W))
    np.testing.assert_allclose(gx, gx2, atol=1e-10)
    np.testing.assert_allclose(gW, gW2, atol=1e-10)


def test_batch_inner_noncontiguous_input(monkeypatch):
    monkeypatch.setattr(_conv_batch_inner, "_FORCE_LAYOUT", "batch")
    rng = np.random.default_rng(8)
    x = rng.standard_normal((6, 5, 7, 3)).transpose(0, 3, 2, 1)  # (6, 3, 7, 5)
    W = rng.standard_normal((2, 3, 3, 3))
    y = F.convolution_2d(x, W, pad=1).array
    np.testing.assert_allclose(y, conv_ref(x, W, pad=1), atol=1e-10)


def test_layout_choice():
    # LeNet's layers (batch 100) take the batch-innermost layout; a large
    # map with long rows and a batch too small to pay keep the sample-major one.
    bi = _conv_batch_inner._conv_layout_is_bi
    assert bi(np, (100, 6, 12, 12), (5, 5), (1, 1), (0, 0), (8, 8), 16)
    assert bi(np, (100, 1, 28, 28), (5, 5), (1, 1), (0, 0), (24, 24), 6)
    assert not bi(np, (32, 3, 128, 128), (11, 11), (1, 1), (0, 0), (118, 118), 96)
    assert not bi(np, (64, 64, 8, 8), (1, 1), (1, 1), (0, 0), (8, 8), 128)
    assert not bi(np, (2, 6, 12, 12), (5, 5), (1, 1), (0, 0), (8, 8), 16)
