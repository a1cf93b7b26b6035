"""Public names of kusari.links.activation (re-exported by kusari.links)."""

from kusari.links.activation.maxout import Maxout
from kusari.links.activation.prelu import PReLU
from kusari.links.activation.simplified_dropconnect import SimplifiedDropconnect
from kusari.links.activation.swish import Swish

__all__ = ["Maxout", "PReLU", "SimplifiedDropconnect", "Swish"]
