import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari import Variable
from kusari.testing import check_op
from kusari.utils import type_check


def _log_softmax(x):
    m = x.max(axis=1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=1, keepdims=True))


def _ref(x, t, normalize=True, class_weight=None, ignore_label=-1, reduce="mean"):
    log_p = np.moveaxis(_log_softmax(x), 1, -1).reshape(-1, x.shape[1])
    t1 = t.ravel()
    valid = t1 != ignore_label
    idx = np.where(valid, t1, 0)
    w = valid.astype(np.float64)
    if class_weight is not None:
        w = w * class_weight[idx]
    loss = -log_p[np.arange(len(t1)), idx] * w
    if reduce == "no":
        return loss.reshape(t.shape)
    count = valid.sum() if normalize else x.shape[0]
    return np.asarray(loss.sum() / max(count, 1))


def _labels(shape, low=-1, high=3):
    def gen(rng, dtype):
        return rng.integers(low, high, shape).astype(np.int32)

    return gen


@pytest.mark.parametrize("reduce", ["mean", "no"])
@pytest.mark.parametrize("normalize", [True, False])
@pytest.mark.parametrize(
    "x_shape, t_shape", [((4, 3), (4,)), ((2, 3, 2, 2), (2, 2, 2))]
)
def test_softmax_cross_entropy(
    x_shape, t_shape, normalize, reduce, float_dtype, device
):
    # enable_double_backprop=False (the default): Chainer raises on double backprop.
    check_op(
        lambda x, t: F.softmax_cross_entropy(x, t, normalize=normalize, reduce=reduce),
        lambda x, t: _ref(x, t, normalize=normalize, reduce=reduce),
        [x_shape, _labels(t_shape)],
        dtype=float_dtype,
        device=device,
        double_backward=False,
    )


@pytest.mark.parametrize("reduce", ["mean", "no"])
@pytest.mark.parametrize(
    "x_shape, t_shape", [((4, 3), (4,)), ((2, 3, 2, 2), (2, 2, 2))]
)
def test_softmax_cross_entropy_double_backprop(
    x_shape, t_shape, reduce, float_dtype, device
):
    check_op(
        lambda x, t: F.softmax_cross_entropy(
            x, t, reduce=reduce, enable_double_backprop=True
        ),
        lambda x, t: _ref(x, t, reduce=reduce),
        [x_shape, _labels(t_shape)],
        dtype=float_dtype,
        device=device,
    )


@pytest.mark.parametrize("enable_double_backprop", [False, True])
@pytest.mark.parametrize("reduce", ["mean", "no"])
def test_softmax_cross_entropy_class_weight(
    reduce, enable_double_backprop, float_dtype, device
):
    cw = np.array([0.5, 2.0, 1.5], dtype=float_dtype)
    cw_dev = kusari.get_device(device).send(cw)
    check_op(
        lambda x, t: F.softmax_cross_entropy(
            x,
            t,
            class_weight=cw_dev,
            reduce=reduce,
            enable_double_backprop=enable_double_backprop,
        ),
        lambda x, t: _ref(x, t, class_weight=cw.astype(np.float64), reduce=reduce),
        [(5, 3), _labels((5,))],
        dtype=float_dtype,
        device=device,
        double_backward=enable_double_backprop,
    )


@pytest.mark.parametrize("cache_score", [True, False])
def test_softmax_cross_entropy_cache_score(cache_score):
    check_op(
        lambda x, t: F.softmax_cross_entropy(x, t, cache_score=cache_score),
        lambda x, t: _ref(x, t),
        [(4, 3), _labels((4,))],
        dtype=np.float64,
        double_backward=False,
    )


@pytest.mark.parametrize("enable_double_backprop", [False, True])
def test_softmax_cross_entropy_ignore_label(enable_double_backprop, device):
    x_host = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    t_host = np.array([0, 5, 2, 5], np.int32)
    dev = kusari.get_device(device)
    x, t = dev.send(x_host), dev.send(t_host)
    y = F.softmax_cross_entropy(
        x, t, ignore_label=5, reduce="no", enable_double_backprop=enable_double_backprop
    )
    expected = _ref(x_host.astype(np.float64), t_host, ignore_label=5, reduce="no")
    got = kusari.backend.CpuDevice().send(y.array)
    np.testing.assert_allclose(got, expected, rtol=1e-5)
    assert got[1] == 0 and got[3] == 0
    xv = kusari.Variable(x)
    m = F.softmax_cross_entropy(
        xv, t, ignore_label=5, enable_double_backprop=enable_double_backprop
    )
    np.testing.assert_allclose(float(m.array), expected.sum() / 2, rtol=1e-5)
    m.backward()
    gx = kusari.backend.CpuDevice().send(xv.grad)
    assert not gx[1].any() and not gx[3].any() and gx[0].any()


def test_softmax_cross_entropy_all_ignored():
    x = Variable(np.zeros((2, 3), np.float32))
    y = F.softmax_cross_entropy(x, np.array([-1, -1], np.int32))
    assert float(y.array) == 0.0
    y.backward()
    assert not x.grad.any()


