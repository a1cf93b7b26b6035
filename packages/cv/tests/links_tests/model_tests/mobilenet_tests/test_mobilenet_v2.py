import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.dataset import download
from kusari_cv.links import MobileNetV2

# The models are built and their statistics moved with batches of one or two
# small images in training mode, so the last batch normalizations see one
# value per channel and warn (as Chainer's do); the tests compare outputs
# and shapes, which that does not affect.
pytestmark = pytest.mark.filterwarnings(
    "ignore:F.batch_normalization was given a batch of at most one:UserWarning"
)

LAYERS = (
    ["conv", "expanded_conv"]
    + [f"expanded_conv_{i}" for i in range(1, 17)]
    + ["conv1", "global_average_pool", "logits_conv", "squeeze", "softmax"]
)


def images(n=2, size=32, seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(-1, 1, (n, 3, size, size)).astype(np.float32)


def test_layers_and_output_shapes():
    model = MobileNetV2(n_class=7)
    assert model.layer_names == LAYERS
    assert model.n_class == 7
    model.pick = (
        "conv",
        "expanded_conv",
        "expanded_conv_2",
        "expanded_conv_5",
        "expanded_conv_12",
        "expanded_conv_16",
        "conv1",
        "global_average_pool",
        "squeeze",
        "softmax",
    )
    with kusari.using_config("train", False):
        hs = model(images(2, 64))
    shapes = [h.shape for h in hs]
    assert shapes == [
        (2, 32, 32, 32),
        (2, 16, 32, 32),
        (2, 24, 16, 16),
        (2, 32, 8, 8),
        (2, 96, 4, 4),
        (2, 320, 2, 2),
        (2, 1280, 2, 2),
        (2, 1280, 1, 1),
        (2, 7),
        (2, 7),
    ]
    conv1, pool, logits, prob = hs[6:]
    np.testing.assert_allclose(
        pool.array[:, :, 0, 0], conv1.array.mean(axis=(2, 3)), rtol=1e-5
    )
    np.testing.assert_allclose(
        prob.array, F.softmax(logits).array, rtol=1e-5, atol=1e-7
    )
    np.testing.assert_allclose(prob.array.sum(axis=1), 1, rtol=1e-5)


def test_odd_input_size_rounds_up_like_tensorflow():
    model = MobileNetV2(n_class=3)
    model.pick = ("conv", "expanded_conv_16")
    with kusari.using_config("train", False):
        conv, last = model(images(1, 33))
    # 33 -> 17 -> 9 -> 5 -> 3 -> 2 ('SAME': ceil at every stride 2).
    assert conv.shape == (1, 32, 17, 17)
    assert last.shape == (1, 320, 2, 2)


def test_pick_stops_early_and_default_returns_probabilities():
    model = MobileNetV2(n_class=4)
    model.pick = "expanded_conv_3"
    assert model(images(1)).shape == (1, 32, 4, 4)
    model.pick = None
    with kusari.using_config("train", False):
        y = model(images(1))
    assert y.shape == (1, 4)
    assert y.dtype == np.float32


@pytest.mark.parametrize(
    "multiplier, conv, first, last, conv1",
    [(1.0, 32, 16, 320, 1280), (1.4, 48, 24, 448, 1792), (0.35, 16, 8, 112, 1280)],
)
def test_depth_multiplier_channel_counts(multiplier, conv, first, last, conv1):
    model = MobileNetV2(n_class=1001, depth_multiplier=multiplier)
    assert model.conv.conv.W.shape == (conv, 3, 3, 3)
    assert model.expanded_conv.project.conv.W.shape[0] == first
    assert not hasattr(model.expanded_conv, "expand")
    assert model.expanded_conv_16.project.conv.W.shape[0] == last
    assert model.conv1.conv.W.shape[0] == conv1
    assert model.logits_conv.W.shape == (1001, conv1, 1, 1)
    assert model.logits_conv.b.shape == (1001,)


def test_parameter_count_matches_tensorflow_model():
    # TensorFlow's mobilenet_v2_1.0_224 has 3,504,872 trainable parameters
    # with 1000 classes; the background class adds 1280 weights and a bias.
    model = MobileNetV2(n_class=1001)
    assert sum(p.size for p in model.params()) == 3504872 + 1281


def test_tensorflow_batch_normalization_defaults():
    model = MobileNetV2(n_class=2)
    for bn in (model.conv.bn, model.expanded_conv_7.depthwise.bn, model.conv1.bn):
        assert bn.eps == 1e-3
        assert bn.decay == 0.999
    custom = MobileNetV2(n_class=2, bn_kwargs={"eps": 1e-5})
    assert custom.expanded_conv_3.expand.bn.eps == 1e-5


def test_training_step_reaches_every_parameter():
    model = MobileNetV2(n_class=3)
    model.pick = "squeeze"
    model.cleargrads()
    loss = F.softmax_cross_entropy(model(images(2)), np.array([0, 2], np.int32))
    loss.backward()
    for name, param in model.namedparams():
        assert param.grad is not None and np.isfinite(param.grad).all(), name


def test_npz_round_trip_restores_outputs(tmp_path):
    x = images(1, 32, seed=3)
    model = MobileNetV2(n_class=5)
    with kusari.using_config("train", True):
        model(x)  # moves the batch-norm statistics away from their initial values
    path = str(tmp_path / "model.npz")
    kusari.serializers.save_npz(path, model, compression=False)
    loaded = MobileNetV2(n_class=5, pretrained_model=path)
    np.testing.assert_array_equal(
        loaded.expanded_conv_4.depthwise.bn.avg_var,
        model.expanded_conv_4.depthwise.bn.avg_var,
    )
    np.testing.assert_array_equal(loaded.logits_conv.b.array, model.logits_conv.b.array)
    with kusari.using_config("train", False):
        np.testing.assert_allclose(
            loaded(x).array, model(x).array, rtol=1e-5, atol=1e-7
        )


def test_npz_keys_follow_chainercv_layout(tmp_path):
    model = MobileNetV2(n_class=2)
    path = tmp_path / "model.npz"
    kusari.serializers.save_npz(str(path), model, compression=False)
    with np.load(path) as f:
        keys = set(f.files)
    assert {
        "conv/conv/conv/W",
        "conv/bn/avg_mean",
        "expanded_conv/depthwise/conv/conv/W",
        "expanded_conv_1/expand/conv/conv/W",
        "expanded_conv_16/project/bn/gamma",
        "conv1/conv/conv/W",
        "logits_conv/conv/W",
        "logits_conv/conv/b",
    } <= keys
    assert not any(k.startswith("expanded_conv/expand/") for k in keys)


def test_thousand_categories_mode_drops_the_background_class(tmp_path):
    model = MobileNetV2(n_class=1001)
    path = str(tmp_path / "model.npz")
    kusari.serializers.save_npz(path, model, compression=False)
    loaded = MobileNetV2(
        n_class=1001, pretrained_model=path, thousand_categories_mode=True
    )
    assert loaded.n_class == 1000
    np.testing.assert_array_equal(
        loaded.logits_conv.W.array, model.logits_conv.W.array[1:]
    )
    np.testing.assert_array_equal(
        loaded.logits_conv.b.array, model.logits_conv.b.array[1:]
    )
    for m in (model, loaded):
        m.pick = "squeeze"
    x = images(1)
    with kusari.using_config("train", False):
        np.testing.assert_allclose(
            loaded(x).array, model(x).array[:, 1:], rtol=1e-5, atol=1e-6
        )
    # Without the flag (or with 1000 classes) nothing is dropped.
    assert MobileNetV2(n_class=1000, thousand_categories_mode=True).n_class == 1000


def test_default_n_class_and_mean():
    model = MobileNetV2()
    assert model.n_class == 1000
    np.testing.assert_allclose(
        model.mean.ravel(), [123.68, 116.779, 103.939], rtol=1e-6
    )
    mean = np.zeros((3, 1, 1), np.float32)
    assert MobileNetV2(n_class=2, mean=mean).mean is mean


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n_class": 10, "pretrained_model": "imagenet"}, "n_class must be 1001"),
        (
            {"depth_multiplier": 0.5, "pretrained_model": "imagenet"},
            "MobileNetV2: pretrained weights 'imagenet' exist for depth_multiplier "
            "1.0, 1.4 only, got 0.5",
        ),
        ({"depth_multiplier": 0}, "MobileNetV2: depth_multiplier must be positive"),
        ({"arch": "torch"}, "MobileNetV2: arch must be 'tf', got 'torch'"),
    ],
)
def test_bad_arguments_are_rejected_before_download(kwargs, match):
    with pytest.raises(ValueError, match=match):
        MobileNetV2(**kwargs)


@pytest.mark.parametrize("multiplier", [1.0, 1.4])
def test_preset_offline_fails_clearly(multiplier, offline):
    file = f"mobilenet_v2_depth_multiplier_{multiplier}_imagenet_converted"
    with pytest.raises(download.DownloadError, match=f"cannot download .*{file}"):
        MobileNetV2(pretrained_model="imagenet", depth_multiplier=multiplier)


def test_preset_loads_weights_already_in_the_model_directory(offline):
    model = MobileNetV2(n_class=1001)
    x = images(1, 32, seed=5)
    with kusari.using_config("train", True):
        model(x)
    models = offline / "pfnet" / "chainercv" / "models"
    models.mkdir(parents=True)
    path = (
        models / "mobilenet_v2_depth_multiplier_1.0_imagenet_converted_2019_05_13.npz"
    )
    kusari.serializers.save_npz(str(path), model, compression=False)
    loaded = MobileNetV2(pretrained_model="imagenet")
    assert loaded.n_class == 1001
    np.testing.assert_allclose(loaded.mean.ravel(), [128, 128, 128])
    with kusari.using_config("train", False):
        np.testing.assert_allclose(
            loaded(x).array, model(x).array, rtol=1e-5, atol=1e-7
        )
