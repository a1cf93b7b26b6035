"""VGG-16 classifier."""

from kusari_cv.links.model.vgg.vgg16 import VGG16