def test_softmax_cross_entropy_double_backprop_disabled_raises():
    x = Variable(np.random.default_rng(0).standard_normal((2, 3)))
    y = F.softmax_cross_entropy(x, np.array([0, 1], np.int32))
    y.backward(enable_double_backprop=True)
    with pytest.raises(RuntimeError, match="enable_double_backprop=True"):
        F.sum(x.grad_var * x.grad_var).backward()


def _soft_ref(x, t, reduce, kind):
    log_p = _log_softmax(x)
    if kind == "cross-entropy":
        loss = -(t * log_p).sum(axis=1)
    else:
        loss = (t * (np.log(np.where(t > 0, t, 1)) - log_p)).sum(axis=1)
    return np.asarray(loss.mean()) if reduce == "mean" else loss


@pytest.mark.parametrize("kind", ["cross-entropy", "kl-divergence"])
@pytest.mark.parametrize("reduce", ["mean", "no"])
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 2)])
def test_softmax_cross_entropy_soft_target(shape, reduce, kind, float_dtype, device):
    def soft(rng, dtype):
        p = rng.uniform(0.1, 1, shape)
        return (p / p.sum(axis=1, keepdims=True)).astype(dtype)

    # t is not differentiated; gradient_check leaves such float inputs in the
    # test dtype while x goes to float64, so cast t to x's dtype here.
    check_op(
        lambda x, t: F.softmax_cross_entropy(
            x, t.array.astype(x.dtype), reduce=reduce, soft_target_loss=kind
        ),
        lambda x, t: _soft_ref(x, t, reduce, kind),
        [shape, soft],
        dtype=float_dtype,
        device=device,
        no_grads=[False, True],
    )


def test_softmax_cross_entropy_bad_soft_target_loss():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match="soft_target_loss"):
        F.softmax_cross_entropy(
            x, np.full((2, 3), 1 / 3, np.float32), soft_target_loss="hinge"
        )


def test_softmax_cross_entropy_soft_target_shape_mismatch():
    with pytest.raises(type_check.InvalidType):
        F.softmax_cross_entropy(
            np.zeros((2, 3), np.float32), np.zeros((2, 4), np.float32)
        )


@pytest.mark.parametrize("enable_double_backprop", [False, True])
def test_softmax_cross_entropy_label_out_of_range(enable_double_backprop):
    with pytest.raises(ValueError, match="labels must be in"):
        F.softmax_cross_entropy(
            np.zeros((2, 3), np.float32),
            np.array([0, 3], np.int32),
            enable_double_backprop=enable_double_backprop,
        )


def test_softmax_cross_entropy_bad_reduce():
    with pytest.raises(ValueError, match="reduce"):
        F.softmax_cross_entropy(
            np.zeros((2, 3), np.float32), np.zeros(2, np.int32), reduce="sum"
        )


def test_softmax_cross_entropy_bad_class_weight():
    with pytest.raises(ValueError, match="class_weight"):
        F.softmax_cross_entropy(
            np.zeros((2, 3), np.float32),
            np.zeros(2, np.int32),
            class_weight=np.ones(4, np.float32),
        )


def test_softmax_cross_entropy_bad_shapes():
    with pytest.raises(type_check.InvalidType, match="SoftmaxCrossEntropy"):
        F.softmax_cross_entropy(np.zeros((2, 3), np.float32), np.zeros(3, np.int32))
    with pytest.raises(type_check.InvalidType):
        F.softmax_cross_entropy(
            np.zeros((2, 3, 2), np.float32), np.zeros((2, 3), np.int32)
        )


def test_float_labels_are_told_to_be_integers():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(type_check.InvalidType) as info:
        F.softmax_cross_entropy(x, np.zeros(2, np.float32))
    text = str(info.value)
    assert text.startswith("Expect: t.shape == x.shape (soft targets)")
    assert "class labels must be integers" in text and "float32" in text


def _sce_run(x, t, double, **kw):
    xv = Variable(x.copy())
    loss = F.softmax_cross_entropy(xv, t, **kw)
    loss.grad = np.full(loss.shape, 0.75, x.dtype)
    # enable_double_backprop=True runs backward on Variables; the default
    # first-order pass runs backward_array on the arrays.
    loss.backward(enable_double_backprop=double)
    return loss.array, xv.grad


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("x_shape", [(5, 4), (3, 4, 2, 2)])
@pytest.mark.parametrize("reduce", ["mean", "no"])
@pytest.mark.parametrize("normalize", [True, False])
@pytest.mark.parametrize("cache_score", [True, False])
def test_softmax_cross_entropy_fast_paths_match_general_path(
    dtype, x_shape, reduce, normalize, cache_score
):
    # Labels all in range and no class weights take the all-valid forward;
    # class weights of ones take the general path, which must give the same
    # bits (every weight is 1). Both backward paths must agree as well.
    rng = np.random.default_rng(3)
    x = rng.standard_normal(x_shape).astype(dtype)
    t = rng.integers(0, 4, (x_shape[0],) + x_shape[2:]).astype(np.int32)
    kw = {"reduce": reduce, "normalize": normalize, "cache_score": cache_score}
    fast = _sce_run(x, t, False, **kw)
    general = _sce_run(x, t, False, class_weight=np.ones(4, dtype), **kw)
    variables = _sce_run(x, t, True, **kw)
    for a, b, c in zip(fast, general, variables):
        assert a.dtype == dtype
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)
    ref = _ref(x.astype(np.float64), t, normalize, reduce=reduce)
    tol = 1e-2 if dtype == np.float16 else 1e-5
    np.testing.assert_allclose(fast[0], ref, rtol=tol, atol=tol)


