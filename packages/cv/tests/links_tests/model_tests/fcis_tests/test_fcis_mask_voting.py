import numpy as np
import pytest

from kusari_cv.links.model.fcis import mask_voting

SIZE = (20, 24)


def vote(roi_mask, bbox, cls_prob, **kwargs):
    params = {
        "score_thresh": 0.5,
        "nms_thresh": 0.3,
        "mask_merge_thresh": 0.5,
        "binary_thresh": 0.4,
    }
    params.update(kwargs)
    return mask_voting(
        np.asarray(roi_mask, np.float32),
        np.asarray(bbox, np.float32).reshape(-1, 4),
        np.asarray(cls_prob, np.float32),
        SIZE,
        **params,
    )


# A and B overlap (IoU 64/72) and are class 1; C is apart and class 2.
BBOX = [[0, 0, 8, 8], [0, 0, 8, 9], [10, 10, 18, 18]]
CLS_PROB = [[0.1, 0.8, 0.1], [0.2, 0.6, 0.2], [0.1, 0.2, 0.7]]


def test_overlapping_masks_vote_with_class_weights():
    roi_mask = np.ones((3, 8, 8))
    masks, bbox, label, score = vote(roi_mask, BBOX, CLS_PROB)
    np.testing.assert_array_equal(label, [0, 1])
    np.testing.assert_allclose(score, [0.8, 0.7])
    # Column 8 is inside B only: its vote is 0.6 / (0.8 + 0.6) = 0.43, which
    # passes binary_thresh 0.4, so the voted box widens to B's.
    np.testing.assert_array_equal(bbox, [[0, 0, 8, 9], [10, 10, 18, 18]])
    assert masks.shape == (2, 8, 8)
    assert masks.dtype == np.float32
    np.testing.assert_allclose(masks[1], 1.0)
    np.testing.assert_allclose(masks[0][:, :6], 1.0, atol=1e-6)
    assert 0.4 < masks[0][:, -1].min() < 0.6
    # With a higher binary threshold the weak column is dropped.
    _, bbox, _, _ = vote(roi_mask, BBOX, CLS_PROB, binary_thresh=0.5)
    np.testing.assert_array_equal(bbox[0], [0, 0, 8, 8])


def test_voted_box_follows_the_mask_pixels():
    roi_mask = np.zeros((3, 8, 8))
    roi_mask[2, :, :4] = 1  # C's object is its left half
    masks, bbox, label, _ = vote(roi_mask, BBOX, CLS_PROB)
    # A and B vote for empty masks: nothing is returned for them.
    np.testing.assert_array_equal(label, [1])
    np.testing.assert_array_equal(bbox, [[10, 10, 18, 14]])
    np.testing.assert_allclose(masks[0], 1.0)


def test_limit_and_score_threshold():
    roi_mask = np.ones((3, 8, 8))
    _, _, label, score = vote(roi_mask, BBOX, CLS_PROB, limit=1)
    np.testing.assert_array_equal(label, [0])
    np.testing.assert_allclose(score, [0.8])
    _, _, label, _ = vote(roi_mask, BBOX, CLS_PROB, score_thresh=0.75)
    np.testing.assert_array_equal(label, [0])
    # A low threshold lets the suppression decide: B falls to A in class 1
    # (IoU 0.89 > 0.3); in class 2, B (0.2) beats A (0.1).
    _, bbox, label, score = vote(roi_mask, BBOX, CLS_PROB, score_thresh=0.05)
    assert sorted(zip(label.tolist(), score.astype(float).round(2).tolist())) == [
        (0, 0.2),
        (0, 0.8),
        (1, 0.2),
        (1, 0.7),
    ]


@pytest.mark.parametrize("n_roi", [0, 3])
def test_nothing_detected_gives_empty_typed_arrays(n_roi):
    roi_mask = np.ones((n_roi, 8, 8))
    cls_prob = np.tile([[1.0, 0.0, 0.0]], (n_roi, 1))
    masks, bbox, label, score = vote(roi_mask, BBOX[:n_roi], cls_prob)
    assert masks.shape == (0, 8, 8) and masks.dtype == np.float32
    assert bbox.shape == (0, 4) and bbox.dtype == np.float32
    assert label.shape == (0,) and label.dtype == np.int32
    assert score.shape == (0,) and score.dtype == np.float32
