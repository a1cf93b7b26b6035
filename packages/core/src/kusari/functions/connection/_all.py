"""Public names of kusari.functions.connection (re-exported by kusari.functions)."""

from kusari.functions.connection.linear import linear

__all__ = ["linear"]
