"""Public names of kusari.links.rnn (re-exported by kusari.links)."""

__all__: list[str] = []
