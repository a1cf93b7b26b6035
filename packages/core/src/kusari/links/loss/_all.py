"""Public names of kusari.links.loss (re-exported by kusari.links)."""

from kusari.links.loss.black_out import BlackOut
from kusari.links.loss.crf1d import CRF1d
from kusari.links.loss.hierarchical_softmax import BinaryHierarchicalSoftmax
from kusari.links.loss.negative_sampling import NegativeSampling

__all__ = ["BinaryHierarchicalSoftmax", "BlackOut", "CRF1d", "NegativeSampling"]
