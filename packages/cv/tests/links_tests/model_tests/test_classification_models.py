import numpy as np
import pytest

import kusari
from kusari.dataset import download
from kusari_cv.links import (
    VGG16,
    ResNet50,
    ResNet101,
    ResNet152,
    SEResNet50,
    SEResNet101,
    SEResNet152,
    SEResNeXt50,
    SEResNeXt101,
)

# The models are built and their statistics moved with batches of one or two
# small images in training mode, so the last batch normalizations see one
# value per channel and warn (as Chainer's do); the tests compare outputs
# and shapes, which that does not affect.
pytestmark = pytest.mark.filterwarnings(
    "ignore:F.batch_normalization was given a batch of at most one:UserWarning"
)

RESNET_LAYERS = [
    "conv1",
    "pool1",
    "res2",
    "res3",
    "res4",
    "res5",
    "pool5",
    "fc6",
    "prob",
]


def images(n=2, size=32, seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(-1, 1, (n, 3, size, size)).astype(np.float32)


def check_probabilities(y, n, n_class):
    assert y.shape == (n, n_class)
    assert y.dtype == np.float32
    np.testing.assert_allclose(y.array.sum(axis=1), 1, rtol=1e-5)
    assert (y.array >= 0).all()


@pytest.mark.parametrize("cls", [ResNet50, SEResNet50, SEResNeXt50])
def test_resnet_family_outputs_and_stage_shapes(cls):
    model = cls(n_class=7)
    assert model.layer_names == RESNET_LAYERS
    assert model.mean.shape == (3, 1, 1)
    x = images()
    with kusari.using_config("train", False):
        check_probabilities(model(x), 2, 7)
        model.pick = ("res2", "res3", "res4", "res5", "pool5", "fc6")
        res2, res3, res4, res5, pool5, fc6 = model(x)
    assert res2.shape == (2, 256, 8, 8)
    assert res3.shape == (2, 512, 4, 4)
    assert res4.shape == (2, 1024, 2, 2)
    assert res5.shape == (2, 2048, 1, 1)
    np.testing.assert_allclose(pool5.array, res5.array[:, :, 0, 0], rtol=1e-6)
    assert fc6.shape == (2, 7)


@pytest.mark.parametrize(
    "cls, n_res4",
    [
        pytest.param(ResNet101, 23, marks=pytest.mark.slow),
        (ResNet152, 36),
        pytest.param(SEResNet101, 23, marks=pytest.mark.slow),
    ],
)
def test_deeper_variants_have_their_block_counts(cls, n_res4):
    model = cls(n_class=3)
    assert len(model.res4.layer_names) == n_res4
    model.pick = "res3"
    model.remove_unused()
    assert model(images(1)).shape == (1, 512, 4, 4)


@pytest.mark.slow
@pytest.mark.parametrize(
    "cls",
    [ResNet101, ResNet152, SEResNet101, SEResNet152, SEResNeXt101],
)
def test_deeper_variants_full_forward(cls):
    model = cls(n_class=5)
    with kusari.using_config("train", False):
        check_probabilities(model(images(1, 64)), 1, 5)


def test_resnet_arch_moves_the_stride_and_stem_bias():
    fb = ResNet50(n_class=2, arch="fb")
    he = ResNet50(n_class=2, arch="he")
    assert fb.res3.a.conv1.conv.stride == (1, 1)
    assert fb.res3.a.conv2.conv.stride == (2, 2)
    assert he.res3.a.conv1.conv.stride == (2, 2)
    assert he.res3.a.conv2.conv.stride == (1, 1)
    # Kaiming He's ResNet-50 has a stem bias; his deeper nets and "fb" do not.
    assert fb.conv1.conv.b is None
    assert he.conv1.conv.b is not None
    assert ResNet101(n_class=2, arch="he").conv1.conv.b is None
    he.pick = "res5"
    assert he(images(1)).shape == (1, 2048, 1, 1)


def test_resnet_rejects_unknown_arch():
    with pytest.raises(ValueError, match="ResNet50: arch must be 'fb' or 'he'"):
        ResNet50(arch="xx")


def test_seresnext_uses_grouped_convolutions_and_se_blocks():
    model = SEResNeXt50(n_class=2)
    assert model.res2.a.conv2.conv.groups == 32
    assert model.res2.a.conv2.conv.W.shape == (128, 4, 3, 3)
    assert model.res2.a.se.down.W.shape == (16, 256)
    assert SEResNet50(n_class=2).res3.a.conv1.conv.stride == (2, 2)


def test_vgg16_outputs_and_layers():
    model = VGG16(n_class=4)
    assert model.layer_names[:3] == ["conv1_1", "conv1_2", "pool1"]
    assert model.layer_names[-4:] == ["fc7_relu", "fc7_dropout", "fc8", "prob"]
    model.pick = ("conv5_3", "pool5", "fc7", "prob")
    with kusari.using_config("train", False):
        conv5_3, pool5, fc7, prob = model(images(2, 32))
    assert conv5_3.shape == (2, 512, 2, 2)
    assert pool5.shape == (2, 512, 1, 1)
    assert fc7.shape == (2, 4096)
    check_probabilities(prob, 2, 4)


def test_default_n_class_and_mean_without_preset():
    model = ResNet50()
    assert model.fc6.out_size == 1000
    np.testing.assert_allclose(
        model.mean.ravel(), [123.15163084, 115.90288257, 103.0626238], rtol=1e-6
    )
    mean = np.zeros((3, 1, 1), np.float32)
    assert VGG16(n_class=2, mean=mean).mean is mean


@pytest.mark.parametrize(
    "cls", [ResNet50, SEResNeXt50, pytest.param(VGG16, marks=pytest.mark.slow)]
)
def test_npz_round_trip_restores_outputs(cls, tmp_path):
    x = images(1, 32, seed=3)
    model = cls(n_class=3)
    with kusari.using_config("train", True):
        model(x)  # moves the batch-norm statistics away from their initial values
    path = str(tmp_path / "model.npz")
    kusari.serializers.save_npz(path, model, compression=False)
    loaded = cls(n_class=3, pretrained_model=path)
    with kusari.using_config("train", False):
        np.testing.assert_allclose(
            loaded(x).array, model(x).array, rtol=1e-5, atol=1e-7
        )
    # Parameters are copied, not only outputs that happen to agree.
    np.testing.assert_array_equal(loaded.fc6.W.array, model.fc6.W.array)


def test_npz_with_wrong_n_class_fails_to_load(tmp_path):
    path = str(tmp_path / "model.npz")
    model = ResNet50(n_class=3)
    model(images(1))
    kusari.serializers.save_npz(path, model, compression=False)
    with pytest.raises(ValueError):
        ResNet50(n_class=5, pretrained_model=path)


def test_preset_that_disagrees_with_n_class_is_rejected_before_download():
    with pytest.raises(ValueError, match="n_class must be 1000"):
        ResNet50(n_class=10, pretrained_model="imagenet")


@pytest.mark.parametrize(
    "make, file",
    [
        (lambda: ResNet50(pretrained_model="imagenet"), "resnet50_imagenet_trained"),
        (lambda: ResNet101(arch="he", pretrained_model="imagenet"), "resnet101_"),
        (lambda: VGG16(pretrained_model="imagenet"), "vgg16_imagenet"),
        (lambda: SEResNeXt50(pretrained_model="imagenet"), "se_resnext50_imagenet"),
    ],
)
def test_preset_name_offline_fails_clearly(make, file, offline, capsys):
    with pytest.raises(download.DownloadError, match=f"cannot download .*{file}"):
        make()


def test_preset_name_loads_weights_already_in_the_model_directory(offline):
    # A preset whose file is in <dataset root>/pfnet/chainercv/models loads
    # without any network access.
    model = ResNet50(arch="he", n_class=1000)
    x = images(1, 32, seed=5)
    model(x)
    models = offline / "pfnet" / "chainercv" / "models"
    models.mkdir(parents=True)
    path = models / "resnet50_imagenet_converted_2018_03_07.npz"
    kusari.serializers.save_npz(str(path), model, compression=False)
    loaded = ResNet50(arch="he", pretrained_model="imagenet")
    with kusari.using_config("train", False):
        np.testing.assert_allclose(loaded(x).array, model(x).array, rtol=1e-5)
