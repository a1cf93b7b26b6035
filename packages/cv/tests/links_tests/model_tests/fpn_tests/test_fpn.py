import numpy as np
import pytest

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import optimizers
from kusari_cv.links.model.fpn import (
    FPN,
    RPN,
    BboxHead,
    FasterRCNN,
    FasterRCNNFPNResNet50,
    MaskHead,
    MaskRCNNFPNResNet50,
    bbox_head_loss_post,
    bbox_head_loss_pre,
    mask_head_loss_post,
    mask_head_loss_pre,
    mask_to_segm,
    rpn_loss,
    segm_to_mask,
)

SCALES = (1 / 4, 1 / 8, 1 / 16)


class TinyBase(kusari.Chain):
    mean = np.zeros((3, 1, 1), np.float32)

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.c1 = L.Convolution2D(3, 8, 3, stride=4, pad=1)
            self.c2 = L.Convolution2D(8, 8, 3, stride=2, pad=1)

    def forward(self, x):
        h1 = F.relu(self.c1(x))
        return h1, F.relu(self.c2(h1))


class SmallRPN(RPN):
    # fewer proposals keep the RoIAlign of the tests cheap
    _train_nms_limit_pre = 100
    _train_nms_limit_post = 50
    _test_nms_limit_pre = 100
    _test_nms_limit_post = 50


def tiny_model(n_fg_class=2):
    extractor = FPN(TinyBase(), 2, SCALES)
    return FasterRCNN(
        extractor,
        SmallRPN(SCALES),
        BboxHead(n_fg_class + 1, SCALES),
        return_values=("rois", "bboxes", "labels", "scores"),
        min_size=64,
        max_size=96,
    )


def test_anchors_hand_case():
    rpn = RPN(SCALES)
    anchors = rpn.anchors([(1, 2), (1, 1)])
    assert anchors[0].shape == (6, 4) and anchors[1].shape == (3, 4)
    # level 0 (stride 4): ratio 1 anchor of side 32 around (2, 2), then (2, 6)
    np.testing.assert_allclose(anchors[0][1], [-14, -14, 18, 18])
    np.testing.assert_allclose(anchors[0][4], [-14, -10, 18, 22])
    # ratio 0.5 (h/w): round(4 / sqrt(0.5)) = 6 -> w = 48, h = 24
    np.testing.assert_allclose(anchors[0][0], [-10, -22, 14, 26])
    # level 1: side 64 around (4, 4)
    np.testing.assert_allclose(anchors[1][1], [-28, -28, 36, 36])


def test_fpn_shapes():
    fpn = FPN(TinyBase(), 2, SCALES)
    hs = fpn(np.zeros((2, 3, 64, 96), np.float32))
    assert [h.shape for h in hs] == [(2, 256, 16, 24), (2, 256, 8, 12), (2, 256, 4, 6)]


def test_rpn_decode_zero_offsets_gives_clipped_anchors():
    rpn = RPN(SCALES)
    anchors = rpn.anchors([(2, 2)])
    locs = [np.zeros((1, 12, 4), np.float32)]
    confs = [np.arange(12, dtype=np.float32)[None]]
    with kusari.using_config("train", False):
        rois, idx = rpn.decode(locs, confs, anchors, (1, 3, 8, 8))
    assert (idx == 0).all() and (rois >= 0).all() and (rois <= 8).all()
    # the best-scored anchor comes first, clipped to the 8x8 input
    np.testing.assert_allclose(rois[0], np.clip(anchors[0][11], 0, 8))


def test_distribute_by_size():
    head = BboxHead(3, (1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64))
    rois = np.array(
        [
            [0, 0, 56, 56],
            [0, 0, 112, 112],
            [0, 0, 224, 224],
            [0, 0, 448, 448],
            [0, 0, 1000, 1000],
        ],
        np.float32,
    )
    out, idx = head.distribute(rois, np.arange(5, dtype=np.int32))
    assert [len(r) for r in out] == [1, 1, 1, 2, 0]
    assert idx[3].tolist() == [3, 4]


