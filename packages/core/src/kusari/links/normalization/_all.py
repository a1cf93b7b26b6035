"""Public names of kusari.links.normalization (re-exported by kusari.links)."""

__all__: list[str] = []
