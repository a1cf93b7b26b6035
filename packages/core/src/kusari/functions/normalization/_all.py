"""Public names of kusari.functions.normalization (re-exported by kusari.functions)."""

__all__: list[str] = []
