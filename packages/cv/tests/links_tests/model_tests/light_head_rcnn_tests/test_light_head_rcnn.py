import numpy as np
import pytest

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import optimizers
from kusari_cv.functions import ps_roi_max_align_2d
from kusari_cv.links.model.light_head_rcnn import (
    GlobalContextModule,
    LightHeadRCNN,
    LightHeadRCNNResNet101,
    LightHeadRCNNTrainChain,
)
from kusari_cv.links.model.light_head_rcnn import light_head_rcnn_train_chain as tc
from kusari_cv.links.model.light_head_rcnn.utils import ProposalTargetCreator


class TinyHead(kusari.Chain):
    def __init__(self, n_class):
        super().__init__()
        self.n_class = n_class
        with self.init_scope():
            self.gcm = GlobalContextModule(8, 4, 2 * 2 * 2, 3)
            self.fc = L.Linear(2 * 2 * 2, 16)
            self.cls_loc = L.Linear(
                16, n_class * 4, initialW=kusari.initializers.Zero()
            )
            self.score = L.Linear(16, n_class)

    def forward(self, x, rois, roi_indices):
        pool = ps_roi_max_align_2d(
            self.gcm(x),
            rois.astype(np.float32),
            roi_indices.astype(np.int32),
            (2, 2, 2),
            0.25,
            2,
        )
        h = F.relu(self.fc(pool))
        return self.cls_loc(h), self.score(h)


@pytest.fixture
def tiny_model(tiny_two_stage):
    """``tiny_model(n_fg_class=2)``: a LightHeadRCNN with tiny parts."""
    return lambda n_fg_class=2: tiny_two_stage(
        LightHeadRCNN, TinyHead(n_fg_class + 1), two_maps=True
    )


def test_global_context_module_is_two_separable_paths():
    gcm = GlobalContextModule(3, 2, 4, 5)
    x = np.random.default_rng(0).normal(size=(1, 3, 7, 6)).astype(np.float32)
    y = gcm(x).array
    assert y.shape == (1, 4, 7, 6)
    assert gcm.col_max.W.shape == (2, 3, 5, 1) and gcm.col.W.shape == (4, 2, 1, 5)
    expect = np.maximum(
        gcm.col(gcm.col_max(x)).array + gcm.row(gcm.row_max(x)).array, 0
    )
    np.testing.assert_allclose(y, expect, rtol=1e-6)


def test_ohem_keeps_hardest_rois():
    cls_locs = np.zeros((4, 2 * 4), np.float32)
    scores = np.array([[0, 0], [5, -5], [-5, 5], [3, 0]], np.float32)
    gt_locs = np.zeros((4, 4), np.float32)
    gt_labels = np.array([0, 1, 1, 0], np.int32)
    loc_loss, cls_loss = tc._ohem_loss(
        kusari.Variable(cls_locs), kusari.Variable(scores), gt_locs, gt_labels, 2
    )
    ce = -scores[np.arange(4), gt_labels] + np.log(np.exp(scores).sum(axis=1))
    hardest = np.argsort(-ce)[:2]
    np.testing.assert_allclose(float(cls_loss.array), ce[hardest].sum() / 2, rtol=1e-5)
    assert float(loc_loss.array) == 0


def test_proposal_target_creator_keeps_all_by_default():
    np.random.seed(0)
    roi = np.array([[0, 0, 10, 10], [20, 20, 30, 30], [1, 1, 10, 10]], np.float32)
    bbox = np.array([[0, 0, 10, 10]], np.float32)
    sample, _, label = ProposalTargetCreator()(roi, bbox, np.array([3], np.int32))
    # 3 proposals + the ground truth give n_sample 4: of the three foregrounds
    # round(4 * 0.25) = 1 is kept, plus the only background
    assert len(sample) == 2 and (label > 0).sum() == 1 and label[0] == 4


def test_predict_truncates_and_sorts(tiny_model):
    np.random.seed(0)
    model = tiny_model()
    model.use_preset("evaluate")
    assert (model.nms_thresh, model.score_thresh, model.max_n_predict) == (
        0.5,
        0.0,
        100,
    )
    model.max_n_predict = 5
    model.nms_thresh = 1.0  # keep overlapping boxes: more than 5 candidates
    # small values keep the random RPN offsets small: many distinct proposals
    img = np.random.default_rng(1).uniform(0, 1, (3, 40, 40)).astype(np.float32)
    bboxes, labels, scores = model.predict([img])
    assert len(bboxes[0]) == 5 and labels[0].dtype == np.int32
    assert (np.diff(scores[0]) <= 0).all()


def test_train_chain_decreases_loss(tiny_model):
    np.random.seed(0)
    model = tiny_model()
    chain = LightHeadRCNNTrainChain(model, n_ohem_sample=16)
    rng = np.random.default_rng(2)
    img = rng.uniform(-1, 1, (1, 3, 32, 40)).astype(np.float32)
    img[:, :, 4:20, 6:30] += 1.5
    bbox = np.array([[[4, 6, 20, 30], [18, 10, 30, 38]]], np.float32)
    label = np.array([[1, 0]], np.int32)
    scale = np.array([1.0], np.float32)
    opt = optimizers.Adam(alpha=3e-3)
    opt.setup(chain)
    np.random.seed(1)
    first = float(chain(img, bbox, label, scale).array)
    losses = []
    for _ in range(25):
        opt.update(chain, img, bbox, label, scale)
        np.random.seed(1)
        losses.append(float(chain(img, bbox, label, scale).array))
    assert min(losses[-5:]) < 0.6 * first


@pytest.mark.slow
def test_light_head_rcnn_resnet101_predict():
    model = LightHeadRCNNResNet101(n_fg_class=3, min_size=64, max_size=96)
    names = {n for n, _ in model.namedparams()}
    assert {
        "/extractor/res4/b22/conv3/conv/W",
        "/head/global_context_module/col/W",
        "/head/fc1/W",
        "/rpn/loc/W",
    } <= names
    model.use_preset("evaluate")
    img = np.random.default_rng(3).uniform(0, 255, (3, 64, 80)).astype(np.float32)
    bboxes, labels, scores = model.predict([img])
    assert bboxes[0].dtype == np.float32 and len(bboxes[0]) <= 100
    assert ((labels[0] >= 0) & (labels[0] < 3)).all()
