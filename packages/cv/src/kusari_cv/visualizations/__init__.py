"""Drawing images, boxes, masks and points with matplotlib (imported on use)."""

from kusari_cv.visualizations.colormap import voc_colormap
from kusari_cv.visualizations.vis_bbox import vis_bbox
from kusari_cv.visualizations.vis_image import vis_image
from kusari_cv.visualizations.vis_instance_segmentation import vis_instance_segmentation
from kusari_cv.visualizations.vis_point import vis_point
from kusari_cv.visualizations.vis_semantic_segmentation import vis_semantic_segmentation

__all__ = [
    "vis_bbox",
    "vis_image",
    "vis_instance_segmentation",
    "vis_point",
    "vis_semantic_segmentation",
    "voc_colormap",
]
