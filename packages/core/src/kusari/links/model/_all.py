"""Public names of kusari.links.model (re-exported by kusari.links)."""

from kusari.links.model.classifier import Classifier
from kusari.links.model.vision.googlenet import GoogLeNet
from kusari.links.model.vision.resnet import (
    ResNet50Layers,
    ResNet101Layers,
    ResNet152Layers,
)
from kusari.links.model.vision.vgg import VGG16Layers, VGG19Layers

__all__ = [
    "Classifier",
    "GoogLeNet",
    "ResNet101Layers",
    "ResNet152Layers",
    "ResNet50Layers",
    "VGG16Layers",
    "VGG19Layers",
]
