"""Public names of kusari.functions.util (re-exported by kusari.functions)."""

from kusari.functions.util.forget import forget

__all__ = ["forget"]
