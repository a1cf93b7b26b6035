"""Strided convolutions whose kernel is a multiple of the stride, run as
stride-1 convolutions of the input's stride phases (``_conv_s2d``): which
layers take it, the split helpers, the forward and weight gradient against
a float64 loop reference and the strided kernels (pad, cover-all, groups,
dilation on unstrided axes, 1-d to 3-d, every float dtype), numerical
gradients, transposed convolutions left alone, and the same bits at any
thread count."""

from __future__ import annotations

import numpy as np
import pytest
from test_conv_layouts import _grads
from test_convolution_nd import conv_ref

import kusari.functions as F
from kusari.functions.connection import _conv_core, _conv_s2d, _conv_sm_blocks
from kusari.testing import check_op
from kusari.utils import threads

# (name, convolution keywords, x shape, W shape): 2-d convolutions.
CASES = [
    ("dqn1_like", {"stride": 4}, (3, 4, 20, 20), (5, 4, 8, 8)),
    ("dqn2_like", {"stride": 2}, (3, 6, 10, 10), (4, 6, 4, 4)),
    (
        "pad_cover_all",
        {"stride": 2, "pad": 1, "cover_all": True},
        (2, 3, 9, 8),
        (4, 3, 4, 2),
    ),
    (
        "one_axis_dilated",
        {"stride": (2, 1), "dilate": (1, 2)},
        (3, 2, 9, 11),
        (3, 2, 2, 3),
    ),
    ("groups", {"stride": 2, "groups": 2}, (2, 4, 9, 10), (6, 2, 4, 2)),
    ("unread_tail", {"stride": 2}, (2, 3, 11, 12), (2, 3, 4, 2)),
]


@pytest.fixture(autouse=True)
def small_planes_qualify(monkeypatch):
    # The cases' stride-1 forms take the sample blocks despite small planes.
    monkeypatch.setattr(_conv_sm_blocks, "_MIN_L", 1)


@pytest.fixture
def taken(monkeypatch):
    """The list collects the phase splits and filter merges that ran."""
    calls = []
    for name in ("split_input", "merge_filter"):
        real = getattr(_conv_s2d, name)

        def spy(*a, _r=real, _n=name):
            calls.append(_n)
            return _r(*a)

        monkeypatch.setattr(_conv_s2d, name, spy)
    return calls


