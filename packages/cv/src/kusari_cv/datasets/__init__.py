"""Data sets with ChainerCV's classes, on-disk formats and auto-download.

Every reader takes ``data_dir='auto'`` (use, and if needed download into, the
kusari dataset root) or the path of an existing copy. Most are
:class:`~kusari_cv.chainer_experimental.datasets.sliceable.GetterDataset`
subclasses, so ``dataset.slice[:, 'label']`` reads labels without decoding
images.
"""

from kusari_cv.datasets.ade20k.ade20k_semantic_segmentation_dataset import (
    ADE20KSemanticSegmentationDataset,
)
from kusari_cv.datasets.ade20k.ade20k_test_image_dataset import ADE20KTestImageDataset
from kusari_cv.datasets.ade20k.ade20k_utils import (
    ade20k_semantic_segmentation_label_colors,
    ade20k_semantic_segmentation_label_names,
)
from kusari_cv.datasets.camvid.camvid_dataset import (
    CamVidDataset,
    camvid_ignore_label_color,
    camvid_label_colors,
    camvid_label_names,
)
from kusari_cv.datasets.cityscapes.cityscapes_semantic_segmentation_dataset import (
    CityscapesSemanticSegmentationDataset,
)
from kusari_cv.datasets.cityscapes.cityscapes_test_image_dataset import (
    CityscapesTestImageDataset,
)
from kusari_cv.datasets.cityscapes.cityscapes_utils import (
    cityscapes_semantic_segmentation_label_colors,
    cityscapes_semantic_segmentation_label_names,
)
from kusari_cv.datasets.coco.coco_bbox_dataset import COCOBboxDataset
from kusari_cv.datasets.coco.coco_instance_segmentation_dataset import (
    COCOInstanceSegmentationDataset,
)
from kusari_cv.datasets.coco.coco_keypoint_dataset import COCOKeypointDataset
from kusari_cv.datasets.coco.coco_semantic_segmentation_dataset import (
    COCOSemanticSegmentationDataset,
)
from kusari_cv.datasets.coco.coco_utils import (
    coco_bbox_label_names,
    coco_instance_segmentation_label_names,
    coco_keypoint_names,
    coco_semantic_segmentation_label_colors,
    coco_semantic_segmentation_label_names,
)
from kusari_cv.datasets.cub.cub_keypoint_dataset import CUBKeypointDataset
from kusari_cv.datasets.cub.cub_label_dataset import CUBLabelDataset
from kusari_cv.datasets.cub.cub_utils import cub_label_names
from kusari_cv.datasets.directory_parsing_label_dataset import (
    DirectoryParsingLabelDataset,
    directory_parsing_label_names,
)
from kusari_cv.datasets.mixup_soft_label_dataset import MixUpSoftLabelDataset
from kusari_cv.datasets.online_products.online_products_dataset import (
    OnlineProductsDataset,
    online_products_super_label_names,
)
from kusari_cv.datasets.sbd.sbd_instance_segmentation_dataset import (
    SBDInstanceSegmentationDataset,
)
from kusari_cv.datasets.sbd.sbd_utils import sbd_instance_segmentation_label_names
from kusari_cv.datasets.siamese_dataset import SiameseDataset
from kusari_cv.datasets.transform_dataset import TransformDataset
from kusari_cv.datasets.voc.voc_bbox_dataset import VOCBboxDataset
from kusari_cv.datasets.voc.voc_instance_segmentation_dataset import (
    VOCInstanceSegmentationDataset,
)
from kusari_cv.datasets.voc.voc_semantic_segmentation_dataset import (
    VOCSemanticSegmentationDataset,
)
from kusari_cv.datasets.voc.voc_utils import (
    voc_bbox_label_names,
    voc_instance_segmentation_label_names,
    voc_semantic_segmentation_ignore_label_color,
    voc_semantic_segmentation_label_colors,
    voc_semantic_segmentation_label_names,
)

__all__ = [
    "ADE20KSemanticSegmentationDataset",
    "ADE20KTestImageDataset",
    "COCOBboxDataset",
    "COCOInstanceSegmentationDataset",
    "COCOKeypointDataset",
    "COCOSemanticSegmentationDataset",
    "CUBKeypointDataset",
    "CUBLabelDataset",
    "CamVidDataset",
    "CityscapesSemanticSegmentationDataset",
    "CityscapesTestImageDataset",
    "DirectoryParsingLabelDataset",
    "MixUpSoftLabelDataset",
    "OnlineProductsDataset",
    "SBDInstanceSegmentationDataset",
    "SiameseDataset",
    "TransformDataset",
    "VOCBboxDataset",
    "VOCInstanceSegmentationDataset",
    "VOCSemanticSegmentationDataset",
    "ade20k_semantic_segmentation_label_colors",
    "ade20k_semantic_segmentation_label_names",
    "camvid_ignore_label_color",
    "camvid_label_colors",
    "camvid_label_names",
    "cityscapes_semantic_segmentation_label_colors",
    "cityscapes_semantic_segmentation_label_names",
    "coco_bbox_label_names",
    "coco_instance_segmentation_label_names",
    "coco_keypoint_names",
    "coco_semantic_segmentation_label_colors",
    "coco_semantic_segmentation_label_names",
    "cub_label_names",
    "directory_parsing_label_names",
    "online_products_super_label_names",
    "sbd_instance_segmentation_label_names",
    "voc_bbox_label_names",
    "voc_instance_segmentation_label_names",
    "voc_semantic_segmentation_ignore_label_color",
    "voc_semantic_segmentation_label_colors",
    "voc_semantic_segmentation_label_names",
]
