"""MS COCO: download locations, label names and colors."""

from __future__ import annotations

import os

from kusari_cv.datasets._common import prepare
from kusari_cv.utils.download import extractall

_ZIPS = "http://images.cocodataset.org/zips/"
_ANNOTATIONS = "http://images.cocodataset.org/annotations/"

img_urls = {
    "2014": {"train": _ZIPS + "train2014.zip", "val": _ZIPS + "val2014.zip"},
    "2017": {"train": _ZIPS + "train2017.zip", "val": _ZIPS + "val2017.zip"},
}
instances_anno_urls = {
    "2014": {
        "train": _ANNOTATIONS + "annotations_trainval2014.zip",
        "val": _ANNOTATIONS + "annotations_trainval2014.zip",
        "valminusminival": "https://dl.dropboxusercontent.com/s/"
        "s3tw5zcg7395368/instances_valminusminival2014.json.zip",
        "minival": "https://dl.dropboxusercontent.com/s/o43o90bna78omob/"
        "instances_minival2014.json.zip",
    },
    "2017": {
        "train": _ANNOTATIONS + "annotations_trainval2017.zip",
        "val": _ANNOTATIONS + "annotations_trainval2017.zip",
    },
}
panoptic_anno_url = _ANNOTATIONS + "panoptic_annotations_trainval2017.zip"


def get_coco(
    split: str, img_split: str, year: str, mode: str, owner: str = "get_coco"
) -> str:
    """Return the COCO root (``images/``, ``annotations/``), downloading parts.

    Args:
        split: Annotation split (``'train'``, ``'val'``, ``'minival'``, ...).
        img_split: Image split, ``'train'`` or ``'val'``.
        year: ``'2014'`` or ``'2017'``.
        mode: ``'instances'``, ``'person_keypoints'`` or ``'panoptic'``.
    """
    if year not in img_urls:
        raise ValueError(f"{owner}: year must be '2014' or '2017', got {year!r}")
    if mode == "panoptic":
        anno_url = panoptic_anno_url
    else:
        try:
            anno_url = instances_anno_urls[year][split]
        except KeyError:
            raise ValueError(
                f"{owner}: COCO {year} has no split {split!r}; choose from "
                f"{sorted(instances_anno_urls[year])}"
            ) from None
    img_dir = os.path.join("images", f"{img_split}{year}")
    anno_file = os.path.join("annotations", f"{mode}_{split}{year}.json")

    def images_ready(root: str) -> bool:
        return os.path.isdir(os.path.join(root, img_dir))

    def annotations_ready(root: str) -> bool:
        if not os.path.exists(os.path.join(root, anno_file)):
            return False
        return mode != "panoptic" or os.path.isdir(
            os.path.join(root, "annotations", f"panoptic_{split}{year}")
        )

    # The trainval zips unpack to annotations/...; the minival jsons do not.
    def anno_destination(root: str) -> str:
        if split in ("minival", "valminusminival"):
            return os.path.join(root, "annotations")
        return root

    root = prepare(
        "coco",
        owner,
        images_ready,
        [(img_urls[year][img_split], None)],
        lambda root: os.path.join(root, "images"),
    )

    def finish(root: str) -> None:
        if mode == "panoptic":
            # The panoptic PNGs come as a zip inside the annotation zip.
            inner = os.path.join(root, "annotations", f"panoptic_{split}{year}.zip")
            extractall(inner, os.path.join(root, "annotations"), ".zip")

    prepare(
        "coco", owner, annotations_ready, [(anno_url, None)], anno_destination, finish
    )
    return root


coco_bbox_label_names = (
    "person", "bicycle", "car", "motorcycle", "airplane", "bus", "train",
    "truck", "boat", "traffic light", "fire hydrant", "stop sign",
    "parking meter", "bench", "bird", "cat", "dog", "horse", "sheep", "cow",
    "elephant", "bear", "zebra", "giraffe", "backpack", "umbrella", "handbag",
    "tie", "suitcase", "frisbee", "skis", "snowboard", "sports ball", "kite",
    "baseball bat", "baseball glove", "skateboard", "surfboard",
    "tennis racket", "bottle", "wine glass", "cup", "fork", "knife", "spoon",
    "bowl", "banana", "apple", "sandwich", "orange", "broccoli", "carrot",
    "hot dog", "pizza", "donut", "cake", "chair", "couch", "potted plant",
    "bed", "dining table", "toilet", "tv", "laptop", "mouse", "remote",
    "keyboard", "cell phone", "microwave", "oven", "toaster", "sink",
    "refrigerator", "book", "clock", "vase", "scissors", "teddy bear",
    "hair drier", "toothbrush",
)  # fmt: skip

coco_instance_segmentation_label_names = coco_bbox_label_names

