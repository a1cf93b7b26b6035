import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari import initializers
from kusari.dataset import download
from kusari_cv.experimental.links import FCISResNet101 as ExperimentalFCIS
from kusari_cv.functions import ps_roi_average_pooling_2d
from kusari_cv.links.model.faster_rcnn.utils.loc2bbox import loc2bbox
from kusari_cv.links.model.fcis import FCIS, FCISResNet101, FCISResNet101Head

ROIS = np.array([[0, 0, 20, 24], [4, 8, 30, 30], [10, 2, 31, 17]], np.float32)


@pytest.fixture(scope="module")
def head_and_features():
    head = FCISResNet101Head(
        3,
        roi_size=6,
        group_size=3,
        spatial_scale=0.25,
        loc_normalize_mean=(0.0, 0.0, 0.0, 0.0),
        loc_normalize_std=(0.2, 0.2, 0.5, 0.5),
        initialW=initializers.Normal(0.05),
    )
    x = np.random.default_rng(0).standard_normal((2, 2048, 8, 8)).astype(np.float32)
    return head, x


def pool_reference(head, x, rois, roi_indices, labels=None):
    """The head's pooling rebuilt from its score maps with NumPy."""
    h = F.relu(head.conv1(x))
    cls_seg = ps_roi_average_pooling_2d(
        head.cls_seg(h), rois, roi_indices, (6, 6, 6), 0.25, 3
    ).array.reshape(-1, 3, 2, 6, 6)
    ag_loc = ps_roi_average_pooling_2d(
        head.ag_loc(h), rois, roi_indices, (8, 6, 6), 0.25, 3
    ).array
    cls = cls_seg.max(axis=2).mean(axis=(2, 3))
    locs = ag_loc.mean(axis=(2, 3)).reshape(-1, 2, 4)
    labels = cls.argmax(axis=1) if labels is None else labels
    return cls_seg[np.arange(len(rois)), labels], locs, cls


