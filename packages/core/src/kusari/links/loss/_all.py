"""Public names of kusari.links.loss (re-exported by kusari.links)."""

__all__: list[str] = []
