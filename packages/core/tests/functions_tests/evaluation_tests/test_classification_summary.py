import numpy as np
import pytest

import kusari.functions as F
from kusari import backend
from kusari.functions.evaluation.classification_summary import fbeta_score
from kusari.utils import type_check


def _reference(y, t, label_num, beta, ignore_label):
    pred = y.argmax(axis=1).ravel()
    t = t.ravel()
    keep = t != ignore_label
    pred, t = pred[keep], t[keep]
    p, r, f, s = [], [], [], []
    with np.errstate(divide="ignore", invalid="ignore"):
        for c in range(label_num):
            tp = np.sum((pred == c) & (t == c))
            p.append(tp / np.sum(pred == c))
            r.append(tp / np.sum(t == c))
            f.append((1 + beta**2) * p[-1] * r[-1] / (beta**2 * p[-1] + r[-1]))
            s.append(np.sum(t == c))
    return np.array(p), np.array(r), np.array(f), np.array(s)


def _host(v):
    return backend.CpuDevice().send(v.array)


@pytest.mark.parametrize("y_shape,t_shape", [((30, 4), (30,)), ((5, 4, 3), (5, 3))])
@pytest.mark.parametrize(
    "label_num,beta,ignore_label", [(None, 1.0, -1), (4, 2.0, -1), (5, 0.5, 0)]
)
def test_classification_summary(
    y_shape, t_shape, label_num, beta, ignore_label, float_dtype, device
):
    rng = np.random.default_rng(0)
    y = rng.uniform(-1, 1, y_shape).astype(float_dtype)
    t = rng.integers(min(ignore_label, 0), 4, t_shape).astype(np.int32)
    t.flat[0] = 3  # max(t) + 1 == 4 for label_num=None
    dev = backend.get_device(device)
    outs = F.classification_summary(
        dev.send(y),
        dev.send(t),
        label_num=label_num,
        beta=beta,
        ignore_label=ignore_label,
    )
    n = 4 if label_num is None else label_num
    expected = _reference(y, t, n, beta, ignore_label)
    assert len(outs) == 4
    for o, e in zip(outs[:3], expected[:3], strict=True):
        assert o.shape == (n,) and o.dtype == np.float64
        np.testing.assert_allclose(_host(o), e, rtol=1e-6)
    assert outs[3].dtype.kind == "i"
    np.testing.assert_array_equal(_host(outs[3]), expected[3])


def test_precision_recall_f1():
    y = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4], [0.3, 0.7]], np.float32)
    t = np.array([0, 1, 1, 0], np.int32)
    p, s = F.precision(y, t)
    r, s2 = F.recall(y, t)
    f, s3 = F.f1_score(y, t)
    fb, _ = fbeta_score(y, t, beta=2.0)
    np.testing.assert_allclose(p.array, [0.5, 0.5])
    np.testing.assert_allclose(r.array, [0.5, 0.5])
    np.testing.assert_allclose(f.array, [0.5, 0.5])
    np.testing.assert_allclose(fb.array, [0.5, 0.5])
    np.testing.assert_array_equal(s.array, [2, 2])
    np.testing.assert_array_equal(s2.array, s3.array)


def test_undefined_precision_is_nan():
    y = np.array([[0.9, 0.1], [0.6, 0.4]], np.float32)
    p, _ = F.precision(y, np.array([0, 1], np.int32))
    assert p.array[0] == 0.5 and np.isnan(p.array[1])


@pytest.mark.parametrize("label_dtype", [np.int8, np.int16, np.int64])
def test_classification_summary_any_signed_int_labels(label_dtype):
    y = np.eye(3, dtype=np.float32)[[0, 1, 2, 1, 0]]
    t = np.array([0, 1, 1, -1, 2], label_dtype)
    p, r, f, s = F.classification_summary(y, t)
    np.testing.assert_allclose(p.array, [0.5, 1.0, 0.0])
    np.testing.assert_allclose(r.array, [1.0, 0.5, 0.0])
    np.testing.assert_array_equal(s.array, [1, 2, 1])


def test_classification_summary_int8_labels_with_many_classes():
    # The extra bin for ignored samples is label_num (here 200), which an
    # int8 array cannot hold.
    y = np.zeros((2, 200), np.float32)
    y[0, 5] = y[1, 7] = 1
    _, r, _, s = F.classification_summary(y, np.array([5, -1], np.int8), 200)
    assert r.array[5] == 1 and s.array.sum() == 1


def test_classification_summary_needs_integer_labels():
    with pytest.raises(type_check.InvalidType, match="kind"):
        F.classification_summary(np.zeros((2, 3), np.float32), np.zeros(2, np.float32))


def test_classification_summary_bad_label_num():
    with pytest.raises(ValueError, match="label_num"):
        F.classification_summary(
            np.zeros((2, 3), np.float32), np.zeros(2, np.int32), label_num=0
        )


def test_classification_summary_label_out_of_range():
    y = np.zeros((3, 2), np.float32)
    with pytest.raises(ValueError, match="labels must be in"):
        F.classification_summary(y, np.array([0, 2, 1], np.int32), label_num=2)
    with pytest.raises(ValueError, match="labels must be in"):
        F.classification_summary(y, np.array([0, -2, 1], np.int32))
