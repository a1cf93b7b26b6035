import numpy as np
import pytest

from kusari_cv.utils import bbox_iou


def naive_iou(a, b):
    out = np.zeros((len(a), len(b)))
    for i, p in enumerate(a):
        for j, q in enumerate(b):
            h = max(0.0, min(p[2], q[2]) - max(p[0], q[0]))
            w = max(0.0, min(p[3], q[3]) - max(p[1], q[1]))
            inter = h * w
            union = (
                (p[2] - p[0]) * (p[3] - p[1]) + (q[2] - q[0]) * (q[3] - q[1]) - inter
            )
            out[i, j] = inter / union
    return out


def random_boxes(rng, n):
    tl = rng.uniform(0, 50, (n, 2))
    return np.concatenate((tl, tl + rng.uniform(1, 30, (n, 2))), axis=1)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n,k", [(1, 1), (7, 5), (0, 3), (4, 0)])
def test_against_naive(dtype, n, k):
    rng = np.random.default_rng(n * 10 + k)
    a, b = random_boxes(rng, n).astype(dtype), random_boxes(rng, k).astype(dtype)
    iou = bbox_iou(a, b)
    assert iou.shape == (n, k) and iou.dtype == dtype
    np.testing.assert_allclose(iou, naive_iou(a, b), rtol=1e-5, atol=1e-7)


def test_by_hand():
    a = np.array([[0, 0, 10, 10], [5, 5, 15, 15]], np.float32)
    b = np.array([[0, 0, 10, 10], [10, 10, 20, 20], [0, 5, 10, 15]], np.float32)
    np.testing.assert_allclose(
        bbox_iou(a, b), [[1, 0, 50 / 150], [25 / 175, 25 / 175, 50 / 150]], rtol=1e-6
    )


def test_touching_and_empty_boxes():
    a = np.array([[0, 0, 0, 0]], np.float32)
    assert np.isnan(bbox_iou(a, a)[0, 0])  # 0 / 0, as in ChainerCV
    b = np.array([[0, 0, 10, 10]], np.float32)
    c = np.array([[10, 0, 20, 10]], np.float32)
    assert bbox_iou(b, c)[0, 0] == 0


def test_inputs_are_not_modified():
    a = np.array([[0, 0, 10, 10]], np.float32)
    before = a.copy()
    bbox_iou(a, a)
    np.testing.assert_array_equal(a, before)


def test_wrong_shape():
    with pytest.raises(
        ValueError, match=r"bbox_iou: bbox_b must have shape \(R, 4\), got \(3, 5\)"
    ):
        bbox_iou(np.zeros((2, 4)), np.zeros((3, 5)))
    with pytest.raises(IndexError):  # ChainerCV raised IndexError; still caught
        bbox_iou(np.zeros((2, 3)), np.zeros((3, 4)))


def test_integer_boxes_give_float_iou():
    a = np.array([[0, 0, 2, 2]], np.int32)
    b = np.array([[1, 1, 3, 3]], np.int32)
    iou = bbox_iou(a, b)
    assert iou.dtype == np.float64
    assert iou[0, 0] == pytest.approx(1 / 7)
