"""Each converter against onnxruntime: the exported op computes kusari's values."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import kusari.functions as F

pytest.importorskip("onnx", reason="ONNX export tests need onnx (pip install onnx)")
pytest.importorskip(
    "onnxruntime", reason="ONNX export tests need onnxruntime (pip install onnxruntime)"
)

_rng = np.random.default_rng(0)


def _u(*shape: int, low: float = -1.0, high: float = 1.0) -> np.ndarray:
    return _rng.uniform(low, high, shape).astype(np.float32)


def _pos(*shape: int) -> np.ndarray:
    return _u(*shape, low=0.5, high=2.0)


X4 = (2, 3, 5, 6)
C6 = _u(6)  # a constant broadcast along the last axis
BN6 = (_pos(6), _u(6), _u(6), _pos(6))  # gamma, beta, mean, var
SLOPE3 = _u(3)
LN3 = (_pos(3), _u(3))
W_LIN = _u(4, 3 * 5 * 6)
B_LIN = _u(4)

UNARY: list[tuple[str, Callable[[Any], Any]]] = [
    ("relu", F.relu),
    ("sigmoid", F.sigmoid),
    ("tanh", F.tanh),
    ("softmax", F.softmax),
    ("softmax_axis2", lambda x: F.softmax(x, axis=2)),
    ("log_softmax", F.log_softmax),
    ("elu", lambda x: F.elu(x, alpha=0.5)),
    ("softplus", F.softplus),
    ("softplus_beta2", lambda x: F.softplus(x, beta=2.0)),
    ("leaky_relu", lambda x: F.leaky_relu(x, slope=0.1)),
    ("clipped_relu", lambda x: F.clipped_relu(x, z=0.5)),
    ("hard_sigmoid", lambda x: F.hard_sigmoid(x * 4)),
    ("clip", lambda x: F.clip(x, -0.3, 0.4)),
    ("exp", F.exp),
    ("sin_cos", lambda x: F.sin(x) + F.cos(x)),
    ("absolute_neg", lambda x: -abs(x)),
    ("add_const", lambda x: x + 1.5),
    ("rsub_const", lambda x: 2 - x),
    ("mul_const", lambda x: x * 3.0),
    ("div_const", lambda x: x / 4.0),
    ("pow_const", lambda x: x**2),
    ("rpow_const", lambda x: 2.0**x),
    ("pow_array", lambda x: (abs(x) + 0.5) ** C6),
    ("square", F.square),
    ("add_array", lambda x: x + C6),
    ("mul_array", lambda x: x * C6),
    ("reshape", lambda x: F.reshape(x, (2, -1))),
    ("reshape_merge", lambda x: F.reshape(x, (6, 5, 6))),
    ("flatten", F.flatten),
    ("transpose", lambda x: F.transpose(x, (0, 2, 3, 1))),
    ("transpose_reverse", F.transpose),
    ("swapaxes", lambda x: F.swapaxes(x, 1, 3)),
    ("moveaxis", lambda x: F.moveaxis(x, 1, -1)),
    ("concat", lambda x: F.concat([x, x * 2], axis=1)),
    ("stack", lambda x: F.stack([x, -x], axis=2)),
    ("split_sections", lambda x: F.split_axis(x, 3, axis=1)[1] * 2),
    ("split_indices", lambda x: tuple(F.split_axis(x, [2, 5], axis=3))),
    ("separate", lambda x: F.separate(x, axis=1)),
    ("expand_dims", lambda x: F.expand_dims(x, 2)),
    ("squeeze", lambda x: F.squeeze(x[:, :1], axis=1)),
    ("squeeze_all", lambda x: F.squeeze(x[:1, :1])),
    ("broadcast_to", lambda x: F.broadcast_to(x[:, :1], X4)),
    ("tile", lambda x: F.tile(x, (1, 2, 1, 1))),
    ("sum_all", F.sum),
    ("sum_axis", lambda x: F.sum(x, axis=(1, 3))),
    ("sum_keepdims", lambda x: F.sum(x, axis=-1, keepdims=True)),
    ("mean", lambda x: F.mean(x, axis=(2, 3))),
    ("max", lambda x: F.max(x, axis=1)),
    ("min_keepdims", lambda x: F.min(x, axis=(2,), keepdims=True)),
    ("get_item_slices", lambda x: x[:, 1:3, ::2, 0]),
    ("get_item_negative_step", lambda x: x[:, ::-1, 4:0:-2]),
    ("get_item_ellipsis_none", lambda x: x[..., None, 1]),
    ("get_item_int_first", lambda x: x[1]),
    ("get_item_index_array", lambda x: x[:, :, np.array([4, 0, 2])]),
    ("pad_constant", lambda x: F.pad(x, ((0, 0), (0, 0), (1, 2), (2, 1)), "constant")),
    ("pad_edge", lambda x: F.pad(x, ((0, 0), (0, 0), (1, 1), (2, 2)), "edge")),
    ("pad_reflect", lambda x: F.pad(x, ((0, 0), (0, 0), (1, 1), (2, 2)), "reflect")),
    ("where", lambda x: F.where(np.arange(6) % 2 == 0, x, x * 10)),
    ("cast", lambda x: F.cast(x, np.float64)),
    ("linear_flatten", lambda x: F.linear(x, W_LIN, B_LIN)),
    ("linear_no_bias", lambda x: F.linear(x[:, :, 0, 0], W_LIN[:, :3])),
    ("linear_batch_axes", lambda x: F.linear(x, W_LIN[:, :6], B_LIN, n_batch_axes=3)),
    ("fixed_bn_axis", lambda x: F.fixed_batch_normalization(x, *BN6, axis=(0, 1, 2))),
    ("lrn", lambda x: F.local_response_normalization(x, n=3, k=1.5, alpha=0.01)),
    ("prelu", lambda x: F.prelu(x, SLOPE3)),
    ("swish", lambda x: F.swish(x, SLOPE3)),
    ("crelu", F.crelu),
    ("erf", F.erf),
    ("arctan", F.arctan),
    ("arcsin_arccos", lambda x: F.arcsin(x * 0.5) + F.arccos(x * 0.5)),
    ("expm1", F.expm1),
    ("log1p", lambda x: F.log1p(x * 0.5)),
    ("logsumexp", lambda x: F.logsumexp(x, axis=(1, 2))),
    ("prod", lambda x: F.prod(x, axis=2, keepdims=True)),
    ("argmax", lambda x: F.cast(F.argmax(x, axis=1), np.float32)),
    ("argmin_flat", lambda x: F.cast(F.argmin(x), np.float32)),
    ("cumsum", lambda x: F.cumsum(x, axis=3)),
    ("einsum", lambda x: F.einsum("bchw,bchw->bc", x, x)),
    ("flip", lambda x: F.flip(x, 2)),
    ("fliplr_flipud", lambda x: F.fliplr(F.flipud(x[0, 0]))),
    ("repeat", lambda x: F.repeat(x, 2, axis=1)),
    ("repeat_counts", lambda x: F.repeat(x, (1, 0, 3), axis=1)),
    ("repeat_flat", lambda x: F.repeat(x[0, 0], 2)),
    ("depth2space", lambda x: F.depth2space(F.tile(x, (1, 4, 1, 1)), 2)),
    ("space2depth", lambda x: F.space2depth(x[:, :, :4], 2)),
    ("resize_align_corners", lambda x: F.resize_images(x, (9, 11))),
    ("resize_half_pixel", lambda x: F.resize_images(x, (4, 13), align_corners=False)),
    ("normalize", lambda x: F.normalize(x, axis=1)),
    ("layer_normalization", lambda x: F.layer_normalization(x[:, :, 0, 0], *LN3)),
    ("group_normalization", lambda x: F.group_normalization(x, 3, *LN3)),
    ("batch_normalization_batch_stats", lambda x: F.batch_normalization(x, *LN3)),
]


@pytest.mark.parametrize("fn", [f for _, f in UNARY], ids=[n for n, _ in UNARY])
def test_unary(fn: Callable[[Any], Any], check_export: Any) -> None:
    check_export(fn, _u(*X4))


POSITIVE = [
    ("log", F.log),
    ("sqrt", F.sqrt),
    ("rdiv_const", lambda x: 2.0 / x),
    ("pow_float", lambda x: x**0.5),
    ("log2_log10", lambda x: F.log2(x) + F.log10(x)),
]


@pytest.mark.parametrize("fn", [f for _, f in POSITIVE], ids=[n for n, _ in POSITIVE])
def test_positive_domain(fn: Callable[[Any], Any], check_export: Any) -> None:
    check_export(fn, _pos(*X4))


BINARY = [
    ("add", lambda x, y: x + y),
    ("sub", lambda x, y: x - y),
    ("mul", lambda x, y: x * y),
    ("div", lambda x, y: x / y),
    ("pow", lambda x, y: x**y),
    ("maximum", F.maximum),
    ("minimum", F.minimum),
    ("squared_difference", F.squared_difference),
    ("multi_add", lambda x, y: F.add(x, y, x)),
]


@pytest.mark.parametrize("fn", [f for _, f in BINARY], ids=[n for n, _ in BINARY])
def test_binary(fn: Callable[[Any, Any], Any], check_export: Any) -> None:
    check_export(fn, [_pos(2, 3, 4), _pos(2, 3, 4)])


@pytest.mark.parametrize("shapes", [((2, 3, 4), (4,)), ((3, 1), (1, 5))])
def test_binary_broadcast(shapes: Any, check_export: Any) -> None:
    a, b = shapes
    check_export(lambda x, y: x * y + (x - y), [_u(*a), _u(*b)])


@pytest.mark.parametrize(
    "a_shape,b_shape,transa,transb",
    [
        ((3, 4), (4, 5), False, False),
        ((4, 3), (4, 5), True, False),
        ((3, 4), (5, 4), False, True),
        ((2, 3, 4), (2, 5, 4), False, True),
    ],
)
def test_matmul(
    a_shape: Any, b_shape: Any, transa: bool, transb: bool, check_export: Any
) -> None:
    check_export(
        lambda a, b: F.matmul(a, b, transa=transa, transb=transb),
        [_u(*a_shape), _u(*b_shape)],
    )


def test_matmul_with_constant(check_export: Any) -> None:
    w = _u(4, 2)
    check_export(lambda x: x @ w, _u(3, 4))


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"stride": 2, "pad": 1},
        {"stride": (1, 2), "pad": (2, 0)},
        {"groups": 3},
        {"dilate": 2, "pad": 2},
        {"stride": 2, "cover_all": True},
        {"nobias": True},
    ],
    ids=[
        "plain",
        "stride_pad",
        "anisotropic",
        "groups",
        "dilate",
        "cover_all",
        "nobias",
    ],
)
def test_convolution_2d(kwargs: dict[str, Any], check_export: Any) -> None:
    kwargs = dict(kwargs)
    groups = kwargs.get("groups", 1)
    w = _u(6, 6 // groups, 3, 3)
    b = None if kwargs.pop("nobias", False) else _u(6)
    proto = check_export(lambda x: F.convolution_2d(x, w, b, **kwargs), _u(2, 6, 7, 8))
    assert [n.op_type for n in proto.graph.node] == ["Conv"]


@pytest.mark.parametrize("ndim", [1, 3])
def test_convolution_nd(ndim: int, check_export: Any) -> None:
    w, b = _u(4, 2, *(3,) * ndim), _u(4)
    check_export(
        lambda x: F.convolution_nd(x, w, b, stride=2, pad=1), _u(2, 2, *(6,) * ndim)
    )


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"stride": 2, "pad": 1},
        {"stride": 2, "pad": 1, "outsize": (10, 12)},
        {"groups": 2},
        {"dilate": 2},
    ],
    ids=["plain", "stride_pad", "outsize", "groups", "dilate"],
)
def test_deconvolution_2d(kwargs: dict[str, Any], check_export: Any) -> None:
    groups = kwargs.get("groups", 1)
    w, b = _u(4, 6 // groups, 3, 3), _u(6)
    check_export(lambda x: F.deconvolution_2d(x, w, b, **kwargs), _u(2, 4, 5, 6))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"ksize": 2},
        {"ksize": 3, "stride": 2, "pad": 1},
        {"ksize": 3, "stride": 2, "pad": 1, "cover_all": False},
        {"ksize": (2, 3), "stride": (2, 3), "cover_all": True},
    ],
    ids=["k2", "k3s2p1_cover_all", "k3s2p1", "anisotropic_cover_all"],
)
def test_max_pooling_2d(kwargs: dict[str, Any], check_export: Any) -> None:
    check_export(lambda x: F.max_pooling_2d(x, **kwargs), _u(2, 3, 7, 8))


@pytest.mark.parametrize(
    "kwargs",
    [{"ksize": 2}, {"ksize": 3, "stride": 2, "pad": 1}, {"ksize": (7, 8), "stride": 1}],
    ids=["k2", "padded", "global"],
)
def test_average_pooling_2d(kwargs: dict[str, Any], check_export: Any) -> None:
    check_export(lambda x: F.average_pooling_2d(x, **kwargs), _u(2, 3, 7, 8))


def test_average_pooling_nd_excluding_pad(check_export: Any) -> None:
    check_export(
        lambda x: F.average_pooling_nd(x, 3, 2, 1, pad_value=None), _u(2, 3, 7, 8)
    )


@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 4, 5)])
def test_fixed_batch_normalization(shape: Any, check_export: Any) -> None:
    gamma, beta, mean, var = _pos(3), _u(3), _u(3), _pos(3)
    check_export(
        lambda x: F.fixed_batch_normalization(x, gamma, beta, mean, var, eps=1e-3),
        _u(*shape),
    )


@pytest.mark.parametrize("ignore_label", [None, -1])
def test_embed_id(ignore_label: Any, check_export: Any) -> None:
    w = _u(5, 3)
    ids = np.array([[0, 4, -1], [2, 2, 1]], np.int32)
    if ignore_label is None:
        ids = np.abs(ids)
    check_export(lambda t: F.embed_id(t, w, ignore_label=ignore_label), ids)


def test_lstm(check_export: Any) -> None:
    check_export(lambda c, x: F.lstm(c, x), [_u(2, 3), _u(2, 12)])
