"""Convolutions whose samples have few columns, in blocks of samples
(``_conv_sm_blocks``): which layers take the path, the block cut, values
against a float64 loop reference for every dimensionality, pad, dilation,
group count, cover-all and dtype, numerical gradients, and the same bits at
any thread count."""

from __future__ import annotations

import numpy as np
import pytest
from test_conv_layouts import _grads
from test_convolution_nd import conv_ref

import kusari.functions as F
from kusari.functions.connection import _conv_core, _conv_sm_blocks
from kusari.testing import check_op
from kusari.utils import threads

# (name, keywords of the convolution, x shape, W shape)
CASES = [
    ("lenet1", {}, (5, 1, 12, 12), (4, 1, 5, 5)),
    ("pad_dilate", {"pad": (2, 1), "dilate": (1, 2)}, (4, 3, 9, 10), (5, 3, 3, 3)),
    ("groups", {"pad": 1, "groups": 2}, (3, 4, 8, 7), (6, 2, 3, 3)),
    ("cover_all", {"stride": (1, 2), "cover_all": True}, (3, 2, 9, 10), (3, 2, 2, 3)),
]


@pytest.fixture
def taken(monkeypatch):
    """Every case below takes the path (planes of any size), blocks of one
    or two samples; the list collects the kernels that ran."""
    monkeypatch.setattr(_conv_sm_blocks, "_MIN_L", 1)
    monkeypatch.setattr(_conv_sm_blocks, "_BLOCK_BYTES", 1)
    monkeypatch.setattr(_conv_sm_blocks, "_MIN_BLOCKS", 2)
    calls = []
    for name in ("conv_forward", "conv_grad_weight"):
        real = getattr(_conv_sm_blocks, name)

        def spy(*a, _r=real, _n=name):
            calls.append(_n)
            return _r(*a)

        monkeypatch.setattr(_conv_sm_blocks, name, spy)
    return calls


def _fn(kw, nd=2):
    conv = {1: F.convolution_1d, 2: F.convolution_2d, 3: F.convolution_3d}[nd]
    return lambda x, W, b: conv(x, W, b, **kw)


def _ref(kw):
    return lambda x, W, b: conv_ref(x, W, b, **kw)


