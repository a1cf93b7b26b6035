"""Links: layers with parameters (``kusari.links``, usually imported as ``L``).

Each family (``connection``, ``normalization``, ``rnn``, ...) lists its public
names in its ``_all`` module; they are re-exported here.

Example:
    >>> import numpy as np
    >>> import kusari.links as L
    >>> L.Linear(3, 2)(np.zeros((1, 3), np.float32)).shape
    (1, 2)
"""

from kusari.links.activation._all import *  # noqa: F403
from kusari.links.connection._all import *  # noqa: F403
from kusari.links.loss._all import *  # noqa: F403
from kusari.links.model._all import *  # noqa: F403
from kusari.links.normalization._all import *  # noqa: F403
from kusari.links.rnn._all import *  # noqa: F403
