import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari_cv.links import Conv2DActiv, Conv2DBNActiv, SEBlock, SeparableConv2DBNActiv
from kusari_cv.links.model.resnet import Bottleneck


def conv2d_ref(x, W, b=None, stride=1, pad=0, dilate=1, groups=1):
    """Direct NumPy convolution (cross-correlation), float64."""
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, c, h, w = x.shape
    out_c, c_per_group, kh, kw = W.shape
    eh, ew = (kh - 1) * dilate + 1, (kw - 1) * dilate + 1
    oh, ow = (h - eh) // stride + 1, (w - ew) // stride + 1
    y = np.zeros((n, out_c, oh, ow))
    oc_per_group = out_c // groups
    for o in range(out_c):
        g = o // oc_per_group
        xs = x[:, g * c_per_group : (g + 1) * c_per_group]
        for i in range(kh):
            for j in range(kw):
                patch = xs[
                    :,
                    :,
                    i * dilate : i * dilate + stride * (oh - 1) + 1 : stride,
                    j * dilate : j * dilate + stride * (ow - 1) + 1 : stride,
                ]
                y[:, o] += np.einsum("nchw,c->nhw", patch, W[o, :, i, j])
        if b is not None:
            y[:, o] += b[o]
    return y


def bn_ref(h, bn):
    shape = (1, -1, 1, 1)
    mean = bn.avg_mean.reshape(shape)
    var = bn.avg_var.reshape(shape)
    gamma = bn.gamma.array.reshape(shape)
    beta = bn.beta.array.reshape(shape)
    return (h - mean) / np.sqrt(var + bn.eps) * gamma + beta


def randomize_bn(bn, rng):
    size = bn.avg_mean.shape[0]
    bn.avg_mean[...] = rng.uniform(-1, 1, size)
    bn.avg_var[...] = rng.uniform(0.5, 2, size)
    bn.gamma.array[...] = rng.uniform(0.5, 1.5, size)
    bn.beta.array[...] = rng.uniform(-1, 1, size)


@pytest.mark.parametrize("activ", ["relu", None])
def test_conv_2d_activ_matches_numpy(activ):
    rng = np.random.default_rng(0)
    fn = F.relu if activ else None
    link = Conv2DActiv(3, 5, 3, stride=2, pad=1, activ=fn)
    x = rng.uniform(-1, 1, (2, 3, 7, 6)).astype(np.float32)
    link.conv.b.array[...] = rng.uniform(-1, 1, 5)
    y = link(x).array
    expect = conv2d_ref(x, link.conv.W.array, link.conv.b.array, stride=2, pad=1)
    if activ:
        expect = np.maximum(expect, 0)
    assert y.shape == (2, 5, 4, 3)
    np.testing.assert_allclose(y, expect, atol=1e-5, rtol=1e-4)


def test_conv_2d_activ_infers_in_channels_when_ksize_is_left_out():
    link = Conv2DActiv(4, 3)  # out_channels=4, ksize=3
    assert link.conv.W.array is None
    y = link(np.ones((1, 2, 5, 5), np.float32))
    assert y.shape == (1, 4, 3, 3)
    assert link.conv.W.shape == (4, 2, 3, 3)


def test_conv_2d_activ_dilate_and_groups():
    rng = np.random.default_rng(1)
    link = Conv2DActiv(4, 6, 3, pad=2, dilate=2, groups=2, activ=None)
    x = rng.uniform(-1, 1, (1, 4, 6, 6)).astype(np.float32)
    expect = conv2d_ref(
        x, link.conv.W.array, link.conv.b.array, pad=2, dilate=2, groups=2
    )
    np.testing.assert_allclose(link(x).array, expect, atol=1e-5, rtol=1e-4)


def test_conv_2d_bn_activ_test_mode_matches_numpy():
    rng = np.random.default_rng(2)
    link = Conv2DBNActiv(3, 4, 3, 1, 1, bn_kwargs={"eps": 1e-3})
    assert link.conv.b is None  # nobias is the default
    randomize_bn(link.bn, rng)
    x = rng.uniform(-1, 1, (2, 3, 5, 5)).astype(np.float32)
    with kusari.using_config("train", False):
        y = link(x).array
    expect = np.maximum(bn_ref(conv2d_ref(x, link.conv.W.array, pad=1), link.bn), 0)
    assert link.bn.eps == 1e-3
    np.testing.assert_allclose(y, expect, atol=1e-4, rtol=1e-4)


def test_conv_2d_bn_activ_train_mode_normalizes_batch():
    rng = np.random.default_rng(3)
    link = Conv2DBNActiv(None, 4, 1, activ=None)
    x = rng.uniform(-1, 1, (8, 3, 4, 4)).astype(np.float32)
    y = link(x).array  # gamma 1, beta 0: per-channel zero mean, unit variance
    np.testing.assert_allclose(y.mean(axis=(0, 2, 3)), 0, atol=1e-5)
    np.testing.assert_allclose(y.var(axis=(0, 2, 3)), 1, atol=1e-2)


