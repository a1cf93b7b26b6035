"""The networks of the ImageNet example: AlexNet, VGG-16 and ResNet-50.

Each model's ``forward(x, t)`` returns the softmax cross-entropy loss and
reports ``loss`` and ``accuracy``, so it is the updater's loss function.
``insize`` is the side of the (cropped) input the model was designed for.
"""

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import initializers


def _report_loss(model, h, t):
    loss = F.softmax_cross_entropy(h, t)
    kusari.report({"loss": loss, "accuracy": F.accuracy(h, t)}, model)
    return loss


class Alex(kusari.Chain):
    """AlexNet (single-tower, with local response normalization)."""

    insize = 227

    def __init__(self, n_class=1000):
        super().__init__()
        with self.init_scope():
            self.conv1 = L.Convolution2D(None, 96, 11, stride=4)
            self.conv2 = L.Convolution2D(None, 256, 5, pad=2)
            self.conv3 = L.Convolution2D(None, 384, 3, pad=1)
            self.conv4 = L.Convolution2D(None, 384, 3, pad=1)
            self.conv5 = L.Convolution2D(None, 256, 3, pad=1)
            self.fc6 = L.Linear(None, 4096)
            self.fc7 = L.Linear(None, 4096)
            self.fc8 = L.Linear(None, n_class)

    def forward(self, x, t):
        h = F.max_pooling_2d(
            F.local_response_normalization(F.relu(self.conv1(x))), 3, stride=2
        )
        h = F.max_pooling_2d(
            F.local_response_normalization(F.relu(self.conv2(h))), 3, stride=2
        )
        h = F.relu(self.conv3(h))
        h = F.relu(self.conv4(h))
        h = F.max_pooling_2d(F.relu(self.conv5(h)), 3, stride=2)
        h = F.dropout(F.relu(self.fc6(h)))
        h = F.dropout(F.relu(self.fc7(h)))
        return _report_loss(self, self.fc8(h), t)


class VGG16(kusari.Chain):
    """VGG-16 (configuration D) with batch normalization after each conv."""

    insize = 224

    def __init__(self, n_class=1000):
        super().__init__()
        widths = [
            64,
            64,
            "M",
            128,
            128,
            "M",
            256,
            256,
            256,
            "M",
            512,
            512,
            512,
            "M",
            512,
            512,
            512,
            "M",
        ]
        with self.init_scope():
            self.features = kusari.ChainList()
            for w in widths:
                if w != "M":
                    self.features.add_link(
                        L.Convolution2D(None, w, 3, pad=1, nobias=True)
                    )
                    self.features.add_link(L.BatchNormalization(w))
            self.fc6 = L.Linear(None, 4096)
            self.fc7 = L.Linear(None, 4096)
            self.fc8 = L.Linear(None, n_class)
        self._widths = widths

    def forward(self, x, t):
        h = x
        layers = iter(self.features)
        for w in self._widths:
            if w == "M":
                h = F.max_pooling_2d(h, 2, stride=2)
            else:
                conv, bn = next(layers), next(layers)
                h = F.relu(bn(conv(h)))
        h = F.dropout(F.relu(self.fc6(h)))
        h = F.dropout(F.relu(self.fc7(h)))
        return _report_loss(self, self.fc8(h), t)


class BottleNeck(kusari.Chain):
    """1x1 -> 3x3 -> 1x1 residual block; a projection shortcut when needed."""

    def __init__(self, in_size, ch, out_size, stride):
        super().__init__()
        w = initializers.HeNormal()
        with self.init_scope():
            self.conv1 = L.Convolution2D(
                in_size, ch, 1, stride, 0, initialW=w, nobias=True
            )
            self.bn1 = L.BatchNormalization(ch)
            self.conv2 = L.Convolution2D(ch, ch, 3, 1, 1, initialW=w, nobias=True)
            self.bn2 = L.BatchNormalization(ch)
            self.conv3 = L.Convolution2D(ch, out_size, 1, 1, 0, initialW=w, nobias=True)
            self.bn3 = L.BatchNormalization(out_size)
            self.has_projection = stride != 1 or in_size != out_size
            if self.has_projection:
                self.project = L.Convolution2D(
                    in_size, out_size, 1, stride, 0, initialW=w, nobias=True
                )
                self.bn_project = L.BatchNormalization(out_size)

    def forward(self, x):
        h = F.relu(self.bn1(self.conv1(x)))
        h = F.relu(self.bn2(self.conv2(h)))
        h = self.bn3(self.conv3(h))
        shortcut = self.bn_project(self.project(x)) if self.has_projection else x
        return F.relu(h + shortcut)


class Block(kusari.ChainList):
    def __init__(self, layers, in_size, ch, out_size, stride=2):
        super().__init__()
        self.add_link(BottleNeck(in_size, ch, out_size, stride))
        for _ in range(layers - 1):
            self.add_link(BottleNeck(out_size, ch, out_size, 1))

    def forward(self, x):
        for block in self:
            x = block(x)
        return x


class ResNet50(kusari.Chain):
    """ResNet-50 (He et al., 2016)."""

    insize = 224

    def __init__(self, n_class=1000):
        super().__init__()
        with self.init_scope():
            self.conv1 = L.Convolution2D(
                3, 64, 7, 2, 3, initialW=initializers.HeNormal()
            )
            self.bn1 = L.BatchNormalization(64)
            self.res2 = Block(3, 64, 64, 256, 1)
            self.res3 = Block(4, 256, 128, 512)
            self.res4 = Block(6, 512, 256, 1024)
            self.res5 = Block(3, 1024, 512, 2048)
            self.fc = L.Linear(2048, n_class)

    def forward(self, x, t):
        h = F.relu(self.bn1(self.conv1(x)))
        h = F.max_pooling_2d(h, 3, stride=2)
        h = self.res5(self.res4(self.res3(self.res2(h))))
        h = F.mean(h, axis=(2, 3))
        return _report_loss(self, self.fc(h), t)


ARCHS = {"alex": Alex, "vgg16": VGG16, "resnet50": ResNet50}
