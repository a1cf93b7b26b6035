import numpy as np
import pytest

import kusari
import kusari.links as L
from kusari_cv.links.model.mobilenet import (
    ExpandedConv2D,
    TFConv2DBNActiv,
    TFConvolution2D,
)
from kusari_cv.links.model.mobilenet.tf_convolution_2d import tf_pad_amount
from kusari_cv.links.model.mobilenet.util import (
    _make_divisible,
    expand_input_by_factor,
)


def reference_conv(x, W, b, stride, pad, dilate=1, groups=1):
    """Direct float64 convolution of zero-padded ``x``; ``pad`` is
    ``((top, bottom), (left, right))``."""
    x = np.pad(x, ((0, 0), (0, 0)) + tuple(pad))
    n, c, h, w = x.shape
    out_c, c_per_group, kh, kw = W.shape
    oh = (h - (kh - 1) * dilate - 1) // stride + 1
    ow = (w - (kw - 1) * dilate - 1) // stride + 1
    y = np.zeros((n, out_c, oh, ow))
    per_group = out_c // groups
    for o in range(out_c):
        g = o // per_group
        xs = x[:, g * c_per_group : (g + 1) * c_per_group]
        for i in range(kh):
            for j in range(kw):
                patch = xs[
                    :,
                    :,
                    i * dilate : i * dilate + (oh - 1) * stride + 1 : stride,
                    j * dilate : j * dilate + (ow - 1) * stride + 1 : stride,
                ]
                y[:, o] += np.einsum("nchw,c->nhw", patch, W[o, :, i, j])
    if b is not None:
        y += b[None, :, None, None]
    return y


