import numpy as np
import pytest

from kusari_cv.evaluations import eval_detection_coco

from . import _coco_reference as ref

# (key, is AP, IoU, area, max dets) in the order of COCOeval.stats.
STATS = [
    ("ap/iou=0.50:0.95/area=all/max_dets=100", True, None, "all", 100),
    ("ap/iou=0.50/area=all/max_dets=100", True, 0.5, "all", 100),
    ("ap/iou=0.75/area=all/max_dets=100", True, 0.75, "all", 100),
    ("ap/iou=0.50:0.95/area=small/max_dets=100", True, None, "small", 100),
    ("ap/iou=0.50:0.95/area=medium/max_dets=100", True, None, "medium", 100),
    ("ap/iou=0.50:0.95/area=large/max_dets=100", True, None, "large", 100),
    ("ar/iou=0.50:0.95/area=all/max_dets=1", False, None, "all", 1),
    ("ar/iou=0.50:0.95/area=all/max_dets=10", False, None, "all", 10),
    ("ar/iou=0.50:0.95/area=all/max_dets=100", False, None, "all", 100),
    ("ar/iou=0.50:0.95/area=small/max_dets=100", False, None, "small", 100),
    ("ar/iou=0.50:0.95/area=medium/max_dets=100", False, None, "medium", 100),
    ("ar/iou=0.50:0.95/area=large/max_dets=100", False, None, "large", 100),
]


def _stat(value):
    """pycocotools reports -1 where ChainerCV (and kusari_cv) report nan."""
    return np.nan if value == -1 else value


def _boxes(rng, n, max_side=150):
    tl = rng.uniform(0, 200, size=(n, 2))
    side = rng.uniform(3, max_side, size=(n, 2))
    return np.concatenate((tl, tl + side), axis=1).astype(np.float32)


def make_data(seed, n_img=8, with_extra=True):
    """Random detections with the awkward cases: an image without anything,
    images without predictions, a class never predicted (3), a class with no
    ground truth (4), crowds, tied scores and many predictions per image."""
    rng = np.random.default_rng(seed)
    preds, p_labels, p_scores, gts, g_labels, g_areas, g_crowds = ([] for _ in range(7))
    for i in range(n_img):
        n_gt = 0 if i == 0 else int(rng.integers(1, 7))
        gt = _boxes(rng, n_gt)
        g_label = rng.integers(0, 4, size=n_gt).astype(np.int32)
        # Near-copies of the ground truth (hits at various IoUs) plus clutter.
        jitter = rng.normal(0, 6, size=gt.shape).astype(np.float32)
        hits = gt + jitter
        hit_label = np.where(g_label == 3, 2, g_label).astype(np.int32)
        n_clutter = 0 if i in (0, 1) else int(rng.integers(0, 15 if with_extra else 3))
        clutter = _boxes(rng, n_clutter)
        c_label = rng.integers(0, 5, size=n_clutter).astype(np.int32)
        c_label[c_label == 3] = 4
        pred = (
            np.concatenate((hits, clutter)) if i != 1 else np.zeros((0, 4), np.float32)
        )
        p_label = (
            np.concatenate((hit_label, c_label)) if i != 1 else np.zeros(0, np.int32)
        )
        # Scores on a coarse grid, so that many tie.
        score = np.round(rng.uniform(0, 1, size=len(pred)), 1).astype(np.float32)
        preds.append(pred.astype(np.float32))
        p_labels.append(p_label)
        p_scores.append(score)
        gts.append(gt)
        g_labels.append(g_label)
        g_areas.append(
            (
                (gt[:, 2] - gt[:, 0])
                * (gt[:, 3] - gt[:, 1])
                * rng.uniform(0.5, 1.0, n_gt)
            ).astype(np.float32)
        )
        g_crowds.append(rng.uniform(size=n_gt) < 0.15)
    return preds, p_labels, p_scores, gts, g_labels, g_areas, g_crowds


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("with_areas", [True, False])
def test_matches_pycocotools(seed, with_areas):
    preds, pl, ps, gts, gl, ga, gc = make_data(seed)
    areas = ga if with_areas else None
    ev, stats, labels = ref.run("bbox", preds, pl, ps, gts, gl, areas, gc)
    result = eval_detection_coco(preds, pl, ps, gts, gl, areas, gc)
    np.testing.assert_array_equal(result["existent_labels"], labels)
    assert labels == [0, 1, 2, 3, 4]
    for i, (key, is_ap, iou, area, max_det) in enumerate(STATS):
        if area != "all" and not with_areas:
            assert key not in result
            continue
        expected = np.full(max(labels) + 1, np.nan)
        expected[labels] = ref.per_class(ev, is_ap, iou, area, max_det)
        np.testing.assert_allclose(
            result[key], expected, rtol=1e-6, atol=1e-7, err_msg=key
        )
        # pycocotools' own summary number (mean over all entries).
        if with_areas or area == "all":
            np.testing.assert_allclose(
                result["m" + key], _stat(stats[i]), rtol=1e-6, atol=1e-7, err_msg=key
            )
    # Class 3 has ground truth but is never predicted: AP 0, not nan.
    assert result["ap/iou=0.50:0.95/area=all/max_dets=100"][3] == 0
    # Class 4 is only predicted: no ground truth, so nan.
    assert np.isnan(result["ap/iou=0.50:0.95/area=all/max_dets=100"][4])


