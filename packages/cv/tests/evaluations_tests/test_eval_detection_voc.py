import numpy as np
import pytest

from kusari_cv.evaluations import (
    calc_detection_voc_ap,
    calc_detection_voc_prec_rec,
    eval_detection_voc,
)


def box(y0, x0, y1, x1):
    return [y0, x0, y1, x1]


def hand_case():
    """Two images. Class 0: gt A, B (difficult) in image 1 and D in image 2;
    predictions: A (0.9, TP), B (0.8, on a difficult: ignored), A again
    (0.7, duplicate: FP), D (0.65, TP), far away (0.6, FP). Class 1 has one
    ground truth and no prediction; class 2 only a prediction."""
    gt_bboxes = [
        np.array([box(0, 0, 9, 9), box(20, 20, 29, 29), box(0, 20, 9, 29)], np.float32),
        np.array([box(0, 0, 9, 9)], np.float32),
    ]
    gt_labels = [np.array([0, 0, 1], np.int32), np.array([0], np.int32)]
    gt_difficults = [np.array([False, True, False]), np.array([False])]
    pred_bboxes = [
        np.array(
            [
                box(0, 0, 9, 9),
                box(20, 20, 29, 29),
                box(0, 0, 9, 9),
                box(50, 50, 59, 59),
            ],
            np.float32,
        ),
        np.array([box(0, 0, 9, 9), box(40, 40, 49, 49)], np.float32),
    ]
    pred_labels = [np.array([0, 0, 0, 0], np.int32), np.array([0, 2], np.int32)]
    pred_scores = [
        np.array([0.9, 0.8, 0.7, 0.6], np.float32),
        np.array([0.65, 0.5], np.float32),
    ]
    return pred_bboxes, pred_labels, pred_scores, gt_bboxes, gt_labels, gt_difficults


def test_prec_rec_by_hand():
    prec, rec = calc_detection_voc_prec_rec(*hand_case())
    assert len(prec) == len(rec) == 3
    # Sorted: TP, ignored, FP, TP, FP with 2 non-difficult positives.
    np.testing.assert_allclose(prec[0], [1, 1, 0.5, 2 / 3, 0.5])
    np.testing.assert_allclose(rec[0], [0.5, 0.5, 0.5, 1, 1])
    assert len(prec[1]) == 0 and len(rec[1]) == 0
    np.testing.assert_allclose(prec[2], [0.0])
    assert rec[2] is None


def test_ap_by_hand():
    result = eval_detection_voc(*hand_case())
    # Area under the envelope: 0.5 * 1 + 0.5 * 2/3.
    np.testing.assert_allclose(result["ap"][:2], [5 / 6, 0.0])
    assert np.isnan(result["ap"][2])
    assert result["map"] == pytest.approx(5 / 12)


def test_ap_07_metric_by_hand():
    result = eval_detection_voc(*hand_case(), use_07_metric=True)
    # Recall thresholds 0..0.5 see precision 1, 0.6..1.0 see 2/3.
    assert result["ap"][0] == pytest.approx((6 + 5 * 2 / 3) / 11)
    assert result["ap"][1] == 0


def test_difficult_ignored_only_when_given():
    args = hand_case()
    result = eval_detection_voc(*args[:5])
    # Without the flag, B counts: 3 positives and the 0.8 box is a TP.
    prec, rec = calc_detection_voc_prec_rec(*args[:5])
    np.testing.assert_allclose(prec[0], [1, 1, 2 / 3, 3 / 4, 3 / 5])
    np.testing.assert_allclose(rec[0], [1 / 3, 2 / 3, 2 / 3, 1, 1])
    assert result["ap"][0] == pytest.approx(1 / 3 + 1 / 3 + 1 / 3 * 3 / 4)


def test_iou_thresh_and_voc_pixel_convention():
    # gt [0, 0, 9, 9] is 10x10 pixels in VOC's inclusive convention; the
    # prediction [0, 0, 9, 4] covers 50 of them: IoU 0.5 exactly (without the
    # + 1 it would be 45/90 = 0.5 too, so use [0, 0, 9, 3]: 40/100 vs 36/90).
    gt = [np.array([box(0, 0, 9, 9)], np.float32)]
    pred = [np.array([box(0, 0, 9, 3)], np.float32)]
    args = (
        pred,
        [np.array([0], np.int32)],
        [np.array([1.0], np.float32)],
        gt,
        [np.array([0], np.int32)],
    )
    assert eval_detection_voc(*args, iou_thresh=0.4)["ap"][0] == 1.0
    assert eval_detection_voc(*args, iou_thresh=0.41)["ap"][0] == 0.0


