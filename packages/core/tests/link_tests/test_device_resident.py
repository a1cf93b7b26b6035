import numpy
import pytest

import kusari
from kusari.device_resident import DeviceResident, DeviceResidentsVisitor
from kusari.link import Chain, Link

# Chainer 7's words, matched by code written for it.
TO_CPU_MESSAGE = r"^to_cpu is deprecated\. Please use to_device\('@numpy'\) instead\.$"


class Holder(DeviceResident):
    def __init__(self):
        super().__init__()
        self.table = numpy.zeros(3)

    def device_resident_accept(self, visitor):
        super().device_resident_accept(visitor)
        self.table = visitor.visit_array(self.table)


class Collect(DeviceResidentsVisitor):
    def __init__(self):
        self.residents, self.arrays, self.variables = [], [], []

    def visit_device_resident(self, device_resident):
        self.residents.append(device_resident)

    def visit_array(self, arr):
        self.arrays.append(arr)
        return arr

    def visit_variable(self, param):
        self.variables.append(param)


def test_default_device_is_cpu():
    holder = Holder()
    assert holder.xp is numpy
    assert holder.device == kusari.get_device("@numpy")
    assert holder.to_device(-1) is holder
    with pytest.warns(DeprecationWarning, match=TO_CPU_MESSAGE):
        assert holder.to_cpu() is holder


def test_visitor_base_methods_are_abstract():
    visitor = DeviceResidentsVisitor()
    with pytest.raises(NotImplementedError):
        visitor.visit_device_resident(Holder())
    with pytest.raises(NotImplementedError):
        visitor.visit_array(numpy.zeros(1))
    with pytest.raises(NotImplementedError):
        visitor.visit_variable(None)


def test_link_visits_params_persistent_arrays_and_children():
    link = Link()
    with link.init_scope():
        link.w = kusari.Parameter(numpy.zeros(2, numpy.float32))
    link.add_persistent("arr", numpy.zeros(2))
    link.add_persistent("n", 0)  # not an array: not visited
    chain = Chain(child=link)
    visitor = Collect()
    chain.device_resident_accept(visitor)
    assert visitor.residents == [chain, link]
    assert visitor.variables == [link.w]
    assert len(visitor.arrays) == 1


def test_invalid_device():
    with pytest.raises(ValueError, match="Invalid device specifier"):
        Holder().to_device("@tpu")


@pytest.mark.gpu
@pytest.mark.skipif(
    not kusari.backends.cuda.available, reason="CuPy / a CUDA GPU is not available"
)
def test_gpu_roundtrip():
    cupy = pytest.importorskip("cupy")
    holder = Holder().to_device("@cupy:0")
    assert isinstance(holder.table, cupy.ndarray) and holder.xp is cupy
    with pytest.warns(DeprecationWarning, match="to_device\\('@cupy:N'\\)"):
        holder.to_gpu(0)
    holder.to_device("@numpy")
    assert isinstance(holder.table, numpy.ndarray)


with pytest.warns(DeprecationWarning, match="^Overriding method 'to_cpu'\\.$"):

    class LegacyLink(Link):
        """Old-style code moving an extra array in an overridden to_cpu."""

        def __init__(self):
            super().__init__()
            self.extra = numpy.zeros(1)
            self.calls = 0

        def to_cpu(self):
            super().to_cpu()
            self.calls += 1
            self.extra = numpy.asarray(self.extra)
            return self


@pytest.mark.parametrize("move", ["to_cpu", "to_device"])
def test_legacy_to_cpu_override_called_from_parent(move):
    child = LegacyLink()
    parent = Chain(child=child)
    # The override's own super().to_cpu() warns too, whichever move started.
    with pytest.warns(DeprecationWarning, match=TO_CPU_MESSAGE) as record:
        if move == "to_cpu":
            parent.to_cpu()
        else:
            parent.to_device("@numpy")
    assert child.calls == 1
    assert len(record) == (2 if move == "to_cpu" else 1)


def test_legacy_override_called_directly_does_not_recurse():
    child = LegacyLink()
    with pytest.warns(DeprecationWarning, match=TO_CPU_MESSAGE):
        assert child.to_cpu() is child
    assert child.calls == 1
    assert LegacyLink._overridden_to_methods == ("to_cpu",)
    assert Link._overridden_to_methods == ()


# -- Chainer 7's deprecation of to_cpu / to_gpu / to_intel64 -----------------------


def test_to_cpu_warns_at_the_callers_line_and_still_moves():
    holder = Holder()
    holder._device = None  # the move must still set the device
    with pytest.warns(DeprecationWarning, match=TO_CPU_MESSAGE) as record:
        holder.to_cpu()
    assert len(record) == 1
    # Attributed to this file, so Python's default filters show it to scripts.
    assert record[0].filename == __file__
    assert holder.device == kusari.get_device("@numpy")
    assert isinstance(holder.table, numpy.ndarray)


def test_to_device_does_not_warn():
    # The repo's pytest config turns warnings into errors: any warning fails.
    chain = Chain(child=Link())
    assert chain.to_device("@numpy") is chain
    assert chain.to_device(-1) is chain


@pytest.mark.skipif(kusari.backends.cuda.available, reason="CuPy is installed here")
def test_to_gpu_without_cuda_raises_before_warning():
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        Holder().to_gpu()


def test_to_intel64_reports_ideep_unavailable_without_warning():
    with pytest.raises(RuntimeError, match="iDeep is not part of kusari"):
        Holder().to_intel64()


def test_overriding_each_deprecated_move_warns_once_at_class_creation():
    with pytest.warns(DeprecationWarning) as record:

        class Old(Holder):
            def to_gpu(self, device=None):
                return self

            def to_intel64(self):
                return self

    messages = sorted(str(w.message) for w in record)
    assert messages == [
        "Overriding method 'to_gpu'.",
        "Overriding method 'to_intel64'.",
    ]
    assert Old._overridden_to_methods == ("to_gpu", "to_intel64")

    class Child(Old):  # inherits the overrides without restating them: no warning
        pass

    assert Child._overridden_to_methods == ("to_gpu", "to_intel64")
