"""Public names of kusari.functions.rnn (re-exported by kusari.functions)."""

__all__: list[str] = []
