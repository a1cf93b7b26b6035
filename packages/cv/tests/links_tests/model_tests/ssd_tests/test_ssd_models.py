import numpy as np
import pytest

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import optimizers, serializers
from kusari_cv import transforms
from kusari_cv.links.model.ssd import (
    SSD,
    SSD300,
    SSD512,
    GradientScaling,
    Multibox,
    Normalize,
    multibox_loss,
)


class TinyExtractor(kusari.Chain):
    insize = 32
    grids = (8, 4)

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.c1 = L.Convolution2D(3, 8, 3, stride=4, pad=1)
            self.c2 = L.Convolution2D(8, 8, 3, stride=2, pad=1)

    def forward(self, x):
        h1 = F.relu(self.c1(x))
        return [h1, F.relu(self.c2(h1))]


def tiny_ssd(n_fg_class=2):
    return SSD(
        TinyExtractor(),
        Multibox(n_fg_class + 1, ((2,), (2,))),
        steps=(4, 8),
        sizes=(8, 16, 32),
        mean=np.array([100, 110, 120], np.float32)[:, None, None],
    )


def test_normalize_matches_numpy():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 3, 4, 5)).astype(np.float32)
    norm = Normalize(3, initial=2.5)
    y = norm(x).array
    expect = 2.5 * x / (np.sqrt((x * x).sum(axis=1, keepdims=True)) + 1e-5)
    np.testing.assert_allclose(y, expect, rtol=1e-5)
    norm.cleargrads()
    F.sum(norm(x)).backward()
    assert norm.scale.grad.shape == (3,)


def test_multibox_shapes_and_order():
    mb = Multibox(4, ((2,), (2, 3)))
    xs = [np.zeros((2, 5, 3, 3), np.float32), np.zeros((2, 5, 1, 1), np.float32)]
    locs, confs = mb(xs)
    assert locs.shape == (2, 3 * 3 * 4 + 6, 4)
    assert confs.shape == (2, 3 * 3 * 4 + 6, 4)
    with pytest.raises(ValueError, match="Multibox: expected 2 feature maps"):
        mb(xs[:1])


def test_tiny_ssd_predict_formats():
    model = tiny_ssd()
    assert model.n_fg_class == 2 and model.insize == 32
    model.use_preset("evaluate")
    assert model.score_thresh == 0.01 and model.nms_thresh == 0.45
    rng = np.random.default_rng(1)
    imgs = [
        rng.uniform(0, 255, (3, 40, 50)).astype(np.float32),
        rng.uniform(0, 255, (3, 20, 30)).astype(np.float32),
    ]
    bboxes, labels, scores = model.predict(imgs)
    assert len(bboxes) == len(labels) == len(scores) == 2
    for bbox, label, score in zip(bboxes, labels, scores):
        assert bbox.dtype == np.float32 and bbox.ndim == 2 and bbox.shape[1] == 4
        assert label.dtype == np.int32 and score.dtype == np.float32
        assert len(bbox) == len(label) == len(score) > 0
        assert ((0 <= label) & (label < 2)).all()
        assert (score >= 0.01).all()
    # the boxes are the coder's, scaled from 32 x 32 back to 20 x 30
    x = transforms.resize(imgs[1], (32, 32)) - model.mean
    with kusari.using_config("train", False):
        locs, confs = model(x[None])
    bbox, label, _ = model.coder.decode(locs.array[0], confs.array[0], 0.45, 0.01)
    np.testing.assert_allclose(bboxes[1][:, 0::2], bbox[:, 0::2] * 20 / 32, rtol=1e-4)
    np.testing.assert_allclose(bboxes[1][:, 1::2], bbox[:, 1::2] * 30 / 32, rtol=1e-4)
    np.testing.assert_array_equal(labels[1], label)


def test_use_preset_rejects_unknown():
    with pytest.raises(ValueError, match="use_preset"):
        tiny_ssd().use_preset("fast")


def test_npz_round_trip(tmp_path):
    a, b = tiny_ssd(), tiny_ssd()
    x = np.random.default_rng(2).normal(size=(1, 3, 32, 32)).astype(np.float32)
    a(x)
    path = tmp_path / "ssd.npz"
    serializers.save_npz(path, a)
    serializers.load_npz(path, b)
    for la, lb in zip(a(x), b(x)):
        np.testing.assert_array_equal(la.array, lb.array)


def test_ssd300_parameter_names():
    model = SSD300(n_fg_class=3)
    names = {name for name, _ in model.namedparams()}
    for name in (
        "/extractor/conv1_1/W",
        "/extractor/norm4/scale",
        "/extractor/conv6/W",
        "/extractor/conv11_2/b",
        "/multibox/loc/5/W",
        "/multibox/conf/0/b",
    ):
        assert name in names
    assert model.extractor.norm4.scale.array[0] == 20


@pytest.mark.slow
def test_ssd300_shapes():
    model = SSD300(n_fg_class=3)
    locs, confs = model(np.zeros((1, 3, 300, 300), np.float32))
    assert locs.shape == (1, 8732, 4) and confs.shape == (1, 8732, 4)


@pytest.mark.slow
def test_ssd512_shapes():
    model = SSD512(n_fg_class=2)
    locs, confs = model(np.zeros((1, 3, 512, 512), np.float32))
    assert locs.shape == (1, 24564, 4) and confs.shape == (1, 24564, 3)


@pytest.mark.slow
def test_ssd300_loads_local_npz(tmp_path):
    a = SSD300(n_fg_class=2)
    x = np.random.default_rng(3).uniform(0, 255, (3, 300, 300)).astype(np.float32)
    a.predict([x])
    path = tmp_path / "ssd300.npz"
    serializers.save_npz(path, a)
    b = SSD300(n_fg_class=2, pretrained_model=str(path))
    a.use_preset("evaluate")
    b.use_preset("evaluate")
    for pa, pb in zip(a.predict([x]), b.predict([x])):
        np.testing.assert_allclose(pa[0], pb[0], rtol=1e-5, atol=1e-4)


def test_gradient_scaling_hook():
    link = L.Linear(2, 2)
    opt = optimizers.SGD(lr=1.0)
    opt.setup(link)
    link.b.update_rule.add_hook(GradientScaling(2))
    b0 = link.b.array.copy()
    W0 = link.W.array.copy()
    link.cleargrads()
    F.sum(link(np.ones((1, 2), np.float32))).backward()
    opt.update()
    np.testing.assert_allclose(link.b.array, b0 - 2.0)
    np.testing.assert_allclose(link.W.array, W0 - 1.0)


def test_training_decreases_loss():
    np.random.seed(0)
    model = tiny_ssd(n_fg_class=2)
    rng = np.random.default_rng(4)
    imgs = rng.uniform(-1, 1, (4, 3, 32, 32)).astype(np.float32)
    gt_locs, gt_labels = [], []
    for i in range(4):
        bbox = np.array([[4 + i, 6, 20 + i, 24], [10, 2, 30, 14]], np.float32)
        loc, label = model.coder.encode(bbox, np.array([i % 2, 1], np.int32))
        gt_locs.append(loc)
        gt_labels.append(label)
    gt_locs = np.stack(gt_locs)
    gt_labels = np.stack(gt_labels)
    opt = optimizers.Adam(alpha=1e-2)
    opt.setup(model)

    def loss():
        mb_locs, mb_confs = model(imgs)
        loc_loss, conf_loss = multibox_loss(mb_locs, mb_confs, gt_locs, gt_labels, 3)
        return loc_loss + conf_loss

    first = float(loss().array)
    for _ in range(30):
        opt.update(loss)
    assert float(loss().array) < 0.5 * first
