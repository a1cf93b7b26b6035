"""Public names of kusari.functions.evaluation (re-exported by kusari.functions)."""

__all__: list[str] = []