def test_bbox_head_loss_pre_targets():
    np.random.seed(0)
    rois = [
        np.array([[0, 0, 10, 10], [20, 20, 40, 40]], np.float32),
        np.zeros((0, 4), np.float32),
    ]
    bboxes = [np.array([[0, 0, 10, 20]], np.float32)]
    labels = [np.array([2], np.int32)]
    out, idx, gt_locs, gt_labels = bbox_head_loss_pre(
        rois, [np.zeros(2, np.int32), np.zeros(0, np.int32)], (0.1, 0.2), bboxes, labels
    )
    assert gt_labels[0].tolist() == [3, 0]
    # centre moves by half a box width, width doubles
    np.testing.assert_allclose(
        gt_locs[0][0], [0, 0.5 / 0.1, 0, np.log(2) / 0.2], atol=1e-6
    )


def test_rpn_loss_is_finite_and_samples():
    np.random.seed(0)
    rpn = RPN(SCALES)
    anchors = rpn.anchors([(16, 16), (8, 8), (4, 4)])
    K = sum(len(a) for a in anchors)
    locs = [kusari.Variable(np.zeros((1, len(a), 4), np.float32)) for a in anchors]
    confs = [kusari.Variable(np.zeros((1, len(a)), np.float32)) for a in anchors]
    loc_loss, conf_loss = rpn_loss(
        locs, confs, anchors, [(64, 64)], [np.array([[8, 8, 40, 40]], np.float32)]
    )
    assert K == 3 * (256 + 64 + 16)
    # zero logits: the sigmoid cross entropy of every sampled anchor is log 2
    np.testing.assert_allclose(float(conf_loss.array), np.log(2), rtol=1e-5)
    assert float(loc_loss.array) > 0


def _losses(model, x, bboxes, labels):
    hs = model.extractor(x)
    rpn_locs, rpn_confs = model.rpn(hs)
    anchors = model.rpn.anchors(h.shape[2:] for h in hs)
    sizes = [x.shape[2:]] * len(x)
    rpn_loc_loss, rpn_conf_loss = rpn_loss(rpn_locs, rpn_confs, anchors, sizes, bboxes)
    rois, roi_indices = model.rpn.decode(rpn_locs, rpn_confs, anchors, x.shape)
    rois = np.concatenate([rois] + bboxes)
    roi_indices = np.concatenate(
        [roi_indices] + [np.full(len(b), i, np.int32) for i, b in enumerate(bboxes)]
    )
    rois, roi_indices = model.bbox_head.distribute(rois, roi_indices)
    rois, roi_indices, gt_locs, gt_labels = bbox_head_loss_pre(
        rois, roi_indices, model.bbox_head.std, bboxes, labels
    )
    locs, confs = model.bbox_head(hs, rois, roi_indices)
    head_loc, head_conf = bbox_head_loss_post(
        locs, confs, roi_indices, gt_locs, gt_labels, len(x)
    )
    return rpn_loc_loss + rpn_conf_loss + head_loc + head_conf


@pytest.mark.slow
def test_training_decreases_loss():
    np.random.seed(0)
    model = tiny_model()
    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, (1, 3, 64, 64)).astype(np.float32)
    x[:, :, 8:40, 8:40] += 1
    bboxes = [np.array([[8, 8, 40, 40], [30, 20, 60, 62]], np.float32)]
    labels = [np.array([0, 1], np.int32)]
    opt = optimizers.Adam(alpha=1e-3)
    opt.setup(model)
    np.random.seed(1)
    first = float(_losses(model, x, bboxes, labels).array)
    losses = []
    for _ in range(15):
        np.random.seed(1)
        opt.update(lambda: _losses(model, x, bboxes, labels))
        np.random.seed(1)
        losses.append(float(_losses(model, x, bboxes, labels).array))
    assert min(losses[-3:]) < 0.7 * first


def test_tiny_predict_formats():
    np.random.seed(0)
    model = tiny_model()
    model.use_preset("evaluate")
    imgs = [
        np.random.default_rng(2).uniform(0, 255, (3, 50, 70)).astype(np.float32),
        np.random.default_rng(3).uniform(0, 255, (3, 40, 30)).astype(np.float32),
    ]
    rois, bboxes, labels, scores = model.predict(imgs)
    assert len(rois) == len(bboxes) == 2
    for b, lbl, s in zip(bboxes, labels, scores):
        assert b.dtype == np.float32 and b.shape[1] == 4
        assert lbl.dtype == np.int32 and s.dtype == np.float32
        assert ((lbl >= 0) & (lbl < 2)).all() and (s >= 0.05).all()