#: The 80 thing classes followed by the 53 stuff classes of COCO panoptic.
coco_semantic_segmentation_label_names = (
    *coco_bbox_label_names,
    "banner", "blanket", "bridge", "cardboard", "counter", "curtain",
    "door-stuff", "floor-wood", "flower", "fruit", "gravel", "house", "light",
    "mirror-stuff", "net", "pillow", "platform", "playingfield", "railroad",
    "river", "road", "roof", "sand", "sea", "shelf", "snow", "stairs", "tent",
    "towel", "wall-brick", "wall-stone", "wall-tile", "wall-wood",
    "water-other", "window-blind", "window-other", "tree-merged",
    "fence-merged", "ceiling-merged", "sky-other-merged", "cabinet-merged",
    "table-merged", "floor-other-merged", "pavement-merged",
    "mountain-merged", "grass-merged", "dirt-merged", "paper-merged",
    "food-other-merged", "building-other-merged", "rock-merged",
    "wall-other-merged", "rug-merged",
)  # fmt: skip

#: Colors of the panoptic categories (panopticapi's category list).
coco_semantic_segmentation_label_colors = (
    (220, 20, 60), (119, 11, 32), (0, 0, 142), (0, 0, 230), (106, 0, 228),
    (0, 60, 100), (0, 80, 100), (0, 0, 70), (0, 0, 192), (250, 170, 30),
    (100, 170, 30), (220, 220, 0), (175, 116, 175), (250, 0, 30),
    (165, 42, 42), (255, 77, 255), (0, 226, 252), (182, 182, 255),
    (0, 82, 0), (120, 166, 157), (110, 76, 0), (174, 57, 255), (199, 100, 0),
    (72, 0, 118), (255, 179, 240), (0, 125, 92), (209, 0, 151),
    (188, 208, 182), (0, 220, 176), (255, 99, 164), (92, 0, 73),
    (133, 129, 255), (78, 180, 255), (0, 228, 0), (174, 255, 243),
    (45, 89, 255), (134, 134, 103), (145, 148, 174), (255, 208, 186),
    (197, 226, 255), (171, 134, 1), (109, 63, 54), (207, 138, 255),
    (151, 0, 95), (9, 80, 61), (84, 105, 51), (74, 65, 105), (166, 196, 102),
    (208, 195, 210), (255, 109, 65), (0, 143, 149), (179, 0, 194),
    (209, 99, 106), (5, 121, 0), (227, 255, 205), (147, 186, 208),
    (153, 69, 1), (3, 95, 161), (163, 255, 0), (119, 0, 170), (0, 182, 199),
    (0, 165, 120), (183, 130, 88), (95, 32, 0), (130, 114, 135),
    (110, 129, 133), (166, 74, 118), (219, 142, 185), (79, 210, 114),
    (178, 90, 62), (65, 70, 15), (127, 167, 115), (59, 105, 106),
    (142, 108, 45), (196, 172, 0), (95, 54, 80), (128, 76, 255),
    (201, 57, 1), (246, 0, 122), (191, 162, 208), (255, 255, 128),
    (147, 211, 203), (150, 100, 100), (168, 171, 172), (146, 112, 198),
    (210, 170, 100), (92, 136, 89), (218, 88, 184), (241, 129, 0),
    (217, 17, 255), (124, 74, 181), (70, 70, 70), (255, 228, 255),
    (154, 208, 0), (193, 0, 92), (76, 91, 113), (255, 180, 195),
    (106, 154, 176), (230, 150, 140), (60, 143, 255), (128, 64, 128),
    (92, 82, 55), (254, 212, 124), (73, 77, 174), (255, 160, 98),
    (255, 255, 255), (104, 84, 109), (169, 164, 131), (225, 199, 255),
    (137, 54, 74), (135, 158, 223), (7, 246, 231), (107, 255, 200),
    (58, 41, 149), (183, 121, 142), (255, 73, 97), (107, 142, 35),
    (190, 153, 153), (146, 139, 141), (70, 130, 180), (134, 199, 156),
    (209, 226, 140), (96, 36, 108), (96, 96, 96), (64, 170, 64),
    (152, 251, 152), (208, 229, 228), (206, 186, 171), (152, 161, 64),
    (116, 112, 0), (0, 114, 143), (102, 102, 156), (250, 141, 255),
)  # fmt: skip

#: The 17 keypoints of a COCO person, in annotation order.
coco_keypoint_names = (
    "nose", "left_eye", "right_eye", "left_ear", "right_ear",
    "left_shoulder", "right_shoulder", "left_elbow", "right_elbow",
    "left_wrist", "right_wrist", "left_hip", "right_hip", "left_knee",
    "right_knee", "left_ankle", "right_ankle",
)  # fmt: skip
