"""Reading, writing and tiling images (CHW arrays, RGB order)."""

from kusari_cv.utils.image.read_image import read_image
from kusari_cv.utils.image.read_label import read_label
from kusari_cv.utils.image.tile_images import tile_images
from kusari_cv.utils.image.write_image import write_image

__all__ = ["read_image", "read_label", "tile_images", "write_image"]
