import pytest

from kusari_cv.utils import link as link_module
from kusari_cv.utils import prepare_pretrained_model

MODELS = {
    "voc": {
        "param": {"n_fg_class": 20, "size": 300},
        "overwritable": {"size"},
        "url": "https://example.invalid/voc.npz",
    },
    "voc_cv2": {
        "param": {"n_fg_class": 20},
        "url": "https://example.invalid/voc_cv2.npz",
        "cv2": True,
    },
}


@pytest.fixture
def downloads(monkeypatch):
    calls = []

    def fake_download(url, *args, **kwargs):
        calls.append(url)
        return "/cache/" + url.rsplit("/", 1)[1]

    monkeypatch.setattr(link_module, "download_model", fake_download)
    return calls


def test_named_model_fills_parameters(downloads):
    param, path = prepare_pretrained_model(
        {"n_fg_class": None, "size": None}, "voc", MODELS
    )
    assert param == {"n_fg_class": 20, "size": 300}
    assert path == "/cache/voc.npz" and downloads == ["https://example.invalid/voc.npz"]


def test_conflicts_and_overwritable(downloads):
    with pytest.raises(ValueError, match="n_fg_class must be 20"):
        prepare_pretrained_model({"n_fg_class": 10, "size": None}, "voc", MODELS)
    param, _ = prepare_pretrained_model({"n_fg_class": 20, "size": 512}, "voc", MODELS)
    assert param["size"] == 512


def test_path_default_and_missing(downloads):
    param, path = prepare_pretrained_model(
        {"n_fg_class": 5, "size": None}, "weights.npz", MODELS, {"size": 224}
    )
    assert param == {"n_fg_class": 5, "size": 224} and path == "weights.npz"
    param, path = prepare_pretrained_model({"n_fg_class": 5}, None, MODELS)
    assert path is None
    with pytest.raises(ValueError, match="n_fg_class must be specified"):
        prepare_pretrained_model({"n_fg_class": None}, None, MODELS)
    assert downloads == []


def test_cv2_trained_weights_warn_without_cv2(downloads, monkeypatch):
    monkeypatch.setattr(link_module._config, "cv2_available", False)
    with pytest.warns(RuntimeWarning, match="OpenCV is not installed"):
        prepare_pretrained_model({"n_fg_class": None}, "voc_cv2", MODELS)
