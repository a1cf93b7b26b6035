"""Public names of kusari.functions.loss (re-exported by kusari.functions)."""

from kusari.functions.loss.mean_squared_error import mean_squared_error
from kusari.functions.loss.softmax_cross_entropy import softmax_cross_entropy

__all__ = ["mean_squared_error", "softmax_cross_entropy"]