def test_seblock_matches_numpy():
    rng = np.random.default_rng(4)
    link = SEBlock(8, ratio=4)
    link.down.b.array[...] = rng.uniform(-1, 1, 2)
    link.up.b.array[...] = rng.uniform(-1, 1, 8)
    x = rng.uniform(-1, 1, (2, 8, 3, 5)).astype(np.float32)
    z = x.mean(axis=(2, 3))
    s = np.maximum(z @ link.down.W.array.T + link.down.b.array, 0)
    s = 1 / (1 + np.exp(-(s @ link.up.W.array.T + link.up.b.array)))
    np.testing.assert_allclose(
        link(x).array, x * s[:, :, None, None], atol=1e-6, rtol=1e-5
    )


def test_seblock_rejects_too_large_ratio():
    with pytest.raises(ValueError, match="SEBlock: n_channel // ratio"):
        SEBlock(8, ratio=16)


def test_separable_conv_2d_bn_activ_matches_numpy():
    rng = np.random.default_rng(5)
    link = SeparableConv2DBNActiv(
        3, 5, 3, 1, 2, 2, nobias=True, dw_activ=F.relu, pw_activ=None
    )
    for bn in (link.dw_bn, link.pw_bn):
        randomize_bn(bn, rng)
    x = rng.uniform(-1, 1, (2, 3, 6, 7)).astype(np.float32)
    with kusari.using_config("train", False):
        y = link(x).array
    h = conv2d_ref(x, link.depthwise.W.array, pad=2, dilate=2, groups=3)
    h = np.maximum(bn_ref(h, link.dw_bn), 0)
    h = bn_ref(conv2d_ref(h, link.pointwise.W.array), link.pw_bn)
    assert link.depthwise.W.shape == (3, 1, 3, 3)
    np.testing.assert_allclose(y, h, atol=1e-4, rtol=1e-4)


def test_separable_conv_2d_bn_activ_strided_shape_and_backward():
    link = SeparableConv2DBNActiv(4, 6, 3, stride=2, pad=1)
    x = kusari.Variable(np.random.default_rng(6).normal(size=(2, 4, 8, 8)).astype("f"))
    y = link(x)
    assert y.shape == (2, 6, 4, 4)
    F.sum(y * y).backward()
    assert x.grad.shape == x.shape
    assert link.depthwise.W.grad is not None and np.any(link.depthwise.W.grad != 0)


def test_bn_kwargs_comm_without_kusari_mn_names_the_dependency(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name.startswith("kusari_mn"):
            raise ImportError("no kusari_mn")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    monkeypatch.delitem(__import__("sys").modules, "kusari_mn.links", raising=False)
    monkeypatch.delitem(__import__("sys").modules, "kusari_mn", raising=False)
    with pytest.raises(ImportError, match="kusari-mn"):
        Conv2DBNActiv(3, 4, 1, bn_kwargs={"comm": object()})


def _se_ref(x, se):
    s = np.maximum(x.mean(axis=(2, 3)) @ se.down.W.array.T + se.down.b.array, 0)
    s = 1 / (1 + np.exp(-(s @ se.up.W.array.T + se.up.b.array)))
    return x * s[:, :, None, None]


@pytest.mark.parametrize("stride_first", [False, True])
def test_bottleneck_matches_numpy(stride_first):
    rng = np.random.default_rng(7)
    block = Bottleneck(
        8, 4, 16, stride=2, residual_conv=True, stride_first=stride_first,
        add_seblock=True,
    )  # fmt: skip
    for name in ("conv1", "conv2", "conv3", "residual_conv"):
        randomize_bn(block[name].bn, rng)
    x = rng.uniform(-1, 1, (2, 8, 7, 6)).astype(np.float32)
    with kusari.using_config("train", False):
        y = block(x).array

    def cbr(h, link, stride=1, pad=0, relu=True):
        h = bn_ref(conv2d_ref(h, link.conv.W.array, stride=stride, pad=pad), link.bn)
        return np.maximum(h, 0) if relu else h

    s1, s2 = (2, 1) if stride_first else (1, 2)
    h = cbr(x, block.conv1, stride=s1)
    h = cbr(h, block.conv2, stride=s2, pad=1)
    h = _se_ref(cbr(h, block.conv3, relu=False), block.se)
    expect = np.maximum(h + cbr(x, block.residual_conv, stride=2, relu=False), 0)
    assert y.shape == (2, 16, 4, 3)
    np.testing.assert_allclose(y, expect, atol=1e-4, rtol=1e-4)
