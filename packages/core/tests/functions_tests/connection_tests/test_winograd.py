"""The Winograd kernels of 3x3 stride-1 convolutions (``_winograd``): the
transforms, the three passes against loop references over odd sizes and
paddings, agreement with the im2col path through ``convolution_2d`` and
``deconvolution_2d`` in every dtype, float64 gradient checks, chunking,
threading and the dispatch rule."""

from __future__ import annotations

import numpy as np
import pytest
from test_conv_layouts import _grads
from test_convolution_nd import conv_ref

import kusari.functions as F
from kusari.functions.connection import _conv_core, _winograd
from kusari.testing import check_op
from kusari.utils import threads


@pytest.fixture(params=[2, 4], ids=["F2", "F4"])
def tile(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(_winograd, "TILE", request.param)
    return request.param


@pytest.fixture
def forced(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Force the Winograd path and record which kernels ran."""
    monkeypatch.setattr(_winograd, "_FORCE", "winograd")
    ran: list[str] = []
    for name in ("conv_forward", "deconv_forward", "conv_grad_weight"):
        real = getattr(_winograd, name)
        monkeypatch.setattr(
            _winograd,
            name,
            lambda *a, _n=name, _r=real: ran.append(_n) or _r(*a),
        )
    return ran


def _pad(x, p):
    return np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))


def grad_input_ref(gy, W, p, insz):
    """Input gradient of a 3x3 stride-1 convolution with padding ``p``."""
    N, _, h, w = gy.shape
    gxp = np.zeros((N, W.shape[1], insz[0] + 2 * p, insz[1] + 2 * p))
    for k in range(3):
        for l in range(3):
            gxp[:, :, k : k + h, l : l + w] += np.einsum(
                "noij,oc->ncij", gy, W[:, :, k, l]
            )
    return gxp[:, :, p : p + insz[0], p : p + insz[1]]


def grad_weight_ref(x, gy, p):
    xp = _pad(x, p)
    h, w = gy.shape[2:]
    gW = np.empty((gy.shape[1], x.shape[1], 3, 3))
    for k in range(3):
        for l in range(3):
            gW[:, :, k, l] = np.einsum(
                "noij,ncij->oc", gy, xp[:, :, k : k + h, l : l + w]
            )
    return gW


@pytest.mark.parametrize("m", [2, 4])
def test_one_dimensional_transform_is_correlation(m):
    # y = A^T [(G g) * (B^T d)] must be the valid correlation of d with g.
    bt, g, at = _winograd._transforms(m)
    assert (
        bt.shape == (m + 2, m + 2) and g.shape == (m + 2, 3) and at.shape == (m, m + 2)
    )
    rng = np.random.default_rng(m)
    for _ in range(5):
        d, k = rng.standard_normal(m + 2), rng.standard_normal(3)
        ref = np.array([d[i : i + 3] @ k for i in range(m)])
        np.testing.assert_allclose(at @ ((g @ k) * (bt @ d)), ref, atol=1e-12)


def test_transforms_reject_other_tiles():
    with pytest.raises(ValueError, match=r"_winograd\._transforms.*2 or 4.*got 3"):
        _winograd._transforms(3)


# (N, C, O, H, W, pad): H and W not multiples of the tile, 1 channel, batch 1,
# pads 0..3 (3: the input gradient crops gy instead of padding it).
SHAPES = [
    (1, 1, 1, 5, 5, 0),
    (2, 3, 5, 7, 9, 1),
    (1, 2, 3, 6, 11, 2),
    (3, 4, 2, 10, 6, 1),
    (2, 3, 4, 4, 3, 3),
    (1, 5, 1, 3, 3, 0),
]


@pytest.mark.parametrize("shape", SHAPES, ids=[str(s) for s in SHAPES])
def test_kernels_match_references(shape, tile):
    N, C, O, H, W_, p = shape
    rng = np.random.default_rng(sum(shape))
    x = rng.standard_normal((N, C, H, W_))
    W = rng.standard_normal((O, C, 3, 3))
    y = _winograd.conv_forward(x, W, (p, p), np.float64)
    np.testing.assert_allclose(y, conv_ref(x, W, pad=p), atol=1e-11)
    gy = rng.standard_normal(y.shape)
    gx = _winograd.deconv_forward(gy, W, (p, p), (H, W_), np.float64)
    np.testing.assert_allclose(gx, grad_input_ref(gy, W, p, (H, W_)), atol=1e-11)
    gW = _winograd.conv_grad_weight(x, gy, (p, p), np.float64)
    np.testing.assert_allclose(gW, grad_weight_ref(x, gy, p), atol=1e-10)
    assert y.dtype == gx.dtype == gW.dtype == np.float64


@pytest.mark.parametrize(
    "xs,ws,pad",
    [
        ((2, 3, 7, 5), (4, 3, 3, 3), 1),
        ((1, 1, 6, 6), (2, 1, 3, 3), 0),
        ((2, 2, 5, 6), (1, 2, 3, 3), 2),
    ],
)
def test_convolution_2d_gradients(xs, ws, pad, tile, forced):
    check_op(
        lambda x, W, b: F.convolution_2d(x, W, b, pad=pad),
        lambda x, W, b: conv_ref(x, W, b, pad=pad),
        [xs, ws, (ws[0],)],
        dtype=np.float64,
    )
    assert {"conv_forward", "deconv_forward", "conv_grad_weight"} <= set(forced)


def test_deconvolution_2d_gradients(tile, forced):
    # A stride-1 transposed convolution is a Winograd convolution itself.
    check_op(
        lambda x, W: F.deconvolution_2d(x, W, pad=1),
        None,
        [(2, 3, 5, 4), (3, 2, 3, 3)],
        dtype=np.float64,
    )
    assert "deconv_forward" in forced and "conv_forward" in forced


TOL = {np.float16: 2e-2, np.float32: 1e-4, np.float64: 1e-10}


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize(
    "fn,xs,ws",
    [
        (
            lambda x, W, b: F.convolution_2d(x, W, b, pad=1),
            (3, 20, 13, 9),
            (24, 20, 3, 3),
        ),
        (lambda x, W, b: F.convolution_2d(x, W, b), (2, 8, 16, 16), (5, 8, 3, 3)),
        (
            lambda x, W, b: F.deconvolution_2d(x, W, b, pad=1),
            (2, 6, 11, 9),
            (6, 4, 3, 3),
        ),
    ],
    ids=["conv_pad1", "conv_pad0", "deconv"],
)
def test_agrees_with_im2col(fn, xs, ws, dtype, tile, monkeypatch):
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal(s).astype(dtype) for s in (xs, ws)]
    y0 = fn(*arrays, None)
    # The bias, one per output channel.
    arrays.append(rng.standard_normal(y0.shape[1]).astype(dtype))
    monkeypatch.setattr(_winograd, "_FORCE", "direct")
    direct = _grads(fn, arrays)
    monkeypatch.setattr(_winograd, "_FORCE", "winograd")
    results = [_grads(fn, arrays)]
    # Chunks of one sample and channel blocks of one channel.
    monkeypatch.setattr(_winograd, "_CHUNK_BYTES", 1)
    monkeypatch.setattr(_winograd, "_BLOCK_ELEMS", 1)
    results.append(_grads(fn, arrays))
    tol = TOL[dtype]
    for res in results:
        for a, b in zip(direct, res):
            assert a.dtype == b.dtype == dtype and a.shape == b.shape
            a64, b64 = a.astype(np.float64), b.astype(np.float64)
            scale = max(1.0, float(np.abs(a64).max()))
            np.testing.assert_allclose(b64, a64, rtol=tol, atol=tol * scale)


@pytest.mark.parametrize("blas_control", [True, False], ids=["tpctl", "no_tpctl"])
def test_threads_match_one_thread(tile, forced, blas_control, monkeypatch):
    if not blas_control:
        # Without control of BLAS threads the stages stay on the calling thread.
        monkeypatch.setattr(threads, "blas_controller", lambda: None)
    rng = np.random.default_rng(4)
    arrays = [
        rng.standard_normal((3, 6, 10, 9)).astype(np.float32),
        rng.standard_normal((5, 6, 3, 3)).astype(np.float32),
    ]

    def fn(x, W):
        return F.convolution_2d(x, W, pad=1)

    monkeypatch.setattr(threads, "_num_threads", 1)
    one = _grads(fn, arrays)
    monkeypatch.setattr(threads, "_num_threads", 3)
    monkeypatch.setattr(threads, "MIN_BYTES_PER_THREAD", 1)
    monkeypatch.setattr(_winograd, "_BLOCK_ELEMS", 1)
    calls = []
    real = threads.run_split
    monkeypatch.setattr(
        threads, "run_split", lambda f, n, nb: calls.append(n) or real(f, n, nb)
    )
    many = _grads(fn, arrays)
    if blas_control:
        assert (tile + 2) ** 2 in calls, "the position GEMMs were not split"
    else:
        # Copies still split; the a*a position GEMMs do not.
        assert (tile + 2) ** 2 not in calls
    for a, b in zip(one, many):
        np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-6)


def _fits(xs, ws, stride=1, pad=1, dilate=1, groups=1, out=None):
    k = tuple(ws[2:])
    if out is None:
        out = tuple(
            (n + 2 * pad - dilate * (kk - 1) - 1) // stride + 1
            for n, kk in zip(xs[2:], k)
        )
    return _conv_core._winograd_fits(
        xs, k, (stride,) * 2, (pad,) * 2, (dilate,) * 2, groups, ws[0], out
    )


def test_dispatch_rule(monkeypatch):
    monkeypatch.setattr(_winograd, "_FORCE", None)
    # ResNet-50's and VGG's 3x3 layers at batch 16.
    for c, hw in [(64, 56), (128, 28), (256, 14), (64, 112)]:
        assert _fits((16, c, hw, hw), (c, c, 3, 3))
    # Other kernels, strides, dilations, groups, a cover-all size: never.
    assert not _fits((16, 64, 56, 56), (64, 64, 3, 3), stride=2)
    assert not _fits((16, 64, 56, 56), (64, 64, 3, 3), dilate=2, pad=2)
    assert not _fits((16, 64, 56, 56), (64, 32, 3, 3), groups=2)
    assert not _fits((16, 64, 56, 56), (64, 64, 5, 5), pad=2)
    assert not _fits((16, 64, 56, 56), (64, 64, 1, 3), pad=0)
    assert not _fits((16, 64, 56, 56), (64, 64, 3, 3), out=(57, 57))
    assert not _fits((16, 64, 56, 56, 2), (64, 64, 3, 3, 3), out=(56, 56, 2))
    # Where it measured slower: few channels, small planes, tiny batches.
    assert not _fits((16, 3, 224, 224), (64, 3, 3, 3))
    assert not _fits((16, 64, 56, 56), (8, 64, 3, 3))
    assert not _fits((16, 512, 7, 7), (512, 512, 3, 3))
    assert not _fits((1, 256, 14, 14), (256, 256, 3, 3))
    assert not _fits((16, 64, 14, 14), (64, 64, 3, 3))
    assert _fits((8, 256, 14, 14), (256, 256, 3, 3))
    assert _fits((2, 16, 28, 28), (16, 16, 3, 3))
    assert not _fits((16, 64, 8, 8), (64, 64, 3, 3))


def test_large_layer_takes_winograd_unforced(monkeypatch):
    monkeypatch.setattr(_winograd, "_FORCE", None)
    ran = []
    real = _winograd.conv_forward
    monkeypatch.setattr(_winograd, "conv_forward", lambda *a: ran.append(1) or real(*a))
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 16, 32, 32)).astype(np.float32)
    W = rng.standard_normal((16, 16, 3, 3)).astype(np.float32)
    y = F.convolution_2d(x, W, pad=1).array
    assert ran
    monkeypatch.setattr(_winograd, "_FORCE", "direct")
    np.testing.assert_allclose(
        y, F.convolution_2d(x, W, pad=1).array, rtol=1e-4, atol=1e-4
    )