def _arrays(xs, ws, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return [
        rng.standard_normal(xs).astype(dtype),
        rng.standard_normal(ws).astype(dtype),
        rng.standard_normal(ws[0]).astype(dtype),
    ]


def _fn(kw, nd=2):
    conv = {1: F.convolution_1d, 2: F.convolution_2d, 3: F.convolution_3d}[nd]
    return lambda x, W, b: conv(x, W, b, **kw)


def test_which_convolutions_take_it(monkeypatch):
    ok = _conv_s2d.applicable
    assert ok(np, (8, 8), (4, 4), (1, 1))  # the DQN's first layer
    assert ok(np, (4, 4), (2, 2), (1, 1))
    assert ok(np, (16, 16), (16, 16), (1, 1))  # a patch embedding
    assert ok(np, (4, 3), (2, 1), (1, 2))  # dilation on the unstrided axis
    assert not ok(np, (3, 3), (1, 1), (1, 1))  # stride 1: nothing to split
    assert not ok(np, (3, 3), (2, 2), (1, 1))  # ResNet's 3x3 stride 2
    assert not ok(np, (11, 11), (4, 4), (1, 1))  # AlexNet's conv1
    assert not ok(np, (4, 4), (2, 2), (2, 1))  # dilated strided axis
    assert not ok(object(), (8, 8), (4, 4), (1, 1))
    # Worth it where the stride-1 form takes the sample blocks.
    monkeypatch.setattr(_conv_sm_blocks, "_MIN_L", 256)
    f32 = np.dtype(np.float32)
    worth = _conv_s2d.worth
    one = (1, 1)
    assert worth(np, (32, 4, 84, 84), (8, 8), (4, 4), one, (20, 20), f32)
    # The DQN's second layer: 9x9 planes.
    assert not worth(np, (32, 32, 20, 20), (4, 4), (2, 2), one, (9, 9), f32)
    # DCGAN's discriminator, 64 -> 128 channels at 32x32: 1 MB samples.
    assert not worth(np, (64, 64, 32, 32), (4, 4), (2, 2), one, (16, 16), f32)
    assert not worth(np, (32, 4, 84, 84), (3, 3), (2, 2), one, (41, 41), f32)


def test_split_and_merge_helpers():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 9, 10)).astype(np.float32)
    k, s, p, d, out = (4, 2), (2, 2), (1, 0), (1, 1), (4, 5)
    xq = _conv_s2d.split_input(x, k, s, p, d, out)
    Q = _conv_s2d.phase_size(k, s, d, out)
    assert Q == (5, 5) and xq.shape == (2, 12) + Q
    xpad = np.zeros((2, 3, 10, 10), np.float32)
    xpad[:, :, 1:10] = x[:, :, :, :10]
    for c in range(3):
        for a in range(2):
            for b in range(2):
                np.testing.assert_array_equal(
                    xq[:, c * 4 + a * 2 + b], xpad[:, c, a::2, b::2]
                )
    # Rows and columns past the windows' reach are left out.
    tail = _conv_s2d.split_input(x, (2, 2), s, (0, 0), d, (4, 4))
    assert tail.shape == (2, 12, 4, 4)
    np.testing.assert_array_equal(tail[:, 3], x[:, 0, 1:8:2, 1:8:2])
    W = rng.standard_normal((5, 3, 4, 2))
    Wq = _conv_s2d.split_filter(W, s)
    assert Wq.shape == (5, 12, 2, 1)
    assert Wq[1, 2 * 4 + 1 * 2 + 0, 1, 0] == W[1, 2, 2 * 1 + 1, 0]
    np.testing.assert_array_equal(_conv_s2d.merge_filter(Wq, W.shape, s), W)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_all_passes_match_reference_and_strided_kernels(
    case, dtype, taken, monkeypatch
):
    _, kw, xs, ws = case
    arrays = _arrays(xs, ws, dtype)
    new = _grads(_fn(kw), arrays)
    assert {"split_input", "merge_filter"} <= set(taken)
    x64, W64, b64 = (a.astype(np.float64) for a in arrays)
    want = conv_ref(x64, W64, b64, **kw)
    tol = {np.float16: 2e-2, np.float32: 1e-4, np.float64: 1e-10}[dtype]
    scale = float(np.abs(want).max())
    np.testing.assert_allclose(
        new[0].astype(np.float64), want, rtol=tol, atol=tol * scale
    )
    monkeypatch.setattr(_conv_s2d, "ENABLED", False)
    old = _grads(_fn(kw), arrays)
    for a, b in zip(new, old):
        assert a.dtype == b.dtype == dtype and a.shape == b.shape
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        scale = max(1.0, float(np.abs(b64).max()))
        np.testing.assert_allclose(a64, b64, rtol=tol, atol=tol * scale)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_numerical_gradients(case, taken):
    _, kw, xs, ws = case
    check_op(
        _fn(kw),
        lambda x, W, b: conv_ref(x, W, b, **kw),
        [xs, ws, (ws[0],)],
        dtype=np.float64,
    )
    assert "split_input" in taken


@pytest.mark.parametrize(
    "nd,kw,xs,ws",
    [
        (1, {"stride": 2, "pad": 1}, (3, 2, 13), (3, 2, 4)),
        (3, {"stride": (2, 1, 2)}, (2, 2, 6, 4, 6), (2, 2, 2, 3, 4)),
    ],
    ids=["1d", "3d"],
)
def test_other_dimensionalities(nd, kw, xs, ws, taken):
    check_op(
        _fn(kw, nd),
        lambda x, W, b: conv_ref(x, W, b, **kw),
        [xs, ws, (ws[0],)],
        dtype=np.float64,
    )
    assert "split_input" in taken


def test_transposed_convolutions_keep_the_strided_kernels(taken):
    # A DCGAN-like 4x4 stride-2 upsampling: the phase split was slower.
    rng = np.random.default_rng(4)
    x = rng.standard_normal((3, 4, 5, 6)).astype(np.float32)
    W = rng.standard_normal((4, 3, 4, 4)).astype(np.float32)
    y = _conv_core.deconv_forward(x, W, None, (2, 2), (1, 1), (1, 1), 1, (10, 12))
    assert y.shape == (3, 3, 10, 12) and taken == []


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_same_bits_at_any_thread_count(case, monkeypatch):
    _, kw, xs, ws = case
    arrays = _arrays(xs, ws, np.float32, seed=2)
    monkeypatch.setattr(threads, "_num_threads", 1)
    one = _grads(_fn(kw), arrays)
    monkeypatch.setattr(threads, "MIN_BYTES_PER_THREAD", 1)
    for n in (2, 3):
        monkeypatch.setattr(threads, "_num_threads", n)
        many = _grads(_fn(kw), arrays)
        for a, b in zip(one, many):
            np.testing.assert_array_equal(a, b)
