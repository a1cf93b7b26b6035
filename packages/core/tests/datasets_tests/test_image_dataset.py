import builtins
import zipfile

import numpy as np
import pytest

from kusari import datasets

Image = pytest.importorskip("PIL.Image")


@pytest.fixture
def images(tmp_path):
    rgb = np.arange(4 * 5 * 3, dtype=np.uint8).reshape(4, 5, 3)
    gray = np.arange(6, dtype=np.uint8).reshape(2, 3)
    Image.fromarray(rgb).save(tmp_path / "rgb.png")
    Image.fromarray(gray).save(tmp_path / "gray.png")
    return tmp_path, rgb, gray


def test_image_dataset(images):
    root, rgb, gray = images
    d = datasets.ImageDataset(["rgb.png", "gray.png"], root=str(root))
    x = d[0]
    assert x.shape == (3, 4, 5) and x.dtype == np.float32
    np.testing.assert_array_equal(x, rgb.transpose(2, 0, 1))
    assert d[1].shape == (1, 2, 3)
    (root / "list.txt").write_text("rgb.png\n\ngray.png\n")
    d2 = datasets.ImageDataset(str(root / "list.txt"), root=str(root), dtype=np.uint8)
    assert len(d2) == 2 and d2[1].dtype == np.uint8


def test_labeled_image_dataset(images):
    root, rgb, _ = images
    (root / "pairs.txt").write_text("rgb.png 3\ngray.png 7\n")
    d = datasets.LabeledImageDataset(str(root / "pairs.txt"), root=str(root))
    x, t = d[1]
    assert x.shape == (1, 2, 3) and t == 7 and t.dtype == np.int32
    d2 = datasets.LabeledImageDataset([("rgb.png", 1)], str(root), label_dtype=np.int64)
    assert d2[0][1].dtype == np.int64
    (root / "bad.txt").write_text("rgb.png x\n")
    with pytest.raises(ValueError, match="line 1.*not an integer"):
        datasets.LabeledImageDataset(str(root / "bad.txt"))
    (root / "bad2.txt").write_text("rgb.png\n")
    with pytest.raises(ValueError, match="line 1"):
        datasets.LabeledImageDataset(str(root / "bad2.txt"))


def test_zipped_image_datasets(images):
    root, rgb, gray = images
    with zipfile.ZipFile(root / "a.zip", "w") as zf:
        zf.write(root / "rgb.png", "img/rgb.png")
        zf.writestr("img/", "")
    with zipfile.ZipFile(root / "b.zip", "w") as zf:
        zf.write(root / "gray.png", "gray.png")
    a = datasets.ZippedImageDataset(str(root / "a.zip"))
    assert len(a) == 1 and a.paths() == ["img/rgb.png"]
    np.testing.assert_array_equal(a[0], rgb.transpose(2, 0, 1))
    multi = datasets.MultiZippedImageDataset([str(root / "a.zip"), str(root / "b.zip")])
    assert len(multi) == 2 and multi[1].shape == (1, 2, 3) and multi[-2].shape[0] == 3
    (root / "labels.txt").write_text("gray.png 4\n")
    lab = datasets.LabeledZippedImageDataset(
        str(root / "b.zip"), str(root / "labels.txt")
    )
    x, t = lab[0]
    assert x.shape == (1, 2, 3) and int(t) == 4
    import pickle

    clone = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(clone[0], a[0])


def test_clear_error_without_pillow(monkeypatch):
    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name == "PIL" or name.startswith("PIL."):
            raise ImportError("no PIL")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(
        ImportError, match="ImageDataset needs Pillow.*pip install pillow"
    ):
        datasets.ImageDataset(["x.png"])