def test_return_values_are_checked():
    with pytest.raises(ValueError, match="return_values"):
        FasterRCNN(
            FPN(TinyBase(), 2, SCALES),
            RPN(SCALES),
            BboxHead(3, SCALES),
            return_values=("masks",),
        )


def test_fpn_resnet50_names_and_predict():
    model = FasterRCNNFPNResNet50(n_fg_class=2, min_size=64, max_size=96)
    model.use_preset("evaluate")
    bboxes, labels, scores = model.predict(
        [np.random.default_rng(4).uniform(0, 255, (3, 48, 64)).astype(np.float32)]
    )
    names = {n for n, _ in model.namedparams()}
    assert {
        "/extractor/base/res2/a/conv1/conv/W",
        "/extractor/inner/0/W",
        "/extractor/outer/3/b",
        "/rpn/conv/W",
        "/bbox_head/fc1/W",
    } <= names
    assert bboxes[0].dtype == np.float32 and labels[0].dtype == np.int32


def test_mask_to_segm_and_back():
    mask = np.zeros((1, 40, 40), bool)
    mask[0, 10:30, 10:20] = True
    bbox = np.array([[10, 10, 30, 30]], np.float32)
    segm = mask_to_segm(mask, bbox, 28)
    assert segm.shape == (1, 28, 28) and segm.dtype == np.float32
    # left half of the box is inside the mask
    assert segm[0, 5:-5, 2:12].all() and not segm[0, 5:-5, 16:26].any()
    back = segm_to_mask(segm, bbox, (40, 40))
    assert back.dtype == bool and back.shape == (1, 40, 40)
    # the round trip recovers the mask up to a pixel at the borders
    assert (back[0] ^ mask[0]).sum() <= 2 * (20 + 10)
    assert back[0, 12:28, 11:19].all() and not back[0, :, 22:].any()


def test_mask_head_losses_and_shapes():
    np.random.seed(0)
    head = MaskHead(3, SCALES)
    hs = [
        np.random.default_rng(0).normal(size=(1, 256, 16, 16)).astype(np.float32),
        np.zeros((1, 256, 8, 8), np.float32),
        np.zeros((1, 256, 4, 4), np.float32),
    ]
    rois = [
        np.array([[4, 4, 30, 40], [0, 0, 20, 20]], np.float32),
        np.zeros((0, 4), np.float32),
        np.zeros((0, 4), np.float32),
    ]
    idx = [np.zeros(2, np.int32), np.zeros(0, np.int32), np.zeros(0, np.int32)]
    segms = head(hs, rois, idx)
    assert segms.shape == (2, 3, 28, 28)
    gt_mask = np.zeros((1, 64, 64), bool)
    gt_mask[0, 4:30, 4:40] = True
    out = mask_head_loss_pre(
        rois,
        idx,
        [gt_mask],
        [np.array([[4, 4, 30, 40]], np.float32)],
        [np.array([2, 0], np.int32), np.zeros(0, np.int32), np.zeros(0, np.int32)],
        28,
    )
    m_rois, m_idx, gt_segms, gt_labels = out
    # only the foreground RoI is kept; its target patch is all inside
    assert len(m_rois[0]) == 1 and gt_labels[0].tolist() == [2]
    assert gt_segms[0].shape == (1, 28, 28) and gt_segms[0].min() == 1
    loss = mask_head_loss_post(head(hs, m_rois, m_idx), m_idx, gt_segms, gt_labels, 1)
    assert np.isfinite(float(loss.array))


def test_mask_rcnn_predict_masks():
    model = MaskRCNNFPNResNet50(n_fg_class=2, min_size=64, max_size=96)
    model.use_preset("evaluate")
    imgs = [np.random.default_rng(5).uniform(0, 255, (3, 48, 64)).astype(np.float32)]
    masks, labels, scores = model.predict(imgs)
    assert masks[0].dtype == bool and masks[0].shape == (len(labels[0]), 48, 64)
    assert "/mask_head/conv5/W" in {n for n, _ in model.namedparams()}