def test_head_single_pass_matches_reference(head_and_features):
    head, x = head_and_features
    roi_indices = np.array([0, 1, 1], np.int32)
    seg, locs, cls, rois, indices = head(x, ROIS, roi_indices, (32, 32), iter2=False)
    ref_seg, ref_locs, ref_cls = pool_reference(head, x, ROIS, roi_indices)
    assert seg.shape == (3, 2, 6, 6) and locs.shape == (3, 2, 4) and cls.shape == (3, 3)
    np.testing.assert_allclose(cls.array, ref_cls, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(locs.array, ref_locs, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(seg.array, ref_seg, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(rois, ROIS)
    # Given labels choose the mask channel pair instead of the best class.
    labels = np.array([2, 0, 1], np.int32)
    seg, *_ = head(x, ROIS, roi_indices, (32, 32), gt_roi_labels=labels, iter2=False)
    np.testing.assert_allclose(
        seg.array, pool_reference(head, x, ROIS, roi_indices, labels)[0], rtol=1e-5
    )


def test_head_second_pass_pools_the_refined_rois(head_and_features):
    head, x = head_and_features
    roi_indices = np.array([0, 1, 1], np.int32)
    seg, locs, cls, rois, indices = head(x, ROIS, roi_indices, (32, 32))
    assert seg.shape == (6, 2, 6, 6) and cls.shape == (6, 3)
    np.testing.assert_array_equal(indices, [0, 1, 1, 0, 1, 1])
    std = np.array([0.2, 0.2, 0.5, 0.5], np.float32)
    refined = loc2bbox(ROIS, locs.array[:3, 1] * std)
    refined[:, 0::2] = np.clip(refined[:, 0::2], 0, 32)
    refined[:, 1::2] = np.clip(refined[:, 1::2], 0, 32)
    np.testing.assert_allclose(rois[3:], refined, rtol=1e-5, atol=1e-4)
    _, _, ref_cls = pool_reference(head, x, rois[3:], roi_indices)
    np.testing.assert_allclose(cls.array[3:], ref_cls, rtol=1e-4, atol=1e-5)


class Identity(kusari.Chain):
    def forward(self, x):
        return x, x


class FixedRPN(kusari.Chain):
    def __init__(self, rois):
        super().__init__()
        self.rois = rois

    def forward(self, x, img_size, scales=None):
        return None, None, self.rois, np.zeros(len(self.rois), np.int32), None


class FixedHead(kusari.Chain):
    """Every RoI: foreground mask everywhere, class 1 with probability ~0.9."""

    n_class = 3

    def forward(self, x, rois, roi_indices, img_size):
        n = len(rois)
        seg = np.zeros((n, 2, 4, 4), np.float32)
        seg[:, 1] = 5.0
        cls = np.tile(np.array([[0.0, 3.0, 0.8]], np.float32), (n, 1))
        locs = np.zeros((n, 2, 4), np.float32)
        return (
            kusari.Variable(seg),
            kusari.Variable(locs),
            kusari.Variable(cls),
            rois,
            roi_indices,
        )


def fixed_fcis(rois):
    mean = np.zeros((3, 1, 1), np.float32)
    return FCIS(
        Identity(), FixedRPN(rois), FixedHead(), mean, 40, 80, (0,) * 4, (1,) * 4
    )


def test_predict_votes_pastes_and_rescales_masks():
    # The input is resized by 2 (shorter side 20 -> 40); RoIs are in the
    # resized image and come back halved.
    rois = np.array([[0, 0, 20, 20], [0, 0, 20, 24], [24, 30, 40, 60]], np.float32)
    model = fixed_fcis(rois)
    img = np.zeros((3, 20, 30), np.float32)
    masks, labels, scores = model.predict([img])
    masks, labels, scores = masks[0], labels[0], scores[0]
    # The two overlapping RoIs merge into one detection; the third stays.
    np.testing.assert_array_equal(labels, [0, 0])
    assert scores.dtype == np.float32
    expected = np.exp(3.0) / (1 + np.exp(3.0) + np.exp(0.8))
    np.testing.assert_allclose(scores, expected, rtol=1e-5)
    assert masks.shape == (2, 20, 30) and masks.dtype == bool
    # Equal scores: the order of the two detections is not defined.
    merged, apart = (masks[0], masks[1]) if masks[0, 0, 0] else (masks[1], masks[0])
    # The overlap votes 1, B's extra columns 0.5 (>= binary_thresh 0.4).
    expected = np.zeros((20, 30), bool)
    expected[:10, :12] = True
    np.testing.assert_array_equal(merged, expected)
    expected = np.zeros((20, 30), bool)
    expected[12:20, 15:30] = True
    np.testing.assert_array_equal(apart, expected)


def test_predict_drops_small_rois_and_low_scores():
    rois = np.array([[0, 0, 10, 40], [0, 0, 40, 40]], np.float32)
    model = fixed_fcis(rois)
    img = np.zeros((3, 40, 40), np.float32)
    masks, labels, scores = model.predict([img])
    assert masks[0].shape == (1, 40, 40) and masks[0].all()  # the 10-high RoI is gone
    model.score_thresh = 0.95
    masks, labels, scores = model.predict([img])
    assert masks[0].shape == (0, 40, 40) and labels[0].shape == (0,)


def test_presets_and_bad_input():
    model = fixed_fcis(np.zeros((0, 4), np.float32))
    assert model.score_thresh == 0.7 and model.n_class == 3
    model.use_preset("evaluate")
    assert model.score_thresh == 1e-3
    assert (model.nms_thresh, model.mask_merge_thresh, model.binary_thresh) == (
        0.3,
        0.5,
        0.4,
    )
    with pytest.raises(ValueError, match="FCIS.use_preset: expected 'visualize'"):
        model.use_preset("fast")
    # No RoI at all: empty, typed results.
    masks, labels, scores = model.predict([np.zeros((3, 20, 30), np.float32)])
    assert masks[0].shape == (0, 20, 30) and masks[0].dtype == bool
    assert labels[0].dtype == np.int32 and scores[0].dtype == np.float32
    with pytest.raises(ValueError, match="FCIS.predict: expected CHW images"):
        model.predict([np.zeros((4, 4), np.float32)])


def test_resnet101_model_runs_end_to_end():
    model = FCISResNet101(
        n_fg_class=2,
        min_size=64,
        max_size=96,
        resnet_initialW=initializers.Normal(0.002),
        proposal_creator_params={
            "n_test_pre_nms": 100,
            "n_test_post_nms": 10,
            "min_size": 0,
        },
    )
    assert ExperimentalFCIS is FCISResNet101
    assert model.n_class == 3
    assert model.extractor.res5.a.conv2.conv.dilate == (2, 2)
    assert model.extractor.res5.a.conv2.conv.stride == (1, 1)
    assert model.head.cls_seg.W.shape == (7 * 7 * 3 * 2, 1024, 1, 1)
    assert model.head.ag_loc.W.shape == (7 * 7 * 8, 1024, 1, 1)
    assert model.rpn.anchor_base.shape == (9, 4)
    img = np.random.default_rng(0).uniform(0, 255, (3, 48, 64)).astype(np.float32)
    x = model.prepare(img)
    assert x.shape == (3, 64, 85)
    with kusari.using_config("train", False):
        seg, locs, cls, rois, indices = model(x[None], scales=[64 / 48])
    assert seg.shape[1:] == (2, 21, 21) and len(seg) == len(rois) == 2 * len(cls) // 2
    model.use_preset("evaluate")
    model.min_drop_size = 0
    masks, labels, scores = model.predict([img])
    assert masks[0].shape[1:] == (48, 64) and masks[0].dtype == bool
    assert len(masks[0]) == len(labels[0]) == len(scores[0]) <= 100
    assert ((labels[0] >= 0) & (labels[0] < 2)).all()


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n_fg_class": 5, "pretrained_model": "sbd"}, "n_fg_class must be 20"),
        (
            {"n_fg_class": 5, "pretrained_model": "coco_converted"},
            "n_fg_class must be 80",
        ),
        ({}, "n_fg_class must be specified"),
    ],
)
def test_bad_arguments_are_rejected_before_building(kwargs, match):
    with pytest.raises(ValueError, match=match):
        FCISResNet101(**kwargs)


@pytest.mark.parametrize(
    "preset, file",
    [
        ("sbd", "fcis_resnet101_sbd_trained"),
        ("coco_converted", "fcis_resnet101_coco_conv"),
    ],
)
def test_preset_offline_fails_clearly(preset, file, offline):
    with pytest.raises(download.DownloadError, match=f"cannot download .*{file}"):
        FCISResNet101(pretrained_model=preset)


@pytest.mark.slow
def test_npz_round_trip(tmp_path):
    kwargs = {
        "n_fg_class": 2,
        "min_size": 64,
        "max_size": 96,
        "resnet_initialW": initializers.Normal(0.002),
    }
    model = FCISResNet101(**kwargs)
    path = str(tmp_path / "fcis.npz")
    kusari.serializers.save_npz(path, model, compression=False)
    loaded = FCISResNet101(pretrained_model=path, **kwargs)
    np.testing.assert_array_equal(
        loaded.head.cls_seg.W.array, model.head.cls_seg.W.array
    )
    np.testing.assert_array_equal(
        loaded.extractor.res4.b7.conv2.conv.W.array,
        model.extractor.res4.b7.conv2.conv.W.array,
    )
