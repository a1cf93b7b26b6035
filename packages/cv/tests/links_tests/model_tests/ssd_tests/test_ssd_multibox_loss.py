import numpy as np

import kusari
from kusari_cv.links.model.ssd import multibox_loss


def _softmax_ce(x, t):
    x = x - x.max(axis=-1, keepdims=True)
    logp = x - np.log(np.exp(x).sum(axis=-1, keepdims=True))
    return -np.take_along_axis(logp, t[..., None], axis=-1)[..., 0]


def _huber(d):
    a = np.abs(d)
    return np.where(a < 1, 0.5 * d * d, a - 0.5)


def test_hand_case_with_hard_negative_mining():
    rng = np.random.default_rng(0)
    B, K, C = 2, 10, 3
    mb_locs = rng.normal(size=(B, K, 4)).astype(np.float32)
    gt_locs = rng.normal(size=(B, K, 4)).astype(np.float32)
    mb_confs = rng.normal(size=(B, K, C)).astype(np.float32)
    gt_labels = np.zeros((B, K), np.int32)
    gt_labels[0, [1, 4]] = [1, 2]  # two positives: 2 * k = 6 negatives kept
    gt_labels[1, 7] = 2  # one positive: 3 negatives kept
    k = 3
    loc_loss, conf_loss = multibox_loss(mb_locs, mb_confs, gt_locs, gt_labels, k)

    pos = gt_labels > 0
    n_pos = pos.sum()
    expect_loc = (_huber(mb_locs - gt_locs).sum(-1) * pos).sum() / n_pos
    ce = _softmax_ce(mb_confs, gt_labels)
    keep = pos.copy()
    for b in range(B):
        neg = np.flatnonzero(~pos[b])
        hardest = neg[np.argsort(-ce[b, neg])][: k * pos[b].sum()]
        keep[b, hardest] = True
    assert keep.sum() == 3 + 9
    expect_conf = (ce * keep).sum() / n_pos
    np.testing.assert_allclose(float(loc_loss.array), expect_loc, rtol=1e-5)
    np.testing.assert_allclose(float(conf_loss.array), expect_conf, rtol=1e-5)


def test_ratio_limited_by_available_negatives():
    mb_confs = np.zeros((1, 4, 2), np.float32)
    gt_labels = np.array([[1, 0, 0, 0]], np.int32)
    zeros = np.zeros((1, 4, 4), np.float32)
    _, conf_loss = multibox_loss(zeros, mb_confs, zeros, gt_labels, 10)
    # every box counts: 4 * log(2) over one positive
    np.testing.assert_allclose(float(conf_loss.array), 4 * np.log(2), rtol=1e-6)


def test_gradients_reach_only_kept_boxes():
    mb_locs = kusari.Variable(np.ones((1, 4, 4), np.float32))
    mb_confs = kusari.Variable(np.array([[[0, 0], [0, 3], [0, 1], [0, 2]]], np.float32))
    gt_labels = np.array([[1, 0, 0, 0]], np.int32)
    loc_loss, conf_loss = multibox_loss(
        mb_locs, mb_confs, np.zeros((1, 4, 4), np.float32), gt_labels, 2
    )
    (loc_loss + conf_loss).backward()
    # only the positive contributes to the localization loss
    assert np.abs(mb_locs.grad[0, 1:]).sum() == 0
    assert np.abs(mb_locs.grad[0, 0]).sum() > 0
    # the two negatives with the largest loss (rows 1 and 3) are mined
    assert np.abs(mb_confs.grad[0, 2]).sum() == 0
    assert (np.abs(mb_confs.grad[0, [0, 1, 3]]).sum(axis=1) > 0).all()


def test_no_positive_gives_zero():
    zeros = np.zeros((1, 3, 4), np.float32)
    loc_loss, conf_loss = multibox_loss(
        zeros, np.zeros((1, 3, 2), np.float32), zeros, np.zeros((1, 3), np.int32), 3
    )
    assert float(loc_loss.array) == 0 and float(conf_loss.array) == 0