def tf_same_pad(size, k, s, d=1):
    # tf.nn.conv2d's documented rule: out = ceil(in / s), the padding that
    # gives it, the smaller half before.
    out = -(-size // s)
    total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
    return total // 2, total - total // 2


@pytest.mark.parametrize(
    "size, k, s, expected",
    [(8, 3, 2, (0, 1)), (7, 3, 2, (1, 1)), (5, 3, 1, (1, 1)), (4, 1, 2, (0, 0))],
)
def test_tf_pad_amount_hand_computed(size, k, s, expected):
    assert tf_pad_amount(size, k, s, "SAME") == expected
    assert tf_pad_amount(size, k, s, "VALID") == (0, 0)


def test_tf_pad_amount_rejects_unknown_mode():
    with pytest.raises(ValueError, match="tf_pad_amount: mode must be"):
        tf_pad_amount(4, 3, 1, "same")


def test_tf_same_stride2_even_input_pads_after_only():
    # 4x4 input, 3x3 kernel of ones, stride 2: TensorFlow adds one zero row
    # and column after, so the windows start at rows/columns 0 and 2.
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    conv = TFConvolution2D(1, 1, 3, stride=2, nobias=True, initialW=1.0)
    y = conv(x).array[0, 0]
    x2 = x[0, 0]
    expected = [
        [x2[0:3, 0:3].sum(), x2[0:3, 2:4].sum()],
        [x2[2:4, 0:3].sum(), x2[2:4, 2:4].sum()],
    ]
    np.testing.assert_allclose(y, expected)


@pytest.mark.parametrize("h, w", [(7, 8), (8, 7), (9, 9), (6, 6)])
@pytest.mark.parametrize(
    "k, s, d", [(3, 1, 1), (3, 2, 1), (1, 2, 1), (4, 2, 1), (5, 3, 1), (3, 1, 2)]
)
def test_tf_convolution_same_matches_reference(h, w, k, s, d):
    rng = np.random.default_rng(h * 100 + w * 10 + k + s)
    x = rng.standard_normal((2, 3, h, w))
    W = rng.standard_normal((4, 3, k, k))
    b = rng.standard_normal(4)
    conv = TFConvolution2D(3, 4, k, stride=s, initialW=W, initial_bias=b, dilate=d)
    y = conv(x.astype(np.float32))
    expected = reference_conv(
        x, W, b, s, (tf_same_pad(h, k, s, d), tf_same_pad(w, k, s, d)), d
    )
    assert y.shape == (2, 4, -(-h // s), -(-w // s))
    np.testing.assert_allclose(y.array, expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("h, s", [(7, 2), (8, 2), (6, 1)])
def test_tf_convolution_valid_and_explicit_pad(h, s):
    rng = np.random.default_rng(h)
    x = rng.standard_normal((1, 2, h, h)).astype(np.float32)
    W = rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
    valid = TFConvolution2D(2, 3, 3, stride=s, pad="VALID", initialW=W)
    np.testing.assert_allclose(
        valid(x).array,
        reference_conv(x.astype(np.float64), W, None, s, ((0, 0), (0, 0))),
        rtol=1e-4,
        atol=1e-4,
    )
    assert valid(x).shape[2] == -(-(h - 2) // s)
    explicit = TFConvolution2D(2, 3, 3, stride=s, pad=1, initialW=W)
    plain = L.Convolution2D(2, 3, 3, stride=s, pad=1, initialW=W)
    np.testing.assert_allclose(explicit(x).array, plain(x).array, rtol=1e-6)
    assert explicit.W is explicit.conv.W
    assert explicit.b is explicit.conv.b


def test_tf_convolution_rejects_unknown_padding():
    with pytest.raises(ValueError, match="TFConvolution2D: pad must be 'SAME'"):
        TFConvolution2D(3, 4, 3, pad="FULL")


def test_tf_conv_bn_activ_layout_and_lazy_input():
    link = TFConv2DBNActiv(8, 3, stride=2, bn_kwargs={"eps": 1e-3})
    assert link.conv.conv.b is None
    assert link.bn.eps == 1e-3
    x = np.random.default_rng(0).standard_normal((2, 5, 7, 7)).astype(np.float32)
    with kusari.using_config("train", False):
        y = link(x)
    assert y.shape == (2, 8, 4, 4)
    assert link.conv.W.shape == (8, 5, 3, 3)
    assert (y.array >= 0).all()  # relu by default
    linear = TFConv2DBNActiv(5, 8, 3, activ=None)
    with kusari.using_config("train", False):
        assert (linear(x).array < 0).any()


def test_make_divisible_rounds_like_tensorflow():
    assert _make_divisible(32 * 1.4, 8) == 48
    assert _make_divisible(16 * 0.35, 8, 8) == 8
    assert _make_divisible(1280 * 1.4, 8) == 1792
    # Nearest multiple, unless that is more than 10% below: then one more.
    assert _make_divisible(26, 8) == 24
    assert _make_divisible(27, 8) == 32
    assert _make_divisible(20, 16) == 32
    assert expand_input_by_factor(6)(num_inputs=24) == 144
    assert expand_input_by_factor(1, divisible_by=1)(num_inputs=48) == 48


def bn_reference(x, bn):
    shape = (1, -1, 1, 1)
    mean = bn.avg_mean.reshape(shape)
    var = bn.avg_var.reshape(shape)
    gamma = bn.gamma.array.reshape(shape)
    beta = bn.beta.array.reshape(shape)
    return (x - mean) / np.sqrt(var + bn.eps) * gamma + beta


def randomize_bn(link, rng):
    for child in link.links():
        if isinstance(child, L.BatchNormalization):
            n = child.avg_mean.size
            child.avg_mean[...] = rng.standard_normal(n)
            child.avg_var[...] = rng.uniform(0.5, 2.0, n)
            child.gamma.array[...] = rng.uniform(0.5, 1.5, n)
            child.beta.array[...] = rng.standard_normal(n)


def expanded_conv_reference(block, x):
    """The block in float64 NumPy: expand, depthwise, project, residual."""
    relu6 = lambda v: np.clip(v, 0, 6)  # noqa: E731
    h = x
    if hasattr(block, "expand"):
        W = block.expand.conv.W.array
        h = relu6(
            bn_reference(np.einsum("nchw,oc->nohw", h, W[:, :, 0, 0]), block.expand.bn)
        )
    conv = block.depthwise.conv.conv
    k, s = conv.W.shape[2], conv.stride[0]
    pad = (tf_same_pad(h.shape[2], k, s), tf_same_pad(h.shape[3], k, s))
    h = reference_conv(h, conv.W.array, None, s, pad, groups=h.shape[1])
    h = relu6(bn_reference(h, block.depthwise.bn))
    W = block.project.conv.W.array
    h = bn_reference(np.einsum("nchw,oc->nohw", h, W[:, :, 0, 0]), block.project.bn)
    if h.shape == x.shape:
        h = h + x
    return h


@pytest.mark.parametrize(
    "in_c, out_c, stride, size, factor, has_expand",
    [
        (8, 8, 1, 6, 6, True),  # residual
        (8, 16, 2, 7, 6, True),  # odd size, stride 2
        (8, 8, 2, 6, 6, True),  # same channels, but the size changes
        (16, 8, 1, 5, 1, False),  # no expansion (the first block)
    ],
)
def test_expanded_conv_matches_float64_reference(
    in_c, out_c, stride, size, factor, has_expand
):
    rng = np.random.default_rng(in_c + out_c + stride + size)
    with kusari.using_config("dtype", np.float64):
        block = ExpandedConv2D(
            in_c,
            out_c,
            expansion_size=expand_input_by_factor(factor, divisible_by=1),
            depthwise_stride=stride,
            bn_kwargs={"eps": 1e-3, "dtype": np.float64},
        )
    assert hasattr(block, "expand") == has_expand
    assert block.depthwise.conv.conv.groups == block.inner_size == in_c * factor
    randomize_bn(block, rng)
    x = rng.standard_normal((2, in_c, size, size)) * 2
    with kusari.using_config("train", False):
        y = block(x)
    expected = expanded_conv_reference(block, x)
    assert y.dtype == np.float64
    assert y.shape == (2, out_c, -(-size // stride), -(-size // stride))
    np.testing.assert_allclose(y.array, expected, rtol=1e-10, atol=1e-10)


def test_expanded_conv_backward_reaches_every_parameter():
    block = ExpandedConv2D(4, 4)
    x = kusari.Variable(
        np.random.default_rng(1).standard_normal((2, 4, 5, 5)).astype(np.float32)
    )
    block.cleargrads()  # parameter gradients start as NaN, as in Chainer
    y = block(x)
    loss = kusari.functions.sum(y * y)
    loss.backward()
    assert x.grad is not None and np.isfinite(x.grad).all()
    for name, param in block.namedparams():
        assert param.grad is not None, name
        assert np.abs(param.grad).sum() > 0, name
