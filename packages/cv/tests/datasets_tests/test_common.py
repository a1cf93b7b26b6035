"""The helpers the data set classes share (kusari_cv.datasets._common)."""

import numpy as np
import pytest
from PIL import Image

from kusari_cv.datasets._common import ImageIdsDataset, check_split, select_keys


def test_select_keys_appends_the_wanted_options_in_order():
    keys = ("img", "label")
    assert select_keys(keys) == keys
    assert select_keys(keys, area=False, crowded=False) == keys
    assert select_keys(keys, area=True, crowded=False, bbox=True) == (
        "img",
        "label",
        "area",
        "bbox",
    )
    assert select_keys(keys, bbox=True, area=True) == ("img", "label", "bbox", "area")


@pytest.mark.parametrize("split", ["train", "trainval", "val"])
def test_check_split_accepts_the_segmentation_splits(split):
    check_split(split, "Owner")


def test_check_split_names_the_owner_and_the_bad_split():
    with pytest.raises(ValueError, match="Owner: split must be .* got 'test'"):
        check_split("test", "Owner")


class _Images(ImageIdsDataset):
    _image_dir = "pictures"

    def __init__(self, data_dir, ids):
        super().__init__()
        self.data_dir, self.ids = data_dir, ids
        self.add_getter("img", self._get_image)


def test_image_ids_dataset_reads_jpegs_from_its_image_dir(tmp_path):
    (tmp_path / "pictures").mkdir()
    Image.fromarray(np.full((4, 5, 3), 200, np.uint8)).save(tmp_path / "pictures/a.jpg")
    dataset = _Images(str(tmp_path), ["a", "missing"])
    assert len(dataset) == 2
    (img,) = dataset[0]
    assert img.shape == (3, 4, 5) and img.dtype == np.float32
    with pytest.raises(FileNotFoundError, match="_Images: expected the image of"):
        dataset[1]
