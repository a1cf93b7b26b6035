"""Public names of kusari.links.model (re-exported by kusari.links)."""

from kusari.links.model.classifier import Classifier

__all__ = ["Classifier"]
