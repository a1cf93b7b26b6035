"""Functions of ChainerCV's ``chainercv.functions``: position-sensitive RoI ops."""

from kusari_cv.functions.ps_roi_average_align_2d import ps_roi_average_align_2d
from kusari_cv.functions.ps_roi_average_pooling_2d import ps_roi_average_pooling_2d
from kusari_cv.functions.ps_roi_max_align_2d import ps_roi_max_align_2d
from kusari_cv.functions.ps_roi_max_pooling_2d import ps_roi_max_pooling_2d

__all__ = [
    "ps_roi_average_align_2d",
    "ps_roi_average_pooling_2d",
    "ps_roi_max_align_2d",
    "ps_roi_max_pooling_2d",
]
