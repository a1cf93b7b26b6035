"""Public names of kusari.functions.noise (re-exported by kusari.functions)."""

from kusari.functions.noise.dropout import dropout
from kusari.functions.noise.gaussian import gaussian
from kusari.functions.noise.gumbel_softmax import gumbel_softmax
from kusari.functions.noise.simplified_dropconnect import simplified_dropconnect
from kusari.functions.noise.zoneout import zoneout

__all__ = ["dropout", "gaussian", "gumbel_softmax", "simplified_dropconnect", "zoneout"]
