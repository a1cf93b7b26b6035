"""Public names of kusari.links.connection (re-exported by kusari.links)."""

from kusari.links.connection.linear import Linear

__all__ = ["Linear"]
