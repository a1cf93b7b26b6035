import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari_cv.links import (
    DeepLabV3plusXception65,
    PixelwiseSoftmaxClassifier,
    PSPNetResNet50,
    PSPNetResNet101,
    SegNetBasic,
)
from kusari_cv.links.model.pspnet import convolution_crop

# The models are built and their statistics moved with batches of one or two
# small images in training mode, so the last batch normalizations see one
# value per channel and warn (as Chainer's do); the tests compare outputs
# and shapes, which that does not affect.
pytestmark = pytest.mark.filterwarnings(
    "ignore:F.batch_normalization was given a batch of at most one:UserWarning"
)


def image(shape, seed=0):
    return np.random.default_rng(seed).uniform(0, 255, shape).astype(np.float32)


def check_labels(labels, shapes, n_class):
    assert isinstance(labels, list) and len(labels) == len(shapes)
    for label, shape in zip(labels, shapes, strict=True):
        assert label.shape == shape
        assert label.dtype == np.int32
        assert label.min() >= 0 and label.max() < n_class


# --- SegNet -----------------------------------------------------------------


def test_segnet_forward_shape_and_layers():
    model = SegNetBasic(n_class=4)
    assert model.n_class == 4
    y = model(image((2, 3, 32, 48)))
    assert y.shape == (2, 4, 32, 48)
    assert model.conv1.W.shape == (64, 3, 7, 7)
    assert float(model.conv_decode1_bn.beta.array[0]) == pytest.approx(0.001)


def test_segnet_predict_is_argmax_of_test_mode_scores():
    model = SegNetBasic(n_class=5)
    model(image((4, 3, 16, 16), 1))  # a training step's statistics
    img = image((3, 32, 16), 2)
    with kusari.using_config("train", False):
        score = model(img[None]).array[0]
    (label,) = model.predict([img])
    np.testing.assert_array_equal(label, score.argmax(axis=0))


def test_segnet_predict_odd_sizes():
    model = SegNetBasic(n_class=3)
    imgs = [image((3, 20, 30)), image((3, 17, 9), 1)]
    check_labels(model.predict(imgs), [(20, 30), (17, 9)], 3)


def test_segnet_needs_n_class_without_preset():
    with pytest.raises(ValueError, match="n_class must be specified"):
        SegNetBasic()
    with pytest.raises(ValueError, match="n_class must be 11"):
        SegNetBasic(n_class=3, pretrained_model="camvid")


def test_segnet_npz_round_trip(tmp_path):
    model = SegNetBasic(n_class=3)
    x = image((1, 3, 16, 16))
    model(x)
    path = str(tmp_path / "segnet.npz")
    kusari.serializers.save_npz(path, model, compression=False)
    loaded = SegNetBasic(n_class=3, pretrained_model=path)
    with kusari.using_config("train", False):
        np.testing.assert_allclose(loaded(x).array, model(x).array, rtol=1e-5)


# --- PSPNet -----------------------------------------------------------------


def test_convolution_crop_tiles_cover_the_image():
    img = image((2, 10, 13))
    tiles, param = convolution_crop(img, (6, 6), (4, 4), return_param=True)
    assert tiles.shape == (2 * 3, 2, 6, 6)
    covered = np.zeros((10, 13), bool)
    for i, tile in enumerate(tiles):
        ys, xs = param["y_slices"][i], param["x_slices"][i]
        cys, cxs = param["crop_y_slices"][i], param["crop_x_slices"][i]
        np.testing.assert_array_equal(tile[:, cys, cxs], img[:, ys, xs])
        outside = np.ones((6, 6), bool)
        outside[cys, cxs] = False
        assert (tile[:, outside] == 0).all()
        covered[ys, xs] = True
    assert covered.all()
    # An image no larger than a tile gives one tile.
    assert convolution_crop(img, (12, 16), (8, 8)).shape == (1, 2, 12, 16)


def test_pspnet_forward_shape_and_extractor():
    model = PSPNetResNet50(n_class=3, input_size=40)
    assert model.input_size == (40, 40)
    assert model.n_class == 3
    assert model.extractor.pick == ("res4", "res5")
    assert model.extractor.res4.a.conv2.conv.dilate == (2, 2)
    assert model.extractor.res5.a.conv2.conv.dilate == (4, 4)
    res4, res5 = model.extractor(image((1, 3, 40, 40)))
    # Stride 8 (the stem's pooling covers all pixels, hence 6 not 5).
    assert res4.shape == (1, 1024, 6, 6) and res5.shape == (1, 2048, 6, 6)
    assert model(image((2, 3, 40, 40))).shape == (2, 3, 40, 40)


def test_pspnet_predict_averages_the_mirrored_prediction():
    model = PSPNetResNet50(n_class=4, input_size=(32, 32))
    img = image((3, 32, 32), 3)
    x = (img - model.mean)[None].astype(np.float32)
    with kusari.using_config("train", False):
        p = F.softmax(model(x)).array
        q = F.softmax(model(x[:, :, :, ::-1].copy())).array[:, :, :, ::-1]
    expect = ((p + q) / 2)[0].argmax(axis=0)
    (label,) = model.predict([img])
    np.testing.assert_array_equal(label, expect)


