"""SegNet for semantic segmentation."""

from kusari_cv.links.model.segnet.segnet_basic import SegNetBasic