def test_softmax_cross_entropy_ignore_label_inside_class_range():
    # An ignore_label that is also a class index: those labels count for
    # nothing, so the all-valid shortcut must not be taken.
    x = np.array([[1.0, 2.0, 0.5], [0.1, 0.2, 3.0]], np.float32)
    t = np.array([1, 2], np.int32)
    loss = F.softmax_cross_entropy(x, t, ignore_label=2)
    np.testing.assert_allclose(loss.array, _ref(x, t, ignore_label=2), rtol=1e-6)


def test_softmax_cross_entropy_backward_array_with_label_variable_needing_grad():
    # A label Variable left with requires_grad=True is a target of backward;
    # it gets no gradient while x gets its own.
    x = Variable(np.zeros((2, 3), np.float32))
    t = Variable(np.array([0, 2], np.int32))
    F.softmax_cross_entropy(x, t).backward()
    assert t.grad is None
    expected = np.full((2, 3), 1 / 6, np.float32)
    expected[[0, 1], [0, 2]] -= 0.5
    np.testing.assert_allclose(x.grad, expected, rtol=1e-6)


@pytest.mark.parametrize(
    "cw,match",
    [
        (np.ones((1, 3), np.float32), "shape"),
        (np.ones(3, np.int32), "float"),
        (kusari.Variable(np.ones(3, np.float32)), "not a Variable"),
    ],
)
def test_class_weight_checked_before_x(cw, match):
    # v7 checks class_weight first: an int x does not hide a bad weight.
    x = np.zeros((2, 3), np.int64)
    with pytest.raises(ValueError, match=match):
        F.softmax_cross_entropy(x, np.zeros(2, np.int32), class_weight=cw)


@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 2, 2)])
@pytest.mark.parametrize("cache_score", [True, False])
def test_creator_y_is_the_cached_softmax(shape, cache_score):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    t = rng.integers(0, 3, (shape[0],) + shape[2:]).astype(np.int32)
    loss = F.softmax_cross_entropy(kusari.Variable(x), t, cache_score=cache_score)
    y = loss.creator.y
    if not cache_score:
        assert y is None
        return
    expected = np.exp(x - x.max(axis=1, keepdims=True))
    expected /= expected.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "xs,xk,ts,tk",
    [
        ((4, 3), "f", (4,), "i"),
        ((4, 3, 5), "f", (4, 5), "i"),
        ((4, 3), "i", (4,), "i"),  # integer scores
        ((4, 3), "f", (4,), "f"),  # float labels
        ((4, 3), "f", (5,), "i"),  # batch mismatch
        ((4, 3), "f", (4, 1), "i"),  # label ndim
        ((4, 3, 5), "f", (4, 6), "i"),  # spatial mismatch
    ],
)
def test_type_check_on_sight_agrees_with_full_check(xs, xk, ts, tk):
    from kusari.functions.loss.softmax_cross_entropy import SoftmaxCrossEntropy

    kinds = {"f": np.float32, "i": np.int32}
    arrays = (np.zeros(xs, kinds[xk]), np.zeros(ts, kinds[tk]))
    f = SoftmaxCrossEntropy()
    try:
        f.check_type_forward(type_check.get_types(arrays, "in_types", False))
        full = True
    except type_check.InvalidType:
        full = False
    light = type_check.get_light_types(arrays)
    if full:
        with type_check.light_mode:
            f.check_type_forward(light)
    else:
        with pytest.raises(type_check.InvalidType):
            with type_check.light_mode:
                f.check_type_forward(light)


def test_row_index_is_kept_read_only_per_batch_size():
    from kusari.functions.loss import softmax_cross_entropy as sce

    rng = np.random.default_rng(4)
    for n in (3, 7, 3) + tuple(range(20, 40)):
        x = rng.standard_normal((n, 5)).astype(np.float32)
        t = rng.integers(0, 5, n).astype(np.int32)
        v = Variable(x)
        loss = F.softmax_cross_entropy(v, t)
        loss.backward()
        np.testing.assert_allclose(loss.array, _ref(x, t), rtol=1e-5)
        p = np.exp(_log_softmax(x.astype(np.float64)))
        p[np.arange(n), t] -= 1
        np.testing.assert_allclose(v.grad, p / n, rtol=1e-5, atol=1e-7)
        rows = sce._rows(n)
        assert not rows.flags.writeable
        np.testing.assert_array_equal(rows, np.arange(n))
    assert len(sce._aranges) <= 16
