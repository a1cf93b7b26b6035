"""Public names of kusari.links.activation (re-exported by kusari.links)."""

__all__: list[str] = []