def test_many_detections_per_image_hits_the_limits():
    # More than 100 detections in one image and class exercise the cut to
    # the 100 best, and max_dets=1/10 differ from 100.
    rng = np.random.default_rng(5)
    gt = _boxes(rng, 30)
    pred = np.concatenate([gt + rng.normal(0, 4, gt.shape) for _ in range(5)])
    pred = pred.astype(np.float32)
    score = np.round(rng.uniform(size=len(pred)), 2).astype(np.float32)
    args = (
        [pred],
        [np.zeros(len(pred), np.int32)],
        [score],
        [gt],
        [np.zeros(30, np.int32)],
    )
    ev, stats, _ = ref.run("bbox", *args, None, None)
    result = eval_detection_coco(*args)
    for i, (key, *_rest) in enumerate(STATS):
        if "area=all" in key:
            np.testing.assert_allclose(
                result["m" + key], _stat(stats[i]), rtol=1e-6, atol=1e-7
            )
    assert (
        result["mar/iou=0.50:0.95/area=all/max_dets=1"]
        < result["mar/iou=0.50:0.95/area=all/max_dets=100"]
    )


def test_perfect_detections():
    gt = np.array([[0, 0, 10, 10], [20, 20, 60, 50]], dtype=np.float32)
    label = np.array([0, 1], dtype=np.int32)
    result = eval_detection_coco(
        [gt], [label], [np.array([0.9, 0.8], np.float32)], [gt], [label]
    )
    assert result["map/iou=0.50:0.95/area=all/max_dets=100"] == pytest.approx(1.0)
    assert result["mar/iou=0.50:0.95/area=all/max_dets=1"] == pytest.approx(1.0)


def test_nothing_at_all():
    empty = np.zeros((0, 4), np.float32)
    none = np.zeros(0, np.int32)
    result = eval_detection_coco([empty], [none], [np.zeros(0)], [empty], [none])
    assert len(result["ap/iou=0.50:0.95/area=all/max_dets=100"]) == 0
    assert np.isnan(result["map/iou=0.50:0.95/area=all/max_dets=100"])


def test_bad_input():
    bbox = np.zeros((2, 5), np.float32)
    label = np.zeros(2, np.int32)
    with pytest.raises(
        ValueError, match=r"eval_detection_coco: bbox must have shape \(R, 4\)"
    ):
        eval_detection_coco([bbox], [label], [np.zeros(2)], [bbox], [label])
    good = np.zeros((2, 4), np.float32)
    with pytest.raises(ValueError, match="as many labels and scores"):
        eval_detection_coco([good], [label], [np.zeros(3)], [good], [label])
    with pytest.raises(ValueError, match="same length"):
        eval_detection_coco([good, good], [label], [np.zeros(2)], [good], [label])
