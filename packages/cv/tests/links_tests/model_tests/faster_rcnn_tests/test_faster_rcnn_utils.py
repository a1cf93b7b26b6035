import numpy as np
import pytest

import kusari
from kusari_cv.links.model.faster_rcnn import (
    AnchorTargetCreator,
    ProposalCreator,
    ProposalTargetCreator,
    bbox2loc,
    generate_anchor_base,
    loc2bbox,
)
from kusari_cv.utils import bbox_iou


def _random_bbox(rng, n, size=100):
    yx = rng.uniform(0, size / 2, (n, 2))
    hw = rng.uniform(5, size / 2, (n, 2))
    return np.concatenate((yx, yx + hw), axis=1).astype(np.float32)


def test_bbox2loc_hand_case():
    src = np.array([[0, 0, 10, 20]], np.float32)
    dst = np.array([[5, -10, 25, 50]], np.float32)
    loc = bbox2loc(src, dst)
    np.testing.assert_allclose(loc, [[1.0, 0.5, np.log(2), np.log(3)]], rtol=1e-6)


def test_round_trip_and_class_wise_loc():
    rng = np.random.default_rng(0)
    src, dst = _random_bbox(rng, 7), _random_bbox(rng, 7)
    loc = bbox2loc(src, dst)
    np.testing.assert_allclose(loc2bbox(src, loc), dst, rtol=1e-5, atol=1e-4)
    # (R, 4 L): each group of four decodes on its own
    both = loc2bbox(src, np.concatenate((loc, np.zeros_like(loc)), axis=1))
    np.testing.assert_allclose(both[:, 4:], src, atol=1e-5)
    assert loc2bbox(
        np.zeros((0, 4), np.float32), np.zeros((0, 4), np.float32)
    ).shape == (0, 4)


def test_generate_anchor_base():
    anchor = generate_anchor_base(16, (0.5, 1, 2), (8, 16))
    assert anchor.shape == (6, 4) and anchor.dtype == np.float32
    h = anchor[:, 2] - anchor[:, 0]
    w = anchor[:, 3] - anchor[:, 1]
    np.testing.assert_allclose(h / w, [0.5, 0.5, 1, 1, 2, 2], rtol=1e-6)
    np.testing.assert_allclose(np.sqrt(h * w), [128, 256] * 3, rtol=1e-6)
    np.testing.assert_allclose((anchor[:, :2] + anchor[:, 2:]) / 2, 8)


def test_anchor_target_creator_hand_case():
    anchor = np.array(
        [
            [0, 0, 10, 10],  # IoU 1 with gt 0 -> positive
            [0, 0, 10, 12],  # IoU 10/12 >= 0.7 -> positive
            [0, 30, 10, 40],  # IoU 0 -> negative
            [20, 20, 32, 30],  # best anchor of gt 1 (IoU 0.6 < 0.7) -> positive
            [18, 18, 32, 32],  # IoU 0.51 with gt 1: neither -> ignored
            [-5, 0, 5, 10],  # crosses the border -> ignored
        ],
        np.float32,
    )
    bbox = np.array([[0, 0, 10, 10], [20, 20, 30, 32]], np.float32)
    creator = AnchorTargetCreator(n_sample=256)
    loc, label = creator(bbox, anchor, (50, 50))
    np.testing.assert_array_equal(label, [1, 1, 0, 1, -1, -1])
    assert label.dtype == np.int32 and loc.dtype == np.float32
    np.testing.assert_allclose(loc[0], 0, atol=1e-6)
    np.testing.assert_allclose(loc[3], bbox2loc(anchor[3:4], bbox[1:2])[0], rtol=1e-6)
    np.testing.assert_array_equal(loc[5], 0)


def test_anchor_target_creator_sampling_ratio():
    np.random.seed(0)
    rng = np.random.default_rng(1)
    anchor = _random_bbox(rng, 2000, 200)
    bbox = _random_bbox(rng, 5, 200)
    # loose thresholds make many positives and negatives
    creator = AnchorTargetCreator(
        n_sample=64, pos_iou_thresh=0.2, neg_iou_thresh=0.1, pos_ratio=0.25
    )
    _, label = creator(bbox, anchor, (200, 200))
    n_pos, n_neg = (label == 1).sum(), (label == 0).sum()
    assert n_pos == 16 and n_pos + n_neg == 64
    iou = bbox_iou(anchor, bbox).max(axis=1)
    assert (iou[label == 0] < 0.1).all()


def test_proposal_target_creator():
    np.random.seed(0)
    rng = np.random.default_rng(2)
    bbox = _random_bbox(rng, 3)
    label = np.array([0, 4, 2], np.int32)
    roi = np.concatenate(
        [bbox + rng.normal(0, 1, bbox.shape).astype(np.float32)] * 20
        + [_random_bbox(rng, 200)]
    )
    creator = ProposalTargetCreator(n_sample=32, pos_ratio=0.25)
    mean, std = (0.0, 0.0, 0.0, 0.0), (0.1, 0.1, 0.2, 0.2)
    sample_roi, gt_loc, gt_label = creator(roi, bbox, label, mean, std)
    assert sample_roi.shape == (32, 4) and gt_loc.shape == (32, 4)
    assert gt_label.dtype == np.int32
    iou = bbox_iou(sample_roi, bbox)
    n_pos = (gt_label > 0).sum()
    assert n_pos == 8
    # foregrounds first, with the label of their best ground truth plus one
    np.testing.assert_array_equal(gt_label[:8], label[iou[:8].argmax(axis=1)] + 1)
    assert (iou[:8].max(axis=1) >= 0.5).all() and (iou[8:].max(axis=1) < 0.5).all()
    expect = bbox2loc(sample_roi[:8], bbox[iou[:8].argmax(axis=1)]) / np.array(std)
    np.testing.assert_allclose(gt_loc[:8], expect, rtol=1e-4, atol=1e-4)


def test_proposal_creator_filters_sorts_and_limits():
    anchor = np.array(
        [
            [0, 0, 20, 20],
            [1, 1, 21, 21],
            [40, 40, 60, 60],
            [0, 0, 4, 4],
            [44, 0, 64, 20],
        ],
        np.float32,
    )
    loc = np.zeros_like(anchor)
    score = np.array([0.5, 0.9, 0.8, 0.99, 0.1], np.float32)
    creator = ProposalCreator(
        nms_thresh=0.7, n_test_pre_nms=4, n_test_post_nms=2, min_size=16
    )
    with kusari.using_config("train", False):
        roi = creator(loc, score, anchor, (64, 64))
    # the 4x4 box is too small, anchor 0 overlaps anchor 1 (IoU 0.82)
    np.testing.assert_allclose(roi, anchor[[1, 2]])
    with kusari.using_config("train", True):
        roi = creator(loc, score, anchor, (64, 64), scale=0.1)
    # min_size scales to 1.6 px; the train limits (12000 / 2000) keep all
    np.testing.assert_allclose(roi, anchor[[3, 1, 2, 4]])


def test_proposal_creator_clips_to_image():
    creator = ProposalCreator(min_size=1)
    anchor = np.array([[-10, -10, 30, 90]], np.float32)
    with kusari.using_config("train", False):
        roi = creator(
            np.zeros((1, 4), np.float32), np.ones(1, np.float32), anchor, (20, 50)
        )
    np.testing.assert_allclose(roi, [[0, 0, 20, 50]])


def test_creators_need_a_box():
    with pytest.raises(ValueError, match="AnchorTargetCreator"):
        AnchorTargetCreator()(
            np.zeros((0, 4), np.float32), np.zeros((3, 4), np.float32), (10, 10)
        )
