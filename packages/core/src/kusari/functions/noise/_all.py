"""Public names of kusari.functions.noise (re-exported by kusari.functions)."""

__all__: list[str] = []
