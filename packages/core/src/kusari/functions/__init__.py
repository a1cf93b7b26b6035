"""Differentiable functions (``kusari.functions``, usually imported as ``F``).

Example:
    >>> import numpy as np
    >>> import kusari.functions as F
    >>> F.relu(np.array([-1., 1.], np.float32)).array
    array([0., 1.], dtype=float32)
"""

from kusari.functions.activation.log_softmax import log_softmax
from kusari.functions.activation.relu import relu
from kusari.functions.activation.sigmoid import sigmoid
from kusari.functions.activation.softmax import softmax
from kusari.functions.activation.tanh import tanh
from kusari.functions.array.broadcast import broadcast, broadcast_to
from kusari.functions.array.get_item import get_item
from kusari.functions.array.reshape import reshape
from kusari.functions.array.transpose import transpose
from kusari.functions.connection.linear import linear
from kusari.functions.loss.mean_squared_error import mean_squared_error
from kusari.functions.loss.softmax_cross_entropy import softmax_cross_entropy
from kusari.functions.math.basic_math import absolute, add
from kusari.functions.math.exponential import exp, log, log2, log10
from kusari.functions.math.matmul import matmul
from kusari.functions.math.sum import sum, sum_to
