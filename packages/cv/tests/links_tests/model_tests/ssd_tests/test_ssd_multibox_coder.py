import numpy as np
import pytest

from kusari_cv.links.model.ssd import MultiboxCoder


def _coder():
    # one 2x2 map of stride 10 with sizes 10 -> 20 and aspect ratio 4
    return MultiboxCoder((2,), ((4,),), (10,), (10, 40), (0.1, 0.2))


def test_default_bbox_layout():
    coder = _coder()
    d = coder.default_bbox
    assert d.shape == (2 * 2 * 4, 4) and d.dtype == np.float32
    # first cell (v=0, u=0): centre (5, 5)
    np.testing.assert_allclose(
        d[:4],
        [[5, 5, 10, 10], [5, 5, 20, 20], [5, 5, 5, 20], [5, 5, 20, 5]],
    )
    # cells are row-major: the second cell is (v=0, u=1)
    np.testing.assert_allclose(d[4, :2], [5, 15])
    np.testing.assert_allclose(d[8, :2], [15, 5])


def test_ssd300_number_of_boxes():
    coder = MultiboxCoder(
        (38, 19, 10, 5, 3, 1),
        ((2,), (2, 3), (2, 3), (2, 3), (2,), (2,)),
        (8, 16, 32, 64, 100, 300),
        (30, 60, 111, 162, 213, 264, 315),
        (0.1, 0.2),
    )
    assert len(coder.default_bbox) == 8732


def test_encode_hand_case():
    coder = _coder()
    # exactly the second default box of cell (1, 1): centre (15, 15), side 20
    bbox = np.array([[5, 5, 25, 25]], np.float32)
    loc, label = coder.encode(bbox, np.array([2], np.int32))
    assert loc.dtype == np.float32 and label.dtype == np.int32
    assert label[13] == 3
    np.testing.assert_allclose(loc[13], 0, atol=1e-6)
    # the box of side 10 at (5, 5) has IoU 25/400 < 0.5 -> background
    assert label[0] == 0
    # a matched box's offsets follow the variance-scaled formula
    j = int(np.flatnonzero(label)[0])
    d = coder.default_bbox[j]
    expect = [
        (15 - d[0]) / (0.1 * d[2]),
        (15 - d[1]) / (0.1 * d[3]),
        np.log(20 / d[2]) / 0.2,
        np.log(20 / d[3]) / 0.2,
    ]
    np.testing.assert_allclose(loc[j], expect, rtol=1e-5, atol=1e-5)


def test_encode_each_ground_truth_gets_a_box_even_below_threshold():
    coder = _coder()
    # tiny box: IoU with every default box is far below 0.5
    bbox = np.array([[0, 0, 3, 3]], np.float32)
    _, label = coder.encode(bbox, np.array([0], np.int32))
    assert (label == 1).sum() == 1


def test_encode_empty():
    loc, label = _coder().encode(np.zeros((0, 4), np.float32), np.zeros(0, np.int32))
    assert loc.shape == (16, 4) and (loc == 0).all() and (label == 0).all()


def test_encode_decode_round_trip():
    coder = _coder()
    bbox = np.array([[1, 2, 12, 18], [8, 9, 19, 20]], np.float32)
    label = np.array([0, 1], np.int32)
    loc, mb_label = coder.encode(bbox, label)
    conf = np.full((16, 3), -10, np.float32)
    conf[np.arange(16), mb_label] = 10
    out_bbox, out_label, out_score = coder.decode(loc, conf, 0.45, 0.5)
    assert out_bbox.dtype == np.float32 and out_label.dtype == np.int32
    order = np.argsort(out_label)
    np.testing.assert_allclose(out_bbox[order], bbox, atol=1e-4)
    np.testing.assert_array_equal(out_label[order], label)
    np.testing.assert_allclose(out_score, 1, atol=1e-6)


def test_decode_nms_per_class_and_threshold():
    coder = _coder()
    loc = np.zeros((16, 4), np.float32)
    conf = np.full((16, 3), -10, np.float32)
    # boxes 0 and 1 share a centre: IoU(10x10, 20x20) = 0.25
    conf[0, 1] = conf[1, 1] = 5
    # box 2 (5 x 20) has IoU 0.25 with box 1 and 1/3 with box 0
    conf[2, 1] = 4
    conf[3, 2] = 5  # another class is never suppressed by class 0
    conf[4] = 0  # uniform probabilities (1/3) stay under the threshold
    bbox, label, score = coder.decode(loc, conf, nms_thresh=0.2, score_thresh=0.5)
    assert sorted(label.tolist()) == [0, 1]
    bbox, label, score = coder.decode(loc, conf, nms_thresh=0.3, score_thresh=0.5)
    assert sorted(label.tolist()) == [0, 0, 1]
    bbox, label, score = coder.decode(loc, conf, nms_thresh=0.4, score_thresh=0.5)
    assert sorted(label.tolist()) == [0, 0, 0, 1]
    probs = np.exp(conf) / np.exp(conf).sum(axis=1, keepdims=True)
    expect = probs[[0, 1, 2, 3], [1, 1, 1, 2]]
    np.testing.assert_allclose(np.sort(score), np.sort(expect), rtol=1e-5)


def test_bad_arguments():
    with pytest.raises(ValueError, match="MultiboxCoder: sizes"):
        MultiboxCoder((2,), ((2,),), (10,), (10,), (0.1, 0.2))
    with pytest.raises(ValueError, match="same length"):
        MultiboxCoder((2, 1), ((2,),), (10,), (10, 20, 30), (0.1, 0.2))
