import numpy as np
import pytest

from kusari_cv.evaluations import (
    calc_semantic_segmentation_confusion,
    calc_semantic_segmentation_iou,
    eval_semantic_segmentation,
)


def test_by_hand():
    pred = [np.array([[0, 1, 1], [2, 2, 0]]), np.array([[1, 1]])]
    gt = [np.array([[0, 1, 2], [2, -1, 1]]), np.array([[1, 0]])]
    confusion = calc_semantic_segmentation_confusion(pred, gt)
    # rows: truth, cols: prediction; the -1 pixel is skipped.
    expected = np.array([[1, 1, 0], [1, 2, 0], [0, 1, 1]])
    np.testing.assert_array_equal(confusion, expected)
    iou = calc_semantic_segmentation_iou(confusion)
    np.testing.assert_allclose(iou, [1 / 3, 2 / 5, 1 / 2])
    r = eval_semantic_segmentation(pred, gt)
    np.testing.assert_allclose(r["iou"], iou)
    assert r["miou"] == pytest.approx(np.mean([1 / 3, 2 / 5, 1 / 2]))
    assert r["pixel_accuracy"] == pytest.approx(4 / 7)
    np.testing.assert_allclose(r["class_accuracy"], [1 / 2, 2 / 3, 1 / 2])
    assert r["mean_class_accuracy"] == pytest.approx(np.mean([1 / 2, 2 / 3, 1 / 2]))


def test_absent_class_is_nan_and_matrix_grows():
    pred = [np.array([[0, 0]]), np.array([[3, 0]])]
    gt = [np.array([[0, 0]]), np.array([[0, 0]])]
    r = eval_semantic_segmentation(pred, gt)
    assert r["iou"].shape == (4,)
    assert np.isnan(r["iou"][1]) and np.isnan(r["iou"][2])
    assert r["iou"][3] == 0
    assert r["iou"][0] == pytest.approx(3 / 4)
    assert np.isnan(r["class_accuracy"][3])


@pytest.mark.parametrize("seed", [0, 1])
def test_random_against_direct_count(seed):
    rng = np.random.default_rng(seed)
    pred = [rng.integers(0, 5, (7, 9)) for _ in range(3)]
    gt = [rng.integers(-1, 5, (7, 9)) for _ in range(3)]
    confusion = calc_semantic_segmentation_confusion(pred, gt)
    expected = np.zeros((5, 5), np.int64)
    for p, g in zip(pred, gt):
        for i, j in zip(g.ravel(), p.ravel()):
            if i >= 0:
                expected[i, j] += 1
    np.testing.assert_array_equal(confusion, expected)


def test_bad_input():
    with pytest.raises(ValueError, match="must be 2D"):
        calc_semantic_segmentation_confusion(
            [np.zeros((1, 2, 2), int)], [np.zeros((2, 2), int)]
        )
    with pytest.raises(ValueError, match="shapes differ"):
        calc_semantic_segmentation_confusion(
            [np.zeros((2, 3), int)], [np.zeros((2, 2), int)]
        )
    with pytest.raises(ValueError, match="same length"):
        calc_semantic_segmentation_confusion(
            [np.zeros((2, 2), int)] * 2, [np.zeros((2, 2), int)]
        )
