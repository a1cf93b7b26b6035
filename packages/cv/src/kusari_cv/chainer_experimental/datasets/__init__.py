"""Experimental datasets (ChainerCV's ``chainer_experimental.datasets``)."""

from kusari_cv.chainer_experimental.datasets import sliceable

__all__ = ["sliceable"]
