import numpy as np
import pytest

import kusari
from kusari import serializers
from kusari_cv.links.model.yolo import YOLOv2, YOLOv2Tiny, YOLOv3, yolo_v2


def test_reorg_matches_darknet_order():
    x = np.arange(2 * 8 * 4 * 6, dtype=np.float32).reshape(2, 8, 4, 6)
    y = yolo_v2._reorg(x).array
    assert y.shape == (2, 32, 2, 3)
    # reference: the same reshape / transpose in NumPy
    expect = (
        x.reshape(2, 2, 4, 2, 6, 2).transpose(0, 3, 5, 1, 2, 4).reshape(2, 32, 2, 3)
    )
    np.testing.assert_array_equal(y, expect)


def test_maxpool_stride_one_keeps_size():
    x = np.random.default_rng(0).normal(size=(1, 2, 5, 5)).astype(np.float32)
    y = yolo_v2._maxpool(x, 2, stride=1).array
    assert y.shape == (1, 2, 5, 5)
    # darknet pads bottom/right: y[i, j] = max of x[i:i+2, j:j+2] (clipped)
    padded = np.pad(x, ((0, 0), (0, 0), (0, 1), (0, 1)), constant_values=-np.inf)
    expect = np.max(
        [padded[:, :, a : a + 5, b : b + 5] for a in (0, 1) for b in (0, 1)], axis=0
    )
    np.testing.assert_array_equal(y, expect)
    assert yolo_v2._maxpool(x[:, :, :4, :4], 2).shape == (1, 2, 2, 2)


def test_yolo_v2_decode_hand_case():
    model = YOLOv2Tiny(n_fg_class=2)
    model.use_preset("evaluate")
    K = 13 * 13 * 5
    loc = np.zeros((K, 4), np.float32)
    obj = np.full(K, -20, np.float32)
    conf = np.zeros((K, 2), np.float32)
    # cell (v=2, u=3), anchor 1 (4.41 x 3.42 cells), centred in the cell
    k = (2 * 13 + 3) * 5 + 1
    obj[k] = 20
    conf[k] = (5, -5)
    bbox, label, score = model._decode(loc, obj, conf)
    assert len(bbox) == 1 and label.tolist() == [0]
    stride = 416 / 13
    cy, cx = 2.5 * stride, 3.5 * stride
    h, w = 4.41 * stride, 3.42 * stride
    np.testing.assert_allclose(
        bbox[0], [cy - h / 2, cx - w / 2, cy + h / 2, cx + w / 2], rtol=1e-5
    )
    np.testing.assert_allclose(score, [1 / (1 + np.exp(-10))], rtol=1e-4)


def test_predict_maps_boxes_back(monkeypatch):
    model = YOLOv2Tiny(n_fg_class=2)
    K = 13 * 13 * 5

    def fake_forward(x):
        assert x.shape == (1, 3, 416, 416)
        # the image is centred, not enlarged, on a 0.5 canvas
        assert np.allclose(x[0, :, :104], 0.5) and np.allclose(
            x[0, :, 104:312, 156:260], 1
        )
        return (kusari.Variable(np.zeros((1, K, 4), np.float32)),) * 3

    def fake_decode(loc, obj, conf):
        box = np.array([[104, 156, 312, 260], [208, 208, 312, 260]], np.float32)
        return box, np.array([1, 0], np.int32), np.array([0.9, 0.8], np.float32)

    monkeypatch.setattr(model, "forward", fake_forward)
    monkeypatch.setattr(model, "_decode", fake_decode)
    img = np.full((3, 208, 104), 255, np.float32)
    bboxes, labels, scores = model.predict([img])
    np.testing.assert_allclose(bboxes[0], [[0, 0, 208, 104], [104, 52, 208, 104]])
    assert bboxes[0].dtype == np.float32
    assert labels[0].tolist() == [1, 0]


def test_tiny_predict_formats():
    model = YOLOv2Tiny(n_fg_class=3)
    model.use_preset("evaluate")
    assert (model.nms_thresh, model.score_thresh) == (0.45, 0.005)
    img = np.random.default_rng(1).uniform(0, 255, (3, 100, 140)).astype(np.float32)
    bboxes, labels, scores = model.predict([img])
    assert bboxes[0].dtype == np.float32 and bboxes[0].shape[1] == 4
    assert labels[0].dtype == np.int32 and scores[0].dtype == np.float32
    assert ((labels[0] >= 0) & (labels[0] < 3)).all()
    assert (scores[0] >= 0.005).all()
    with pytest.raises(ValueError, match="use_preset"):
        model.use_preset("other")


def test_npz_round_trip_and_names(tmp_path):
    a = YOLOv2Tiny(n_fg_class=2)
    names = {n for n, _ in a.namedparams()}
    assert {"/extractor/0/conv/W", "/extractor/0/bn/gamma", "/subnet/W"} <= names
    serializers.save_npz(tmp_path / "tiny.npz", a, compression=False)
    b = YOLOv2Tiny(n_fg_class=2, pretrained_model=str(tmp_path / "tiny.npz"))
    for (na, pa), (nb, pb) in zip(sorted(a.namedparams()), sorted(b.namedparams())):
        assert na == nb
        np.testing.assert_array_equal(pa.array, pb.array)


def test_yolo_v3_names_and_default_boxes():
    model = YOLOv3(n_fg_class=2)
    names = {n for n, _ in model.namedparams()}
    assert {"/extractor/2/0/conv/W", "/subnet/0/0/conv/W", "/subnet/2/1/b"} <= names
    assert len(model._default_bbox) == 3 * (13 * 13 + 26 * 26 + 52 * 52)
    # decode of a zero output at the first box: centre of cell (0, 0), anchor 0
    K = len(model._default_bbox)
    obj = np.full(K, -30, np.float32)
    obj[0] = 30
    conf = np.full((K, 2), -30, np.float32)
    conf[0, 1] = 30
    model.use_preset("evaluate")
    bbox, label, _ = model._decode(np.zeros((K, 4), np.float32), obj, conf)
    step = 416 / 13
    np.testing.assert_allclose(
        bbox, [[step / 2 - 45, step / 2 - 58, step / 2 + 45, step / 2 + 58]], rtol=1e-5
    )
    assert label.tolist() == [1]


@pytest.mark.slow
@pytest.mark.parametrize("cls, n_box", [(YOLOv2, 845), (YOLOv3, 10647)])
def test_forward_shapes(cls, n_box):
    model = cls(n_fg_class=3)
    locs, objs, confs = model(np.zeros((1, 3, 416, 416), np.float32))
    assert locs.shape == (1, n_box, 4) and objs.shape == (1, n_box)
    assert confs.shape == (1, n_box, 3)
