"""FunctionNodes shared by the FunctionNode tests."""

from __future__ import annotations

import kusari
from kusari import FunctionNode


class Square(FunctionNode):
    """x * x, with a type check and a retained input (double backprop works)."""

    def check_type_forward(self, in_types):
        kusari.type_check._argname(in_types, ("x",))
        kusari.type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs):
        self.retain_inputs((0,))
        (x,) = inputs
        return (x * x,)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        return (2.0 * x * grad_outputs[0],)
