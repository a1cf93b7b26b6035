"""Differentiable functions (``kusari.functions``, usually imported as ``F``).

Each family lives in a sub-package (``activation``, ``array``, ``math``, ...)
with one module per function; the family's ``_all`` module lists its public
names, which are re-exported here.

Example:
    >>> import numpy as np
    >>> import kusari.functions as F
    >>> F.relu(np.array([-1., 1.], np.float32)).array
    array([0., 1.], dtype=float32)
"""

from kusari.functions.activation._all import *  # noqa: F403
from kusari.functions.array._all import *  # noqa: F403
from kusari.functions.connection._all import *  # noqa: F403
from kusari.functions.evaluation._all import *  # noqa: F403
from kusari.functions.loss._all import *  # noqa: F403
from kusari.functions.math._all import *  # noqa: F403
from kusari.functions.noise._all import *  # noqa: F403
from kusari.functions.normalization._all import *  # noqa: F403
from kusari.functions.pooling._all import *  # noqa: F403
from kusari.functions.rnn._all import *  # noqa: F403
from kusari.functions.util._all import *  # noqa: F403
