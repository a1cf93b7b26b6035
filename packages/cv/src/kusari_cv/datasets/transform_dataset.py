"""``kusari_cv.datasets.TransformDataset``: kusari's, as ChainerCV re-exported."""

from kusari.datasets import TransformDataset

__all__ = ["TransformDataset"]
