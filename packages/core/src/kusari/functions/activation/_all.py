"""Public names of kusari.functions.activation (re-exported by kusari.functions)."""

from kusari.functions.activation.log_softmax import log_softmax
from kusari.functions.activation.relu import relu
from kusari.functions.activation.sigmoid import sigmoid
from kusari.functions.activation.softmax import softmax
from kusari.functions.activation.tanh import tanh

__all__ = ["log_softmax", "relu", "sigmoid", "softmax", "tanh"]
