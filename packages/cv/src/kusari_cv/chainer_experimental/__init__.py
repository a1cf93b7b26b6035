"""Features that ChainerCV kept outside Chainer proper (sliceable datasets)."""

from kusari_cv.chainer_experimental import datasets

__all__ = ["datasets"]
