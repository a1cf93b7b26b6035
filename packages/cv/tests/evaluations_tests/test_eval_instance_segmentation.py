import numpy as np
import pytest

from kusari_cv.evaluations import (
    calc_instance_segmentation_voc_prec_rec,
    eval_instance_segmentation_coco,
    eval_instance_segmentation_voc,
)

from . import _coco_reference as ref
from .test_eval_detection_coco import STATS, _stat


def _rect_masks(boxes, size=(64, 80)):
    masks = np.zeros((len(boxes), *size), dtype=bool)
    for m, (y0, x0, y1, x1) in zip(masks, boxes):
        m[y0:y1, x0:x1] = True
    return masks


def test_voc_by_hand():
    gt = [_rect_masks([(0, 0, 10, 10), (20, 20, 30, 40)])]
    # First prediction equals gt 0; the second covers half of gt 1 (IoU 0.5);
    # the third repeats gt 0 (a duplicate, so a false positive).
    pred = [_rect_masks([(0, 0, 10, 10), (20, 20, 30, 30), (0, 0, 10, 10)])]
    args = (
        pred,
        [np.array([0, 0, 0])],
        [np.array([0.9, 0.8, 0.7])],
        gt,
        [np.array([0, 0])],
    )
    prec, rec = calc_instance_segmentation_voc_prec_rec(*args, iou_thresh=0.5)
    np.testing.assert_allclose(prec[0], [1, 1, 2 / 3])
    np.testing.assert_allclose(rec[0], [0.5, 1, 1])
    assert eval_instance_segmentation_voc(*args)["map"] == pytest.approx(1.0)
    prec, rec = calc_instance_segmentation_voc_prec_rec(*args, iou_thresh=0.6)
    np.testing.assert_allclose(prec[0], [1, 0.5, 1 / 3])
    assert eval_instance_segmentation_voc(*args, iou_thresh=0.6)[
        "map"
    ] == pytest.approx(0.5)


def _random_masks(rng, n, size=(48, 64)):
    boxes = []
    for _ in range(n):
        y0, x0 = int(rng.integers(0, 30)), int(rng.integers(0, 40))
        boxes.append(
            (y0, x0, y0 + int(rng.integers(2, 18)), x0 + int(rng.integers(2, 24)))
        )
    masks = _rect_masks(boxes, size)
    # Knock out random pixels so the masks are not just rectangles.
    return masks & (rng.uniform(size=masks.shape) < 0.8)


@pytest.mark.parametrize("seed", [0, 1])
def test_coco_matches_pycocotools(seed):
    rng = np.random.default_rng(seed)
    preds, pl, ps, gts, gl, ga, gc = ([] for _ in range(7))
    for i in range(5):
        n_g = 0 if i == 0 else int(rng.integers(1, 5))
        gt = _random_masks(rng, n_g)
        g_label = rng.integers(0, 3, n_g).astype(np.int32)
        keep = rng.uniform(size=(n_g, 1, 1)) < 0.9
        hits = gt & keep & (rng.uniform(size=gt.shape) < 0.9)
        clutter = _random_masks(rng, int(rng.integers(0, 4)))
        pred = np.concatenate((hits, clutter))
        preds.append(pred)
        pl.append(
            np.concatenate((g_label, rng.integers(0, 4, len(clutter)))).astype(np.int32)
        )
        ps.append(np.round(rng.uniform(size=len(pred)), 1).astype(np.float32))
        gts.append(gt)
        gl.append(g_label)
        ga.append(gt.sum(axis=(1, 2)).astype(np.float32) * rng.uniform(0.5, 40, n_g))
        gc.append(rng.uniform(size=n_g) < 0.2)
    ev, stats, labels = ref.run("segm", preds, pl, ps, gts, gl, ga, gc)
    result = eval_instance_segmentation_coco(preds, pl, ps, gts, gl, ga, gc)
    for i, (key, is_ap, iou, area, max_det) in enumerate(STATS):
        expected = np.full(max(labels) + 1, np.nan)
        expected[labels] = ref.per_class(ev, is_ap, iou, area, max_det)
        np.testing.assert_allclose(
            result[key], expected, rtol=1e-6, atol=1e-7, err_msg=key
        )
        np.testing.assert_allclose(
            result["m" + key], _stat(stats[i]), rtol=1e-6, atol=1e-7, err_msg=key
        )


def test_coco_bad_masks():
    with pytest.raises(ValueError, match=r"masks must have shape \(R, H, W\)"):
        eval_instance_segmentation_coco(
            [np.zeros((4, 4), bool)],
            [np.zeros(4, np.int32)],
            [np.zeros(4)],
            [np.zeros((1, 4, 4), bool)],
            [np.zeros(1, np.int32)],
        )
