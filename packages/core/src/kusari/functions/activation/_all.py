"""Public names of kusari.functions.activation (re-exported by kusari.functions)."""

from kusari.functions.activation.clipped_relu import clipped_relu
from kusari.functions.activation.crelu import crelu
from kusari.functions.activation.elu import elu
from kusari.functions.activation.hard_sigmoid import hard_sigmoid
from kusari.functions.activation.leaky_relu import leaky_relu
from kusari.functions.activation.log_softmax import log_softmax
from kusari.functions.activation.maxout import maxout
from kusari.functions.activation.prelu import prelu
from kusari.functions.activation.relu import relu
from kusari.functions.activation.relu6 import relu6
from kusari.functions.activation.rrelu import rrelu
from kusari.functions.activation.selu import selu
from kusari.functions.activation.sigmoid import sigmoid
from kusari.functions.activation.softmax import softmax
from kusari.functions.activation.softplus import softplus
from kusari.functions.activation.swish import swish
from kusari.functions.activation.tanh import tanh

__all__ = [
    "clipped_relu",
    "crelu",
    "elu",
    "hard_sigmoid",
    "leaky_relu",
    "log_softmax",
    "maxout",
    "prelu",
    "relu",
    "relu6",
    "rrelu",
    "selu",
    "sigmoid",
    "softmax",
    "softplus",
    "swish",
    "tanh",
]
