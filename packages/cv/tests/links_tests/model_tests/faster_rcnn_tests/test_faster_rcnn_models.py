import numpy as np
import pytest

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import optimizers, serializers
from kusari_cv.links.model.faster_rcnn import (
    FasterRCNN,
    FasterRCNNTrainChain,
    FasterRCNNVGG16,
    ProposalTargetCreator,
    RegionProposalNetwork,
    VGG16RoIHead,
)


class TinyHead(kusari.Chain):
    def __init__(self, n_class):
        super().__init__()
        self.n_class = n_class
        with self.init_scope():
            self.fc = L.Linear(8 * 3 * 3, 32)
            self.cls_loc = L.Linear(
                32, n_class * 4, initialW=kusari.initializers.Zero()
            )
            self.score = L.Linear(32, n_class)

    def forward(self, x, rois, roi_indices):
        rois = np.concatenate(
            (roi_indices[:, None].astype(np.float32), rois[:, [1, 0, 3, 2]]), axis=1
        )
        h = F.relu(self.fc(F.roi_pooling_2d(x, rois, 3, 3, 0.25)))
        return self.cls_loc(h), self.score(h)


@pytest.fixture
def tiny_faster_rcnn(tiny_two_stage):
    """``tiny_faster_rcnn(n_fg_class=2)``: a FasterRCNN with tiny parts."""
    return lambda n_fg_class=2: tiny_two_stage(FasterRCNN, TinyHead(n_fg_class + 1))


def test_rpn_shapes_and_anchor_order():
    rpn = RegionProposalNetwork(8, 8, anchor_scales=(2,), feat_stride=4)
    x = np.random.default_rng(0).normal(size=(2, 8, 3, 5)).astype(np.float32)
    with kusari.using_config("train", False):
        locs, scores, rois, roi_indices, anchor = rpn(x, (12, 20), scales=1.0)
    assert locs.shape == (2, 3 * 5 * 3, 4) and scores.shape == (2, 45, 2)
    assert anchor.shape == (45, 4) and rois.ndim == 2 and rois.shape[1] == 4
    assert set(roi_indices.tolist()) <= {0, 1} and roi_indices.dtype == np.int32
    # anchors of cell (0, 1) follow the three of cell (0, 0), shifted by the stride
    np.testing.assert_allclose(anchor[3:6] - anchor[0:3], [[0, 4, 0, 4]] * 3, atol=1e-5)
    np.testing.assert_allclose(
        anchor[15:18] - anchor[0:3], [[4, 0, 4, 0]] * 3, atol=1e-5
    )


def test_predict_formats_and_presets(tiny_faster_rcnn):
    np.random.seed(0)
    model = tiny_faster_rcnn()
    assert model.n_class == 3
    model.use_preset("evaluate")
    assert (model.nms_thresh, model.score_thresh) == (0.3, 0.05)
    rng = np.random.default_rng(1)
    imgs = [
        rng.uniform(0, 255, (3, 30, 40)).astype(np.float32),
        rng.uniform(0, 255, (3, 50, 20)).astype(np.float32),
    ]
    model.score_thresh = 0.0
    bboxes, labels, scores = model.predict(imgs)
    for img, bbox, label, score in zip(imgs, bboxes, labels, scores):
        assert bbox.dtype == np.float32 and label.dtype == np.int32
        assert score.dtype == np.float32
        assert len(bbox) == len(label) == len(score) > 0
        assert ((0 <= label) & (label < 2)).all()
        # zero offsets: boxes are the proposals scaled back, inside the image
        assert (bbox >= 0).all()
        assert (bbox[:, 2] <= img.shape[1] + 1e-4).all()
        assert (bbox[:, 3] <= img.shape[2] + 1e-4).all()
    with pytest.raises(ValueError, match="use_preset"):
        model.use_preset("nope")


def test_prepare_scales_shorter_side(tiny_faster_rcnn):
    model = tiny_faster_rcnn()
    assert model.prepare(np.zeros((3, 20, 25), np.float32)).shape == (3, 32, 40)
    # the longer side would exceed max_size 48: it is capped instead
    assert model.prepare(np.zeros((3, 10, 40), np.float32)).shape == (3, 12, 48)