def _naive_prec_rec(
    pred_bboxes, pred_labels, pred_scores, gt_bboxes, gt_labels, thresh
):
    """A plain re-statement of VOC matching (no difficult), for random tests."""
    n_class = max(int(np.max(np.concatenate(x))) for x in (pred_labels, gt_labels)) + 1
    prec, rec = [], []
    for c in range(n_class):
        records, n_pos = [], 0
        for pb, pl, ps, gb, gl in zip(
            pred_bboxes, pred_labels, pred_scores, gt_bboxes, gt_labels
        ):
            g = gb[gl == c]
            n_pos += len(g)
            p, s = pb[pl == c], ps[pl == c]
            order = np.argsort(s, kind="stable")[::-1]
            used = set()
            for i in order:
                best, best_j = -1.0, -1
                for j in range(len(g)):
                    lo = np.maximum(p[i, :2], g[j, :2])
                    hi = np.minimum(p[i, 2:] + 1, g[j, 2:] + 1)
                    inter = np.prod(np.clip(hi - lo, 0, None))
                    a = np.prod(p[i, 2:] + 1 - p[i, :2])
                    b = np.prod(g[j, 2:] + 1 - g[j, :2])
                    iou = inter / (a + b - inter)
                    if iou > best:
                        best, best_j = iou, j
                hit = best >= thresh and best_j not in used
                if best >= thresh:
                    used.add(best_j)
                records.append((s[i], hit))
        scores = np.array([r[0] for r in records], np.float32)
        hits = np.array([r[1] for r in records], bool)[
            np.argsort(scores, kind="stable")[::-1]
        ]
        tp, fp = np.cumsum(hits), np.cumsum(~hits)
        prec.append(tp / np.maximum(tp + fp, 1))
        rec.append(tp / n_pos if n_pos else None)
    return prec, rec


@pytest.mark.parametrize("seed", range(3))
def test_random_against_naive(seed):
    rng = np.random.default_rng(seed)
    data = ([], [], [], [], [])
    for _ in range(5):
        n_g, n_p = int(rng.integers(1, 6)), int(rng.integers(0, 12))
        tl = rng.uniform(0, 50, (n_g, 2))
        gt = np.concatenate((tl, tl + rng.uniform(5, 30, (n_g, 2))), 1).astype(
            np.float32
        )
        idx = rng.integers(0, n_g, n_p)
        pred = (gt[idx] + rng.normal(0, 3, (n_p, 4))).astype(np.float32)
        data[0].append(pred)
        data[1].append(rng.integers(0, 3, n_p).astype(np.int32))
        data[2].append(np.round(rng.uniform(size=n_p), 1).astype(np.float32))  # ties
        data[3].append(gt)
        data[4].append(rng.integers(0, 3, n_g).astype(np.int32))
    prec, rec = calc_detection_voc_prec_rec(*data, iou_thresh=0.5)
    e_prec, e_rec = _naive_prec_rec(*data, 0.5)
    for c in range(len(e_prec)):
        if e_rec[c] is None:
            assert rec[c] is None
            continue
        np.testing.assert_allclose(prec[c], e_prec[c])
        np.testing.assert_allclose(rec[c], e_rec[c])


def test_ap_from_curves_directly():
    prec = [np.array([1.0, 0.5, 2 / 3]), None, np.array([np.nan, 1.0])]
    rec = [np.array([0.5, 0.5, 1.0]), np.array([0.0]), np.array([0.0, 1.0])]
    ap = calc_detection_voc_ap(prec, rec)
    assert ap[0] == pytest.approx(0.5 * 1 + 0.5 * 2 / 3)
    assert np.isnan(ap[1])
    assert ap[2] == pytest.approx(1.0)


def test_length_mismatch():
    args = list(hand_case())
    args[0] = args[0] + args[0][:1]
    with pytest.raises(ValueError, match="eval_detection_voc|same length"):
        eval_detection_voc(*args)
