"""Public names of kusari.functions.pooling (re-exported by kusari.functions)."""

__all__: list[str] = []