def test_train_chain_decreases_loss(tiny_faster_rcnn):
    np.random.seed(0)
    model = tiny_faster_rcnn()
    chain = FasterRCNNTrainChain(
        model, proposal_target_creator=ProposalTargetCreator(n_sample=32)
    )
    rng = np.random.default_rng(2)
    img = rng.uniform(-1, 1, (1, 3, 32, 40)).astype(np.float32)
    img[:, :, 4:20, 6:30] += 1.5
    bbox = np.array([[[4, 6, 20, 30], [18, 10, 30, 38]]], np.float32)
    label = np.array([[1, 0]], np.int32)
    scale = np.array([1.0], np.float32)
    opt = optimizers.Adam(alpha=3e-3)
    opt.setup(chain)
    observed = {}
    reporter = kusari.Reporter()
    reporter.add_observer("main", chain)
    with reporter.scope(observed):
        first = float(chain(img, bbox, label, scale).array)
    keys = {"loss", "rpn_loc_loss", "rpn_cls_loss", "roi_loc_loss", "roi_cls_loss"}
    assert {"main/" + k for k in keys} == set(observed)
    np.testing.assert_allclose(
        sum(float(observed["main/" + k].array) for k in keys - {"loss"}),
        first,
        rtol=1e-5,
    )
    losses = []
    for _ in range(25):
        opt.update(chain, img, bbox, label, scale)
        with kusari.using_config("train", True):
            np.random.seed(1)
            losses.append(float(chain(img, bbox, label, scale).array))
    assert min(losses[-5:]) < 0.6 * first


def test_train_chain_rejects_batches(tiny_faster_rcnn):
    chain = FasterRCNNTrainChain(tiny_faster_rcnn())
    with pytest.raises(ValueError, match="only batches of one image"):
        chain(
            np.zeros((2, 3, 32, 32), np.float32),
            np.zeros((2, 1, 4), np.float32),
            np.zeros((2, 1), np.int32),
            np.ones(2, np.float32),
        )


def test_npz_round_trip(tmp_path, tiny_faster_rcnn):
    a, b = tiny_faster_rcnn(), tiny_faster_rcnn()
    img = np.random.default_rng(3).uniform(0, 255, (3, 32, 32)).astype(np.float32)
    a.use_preset("evaluate")
    b.use_preset("evaluate")
    out_a = a.predict([img])
    serializers.save_npz(tmp_path / "frcnn.npz", a)
    b.predict([img])  # initialise b's lazy parameters first
    serializers.load_npz(tmp_path / "frcnn.npz", b)
    for x, y in zip(out_a, b.predict([img])):
        np.testing.assert_allclose(x[0], y[0], rtol=1e-5)


def test_vgg16_roi_head_shapes():
    head = VGG16RoIHead(
        4, roi_size=2, spatial_scale=1 / 16, vgg_initialW=kusari.initializers.Zero()
    )
    x = np.zeros((2, 512, 4, 5), np.float32)
    rois = np.array([[0, 0, 30, 40], [10, 10, 60, 80], [0, 0, 64, 80]], np.float32)
    locs, scores = head(x, rois, np.array([0, 1, 1], np.int32))
    assert locs.shape == (3, 16) and scores.shape == (3, 4)
    locs, scores = head(x, rois[:0], np.zeros(0, np.int32))
    assert locs.shape == (0, 16) and scores.shape == (0, 4)


@pytest.mark.slow
def test_faster_rcnn_vgg16_predict():
    model = FasterRCNNVGG16(n_fg_class=3, min_size=64, max_size=96)
    model.use_preset("evaluate")
    names = {n for n, _ in model.namedparams()}
    assert {
        "/extractor/conv1_1/conv/W",
        "/rpn/conv1/W",
        "/head/fc6/W",
        "/head/cls_loc/b",
        "/head/score/W",
    } <= names
    bboxes, labels, scores = model.predict(
        [np.random.default_rng(4).uniform(0, 255, (3, 64, 80)).astype(np.float32)]
    )
    assert bboxes[0].dtype == np.float32 and labels[0].dtype == np.int32
    assert ((labels[0] >= 0) & (labels[0] < 3)).all()
    with pytest.raises(ValueError, match="n_fg_class"):
        FasterRCNNVGG16()
