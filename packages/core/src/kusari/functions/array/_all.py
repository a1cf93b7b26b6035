"""Public names of kusari.functions.array (re-exported by kusari.functions)."""

from kusari.functions.array.broadcast import broadcast, broadcast_to
from kusari.functions.array.get_item import get_item
from kusari.functions.array.reshape import reshape
from kusari.functions.array.transpose import transpose

__all__ = ["broadcast", "broadcast_to", "get_item", "reshape", "transpose"]