def _arrays(xs, ws, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return [
        rng.standard_normal(xs).astype(dtype),
        rng.standard_normal(ws).astype(dtype),
        rng.standard_normal(ws[0]).astype(dtype),
    ]


def test_which_layers_take_the_path():
    f32 = np.dtype(np.float32)
    ok = _conv_sm_blocks.applicable
    # LeNet's first layer (25 x 576 columns a sample, 57.6 kB).
    assert ok(np, (100, 1, 28, 28), (5, 5), (1, 1), (0, 0), (24, 24), f32)
    # One sample: nothing to block.
    assert not ok(np, (1, 1, 28, 28), (5, 5), (1, 1), (0, 0), (24, 24), f32)
    # LeNet's second layer: 8x8 planes are too thin a GEMM per sample.
    assert not ok(np, (100, 20, 12, 12), (5, 5), (1, 1), (0, 0), (8, 8), f32)
    # 1x1 without padding: the columns are the input itself.
    assert not ok(np, (8, 3, 20, 20), (1, 1), (1, 1), (0, 0), (20, 20), f32)
    # A large sample's columns (AlexNet's conv1: 4.4 MB) keep the fused path.
    assert not ok(np, (64, 3, 224, 224), (11, 11), (4, 4), (2, 2), (55, 55), f32)
    assert not ok(object(), (100, 1, 28, 28), (5, 5), (1, 1), (0, 0), (24, 24), f32)


def test_blocks_cover_the_batch_and_depend_on_shapes_only(monkeypatch):
    monkeypatch.setattr(threads, "_num_threads", 1)
    one = _conv_sm_blocks.blocks(100, 57_600)
    monkeypatch.setattr(threads, "_num_threads", 5)
    assert _conv_sm_blocks.blocks(100, 57_600) == one
    assert one[0][0] == 0 and one[-1][1] == 100
    assert all(a[1] == b[0] for a, b in zip(one, one[1:]))
    sizes = [e - a for a, e in one]
    assert max(sizes) - min(sizes) <= 1
    # 5.76 MB of columns in blocks of about 1 MiB.
    assert len(one) == 6
    assert len(_conv_sm_blocks.blocks(8, 100)) == _conv_sm_blocks._MIN_BLOCKS
    assert _conv_sm_blocks.blocks(3, 100) == [(0, 1), (1, 2), (2, 3)]
    assert len(_conv_sm_blocks.blocks(10**5, 1 << 20)) == _conv_sm_blocks._MAX_BLOCKS


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_matches_float64_reference(case, dtype, taken, monkeypatch):
    _, kw, xs, ws = case
    x, W, b = _arrays(xs, ws, dtype)
    y, gx, gW, gb = _grads(_fn(kw), [x, W, b])
    assert taken.count("conv_forward") == 1
    assert taken.count("conv_grad_weight") == 1
    assert y.dtype == gW.dtype == dtype
    want = conv_ref(x.astype(np.float64), W.astype(np.float64), b, **kw)
    tol = {np.float16: 2e-2, np.float32: 1e-4, np.float64: 1e-10}[dtype]
    scale = float(np.abs(want).max())
    np.testing.assert_allclose(y.astype(np.float64), want, rtol=tol, atol=tol * scale)
    # The weight gradient against the older paths', in float64 to the last bits.
    monkeypatch.setattr(_conv_sm_blocks, "ENABLED", False)
    old = _grads(_fn(kw), [x, W, b])
    scale = float(np.abs(old[2].astype(np.float64)).max())
    np.testing.assert_allclose(
        gW.astype(np.float64), old[2].astype(np.float64), rtol=tol, atol=tol * scale
    )
    np.testing.assert_array_equal(gx, old[1])  # not this path's pass


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_numerical_gradients(case, taken):
    _, kw, xs, ws = case
    check_op(_fn(kw), _ref(kw), [xs, ws, (ws[0],)], dtype=np.float64)
    assert "conv_forward" in taken and "conv_grad_weight" in taken


@pytest.mark.parametrize(
    "nd,kw,xs,ws",
    [
        (1, {"pad": 1, "dilate": 2}, (4, 3, 17), (2, 3, 3)),
        (3, {"pad": (1, 0, 1)}, (3, 2, 5, 4, 6), (3, 2, 2, 2, 3)),
    ],
    ids=["1d", "3d"],
)
def test_other_dimensionalities(nd, kw, xs, ws, taken):
    check_op(_fn(kw, nd), _ref(kw), [xs, ws, (ws[0],)], dtype=np.float64)
    assert "conv_forward" in taken and "conv_grad_weight" in taken


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_same_bits_at_any_thread_count(case, taken, monkeypatch):
    _, kw, xs, ws = case
    arrays = _arrays(xs, ws, np.float32, seed=1)
    monkeypatch.setattr(threads, "_num_threads", 1)
    one = _grads(_fn(kw), arrays)
    monkeypatch.setattr(threads, "MIN_BYTES_PER_THREAD", 1)
    split = []
    real = threads.run_split
    monkeypatch.setattr(
        threads, "run_split", lambda fn, n, nb: split.append(n) or real(fn, n, nb)
    )
    for n in (2, 3):
        monkeypatch.setattr(threads, "_num_threads", n)
        many = _grads(_fn(kw), arrays)
        for a, b in zip(one, many):
            np.testing.assert_array_equal(a, b)
    assert split, "the blocks were not split over the threads"


def test_noncontiguous_input_read_in_place(taken):
    # No pad and no cast: the windows are read from x itself, strides and all.
    rng = np.random.default_rng(2)
    big = rng.standard_normal((4, 6, 14, 20)).astype(np.float32)
    x = big[:, ::2, 1:, ::2]
    W = rng.standard_normal((5, 3, 3, 3)).astype(np.float32)
    y = _conv_core.conv_forward(x, W, None, (1, 1), (0, 0), (1, 1), 1, (11, 8))
    want = conv_ref(x.astype(np.float64), W.astype(np.float64))
    np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-4)
    assert taken == ["conv_forward"]


def test_lenet_first_layer_at_full_size():
    # The real layer, default knobs: 100 samples in six blocks.
    rng = np.random.default_rng(3)
    x = rng.standard_normal((100, 1, 28, 28)).astype(np.float32)
    W = rng.standard_normal((20, 1, 5, 5)).astype(np.float32)
    b = rng.standard_normal(20).astype(np.float32)
    gy = rng.standard_normal((100, 20, 24, 24)).astype(np.float32)
    args = ((1, 1), (0, 0), (1, 1), 1)
    y = _conv_core.conv_forward(x, W, b, *args, (24, 24))
    x64 = x.astype(np.float64)
    want = np.zeros((100, 20, 24, 24))
    gW_want = np.zeros((20, 1, 5, 5))
    for i in range(5):
        for j in range(5):
            win = x64[:, 0, i : i + 24, j : j + 24]
            want += win[:, None] * W[None, :, 0, i, j, None, None]
            gW_want[:, 0, i, j] = np.einsum("nohw,nhw->o", gy, win)
    np.testing.assert_allclose(y, want + b[None, :, None, None], rtol=1e-4, atol=1e-4)
    gW = _conv_core.conv_grad_weight(x, gy, W.shape, *args)
    np.testing.assert_allclose(gW, gW_want, rtol=1e-4, atol=1e-3)
