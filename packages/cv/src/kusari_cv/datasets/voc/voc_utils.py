"""PASCAL VOC: download locations, label names and colors, shared parsing."""

from __future__ import annotations

import os

import numpy as np

from kusari_cv.datasets._common import prepare, read_lines

#: Archives of the official release, with the MD5 digests the host publishes.
urls = {
    "2012": (
        "http://host.robots.ox.ac.uk/pascal/VOC/voc2012/VOCtrainval_11-May-2012.tar",
        "6cd6e144f989b92b3379bac3b3de84fd",
    ),
    "2007": (
        "http://host.robots.ox.ac.uk/pascal/VOC/voc2007/VOCtrainval_06-Nov-2007.tar",
        "c52e279531787c972589f7e41ab4ae64",
    ),
    "2007_test": (
        "http://host.robots.ox.ac.uk/pascal/VOC/voc2007/VOCtest_06-Nov-2007.tar",
        "b6e924de25625d8de591ea690078ad9f",
    ),
}


def get_voc(year: str, split: str, owner: str = "get_voc") -> str:
    """Return ``.../VOCdevkit/VOC<year>``, downloading it when missing."""
    if year not in ("2007", "2012"):
        raise ValueError(f"{owner}: year must be '2007' or '2012', got {year!r}")
    key = "2007_test" if (year == "2007" and split == "test") else year

    def base(root: str) -> str:
        return os.path.join(root, "VOCdevkit", f"VOC{year}")

    def ready(root: str) -> bool:
        return os.path.exists(
            os.path.join(base(root), "ImageSets", "Main", f"{split}.txt")
        )

    return base(prepare("voc", owner, ready, [urls[key]]))


def read_ids(data_dir: str, kind: str, split: str, owner: str) -> list[str]:
    """Read ``ImageSets/<kind>/<split>.txt`` (one image id per line)."""
    path = os.path.join(data_dir, "ImageSets", kind, f"{split}.txt")
    return read_lines(path, owner, f"the list of {split!r} image ids")


def image_wise_to_instance_wise(
    label_img: np.ndarray, inst_img: np.ndarray, source: str = "the label image"
) -> tuple[np.ndarray, np.ndarray]:
    """Split a class map and an instance map into per-instance masks.

    Args:
        label_img: ``(H, W)`` int class ids where ``0`` is background and
            ``-1`` is ignored.
        inst_img: ``(H, W)`` int instance ids where ``-1`` marks no instance.
        source: Named in the error when an instance has no class.

    Returns:
        ``mask`` of shape ``(R, H, W)`` (bool) and ``label`` of shape ``(R,)``
        (int32, foreground classes starting at 0).
    """
    ids = np.unique(inst_img)
    ids = ids[ids != -1]
    mask = inst_img[None] == ids[:, None, None]
    label = np.empty(len(ids), dtype=np.int32)
    for r, m in enumerate(mask):
        classes = np.unique(label_img[m])
        classes = classes[classes > 0]
        if len(classes) == 0:
            raise ValueError(
                f"instance {ids[r]} in {source} covers no foreground class pixel"
            )
        # The object's class is the one most of its pixels carry.
        counts = [(label_img[m] == c).sum() for c in classes]
        label[r] = classes[int(np.argmax(counts))] - 1
    return mask.astype(bool), label


voc_bbox_label_names = (
    "aeroplane",
    "bicycle",
    "bird",
    "boat",
    "bottle",
    "bus",
    "car",
    "cat",
    "chair",
    "cow",
    "diningtable",
    "dog",
    "horse",
    "motorbike",
    "person",
    "pottedplant",
    "sheep",
    "sofa",
    "train",
    "tvmonitor",
)

voc_semantic_segmentation_label_names = ("background", *voc_bbox_label_names)

voc_instance_segmentation_label_names = voc_bbox_label_names

# The palette of the VOC development kit: class c gets the color whose bits
# interleave the bits of c (MATLAB's labelcolormap).
voc_semantic_segmentation_label_colors = tuple(
    tuple(
        sum(((c >> (3 * k + channel)) & 1) << (7 - k) for k in range(3))
        for channel in range(3)
    )
    for c in range(21)
)
voc_semantic_segmentation_ignore_label_color = (224, 224, 192)
