"""Small links and fakes shared by the link tests."""

from __future__ import annotations

import numpy

from kusari import initializers
from kusari.link import Chain, Link
from kusari.variable import Parameter


class Affine(Link):
    """A minimal Linear: W (out, in) drawn from Normal, b zeros."""

    def __init__(self, n_in: int | None, n_out: int) -> None:
        super().__init__()
        self.n_in, self.n_out = n_in, n_out
        with self.init_scope():
            shape = None if n_in is None else (n_out, n_in)
            self.W = Parameter(initializers.Normal(1.0), shape)
            self.b = Parameter(0, (n_out,))

    @property
    def printable_specs(self):
        yield "in_size", self.n_in
        yield "out_size", self.n_out

    def forward(self, x):
        if self.W.array is None:
            self.W.initialize((self.n_out, x.shape[1]))
        return x @ self.W.array.T + self.b.array


class MLP(Chain):
    def __init__(self) -> None:
        super().__init__()
        with self.init_scope():
            self.l1 = Affine(3, 4)
            self.l2 = Affine(4, 2)

    def forward(self, x):
        return self.l2(numpy.maximum(self.l1(x), 0))


class Classifier(Chain):
    def __init__(self, predictor: Link) -> None:
        super().__init__()
        with self.init_scope():
            self.predictor = predictor


class FakeRule:
    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled


class DictSerializer:
    """Records ``path -> value`` like a saving serializer."""

    def __init__(self, store: dict | None = None, prefix: str = "") -> None:
        self.store = {} if store is None else store
        self.prefix = prefix

    def __getitem__(self, name: str) -> DictSerializer:
        return DictSerializer(self.store, self.prefix + name + "/")

    def __call__(self, key: str, value):
        self.store[self.prefix + key] = (
            None if value is None else numpy.array(value, copy=True)
        )
        return value


class DictDeserializer:
    """Loads from ``path -> value`` like a loading deserializer."""

    def __init__(self, store: dict, prefix: str = "") -> None:
        self.store = store
        self.prefix = prefix

    def __getitem__(self, name: str) -> DictDeserializer:
        return DictDeserializer(self.store, self.prefix + name + "/")

    def __call__(self, key: str, value):
        data = self.store[self.prefix + key]
        if value is None:
            return data
        if isinstance(value, numpy.ndarray):
            numpy.copyto(value, data)
            return value
        return type(value)(data)
