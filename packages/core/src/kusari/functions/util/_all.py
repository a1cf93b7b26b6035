"""Public names of kusari.functions.util (re-exported by kusari.functions)."""

__all__: list[str] = []