def test_pspnet_predict_small_and_tiled_images():
    model = PSPNetResNet50(n_class=3, input_size=(16, 16))
    shapes = [(14, 10), (30, 20)]  # padded into one input / tiled
    check_labels(model.predict([image((3,) + s) for s in shapes]), shapes, 3)
    model.scales = (0.5, 1.0)
    check_labels(model.predict([image((3, 14, 10))]), [(14, 10)], 3)


def test_pspnet_presets_check_n_class():
    with pytest.raises(ValueError, match="n_class must be 19"):
        PSPNetResNet50(n_class=3, pretrained_model="cityscapes")
    with pytest.raises(ValueError, match="n_class must be specified"):
        PSPNetResNet50()


@pytest.mark.slow
def test_pspnet_resnet101():
    model = PSPNetResNet101(n_class=2, input_size=16)
    assert len(model.extractor.res4.layer_names) == 23
    check_labels(model.predict([image((3, 16, 20))]), [(16, 20)], 2)


# --- DeepLab v3+ ------------------------------------------------------------


@pytest.fixture(scope="module")
def deeplab():
    model = DeepLabV3plusXception65(n_class=3, min_input_size=33)
    model(np.zeros((1, 3, 33, 33), np.float32))  # initialize
    return model


def test_deeplab_structure_and_forward_shape(deeplab):
    assert deeplab.min_input_size == (33, 33)
    assert deeplab.scales == (1.0,) and deeplab.flip is False
    ext = deeplab.feature_extractor
    assert ext.middleflow_block16.separable1.depthwise.dilate == (2, 2)
    assert ext.middleflow_block16.separable1.depthwise.groups == 728
    assert deeplab.aspp.atrous3.depthwise.dilate == (36, 36)
    x = image((1, 3, 33, 41)) / 127.5 - 1
    lowlevel, highlevel = ext(x)
    assert lowlevel.shape == (1, 256, 9, 11)
    assert highlevel.shape == (1, 2048, 5, 6)  # output stride 8
    with kusari.using_config("train", False):
        assert deeplab(x).shape == (1, 3, 9, 11)


def test_deeplab_prepare_pads_with_mean_and_scales(deeplab, monkeypatch):
    monkeypatch.setattr(deeplab, "min_input_size", (8, 6))
    img = image((3, 5, 7))
    out = deeplab.prepare(img)
    assert out.shape == (3, 8, 7)
    np.testing.assert_allclose(out[:, :5, :7], img / 127.5 - 1, rtol=1e-6)
    np.testing.assert_allclose(out[:, 5:], 0, atol=1e-7)  # the mean, 127.5


def test_deeplab_predict_matches_forward(deeplab):
    img = image((3, 20, 25), 4)
    x = deeplab.prepare(img)[None]
    with kusari.using_config("train", False):
        prob = F.softmax(deeplab(x), axis=1)
        score = F.resize_images(prob, x.shape[2:]).array[0, :, :20, :25]
    (label,) = deeplab.predict([img])
    np.testing.assert_array_equal(label, score.argmax(axis=0))


def test_deeplab_predict_with_flip_and_scales(deeplab):
    deeplab.flip = True
    deeplab.scales = (0.75, 1.0)
    try:
        labels = deeplab.predict([image((3, 20, 25)), image((3, 40, 36), 1)])
    finally:
        deeplab.flip = False
        deeplab.scales = (1.0,)
    check_labels(labels, [(20, 25), (40, 36)], 3)


def test_deeplab_preset_fixes_n_class_and_bn_eps():
    with pytest.raises(ValueError, match="n_class must be 21"):
        DeepLabV3plusXception65(n_class=3, pretrained_model="voc")
    with pytest.raises(ValueError, match="n_class must be specified"):
        DeepLabV3plusXception65()


# --- PixelwiseSoftmaxClassifier ---------------------------------------------


class FixedScores(kusari.Link):
    n_class = 3

    def __init__(self, score):
        super().__init__()
        self.score = score

    def forward(self, x):
        return kusari.Variable(self.score)


def test_pixelwise_softmax_classifier_loss_matches_numpy():
    rng = np.random.default_rng(0)
    score = rng.normal(size=(2, 3, 4, 5)).astype(np.float32)
    t = rng.integers(-1, 3, size=(2, 4, 5)).astype(np.int32)
    weight = np.array([0.5, 1.0, 2.0], np.float32)
    model = PixelwiseSoftmaxClassifier(FixedScores(score), class_weight=weight)
    reporter = kusari.reporter.Reporter()
    reporter.add_observer("main", model)
    observation = {}
    with reporter.scope(observation):
        loss = model(np.zeros((2, 3, 4, 5), np.float32), t)
    logp = score - np.log(np.exp(score).sum(axis=1, keepdims=True))
    mask = t != -1
    tt = np.where(mask, t, 0)
    picked = np.take_along_axis(logp, tt[:, None], axis=1)[:, 0]
    expect = -(weight[tt] * picked * mask).sum() / mask.sum()
    assert float(loss.array) == pytest.approx(expect, rel=1e-5)
    assert model.y.shape == (2, 3, 4, 5)
    assert float(observation["main/loss"].array) == pytest.approx(expect, rel=1e-5)


def test_pixelwise_softmax_classifier_checks_class_weight():
    with pytest.raises(ValueError, match=r"class_weight must have shape \(3,\)"):
        PixelwiseSoftmaxClassifier(FixedScores(None), class_weight=[1.0, 2.0])
