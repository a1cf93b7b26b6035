"""Helpers for testing code built on kusari_cv."""

from kusari_cv.utils.testing import assertions
from kusari_cv.utils.testing.assertions import *  # noqa: F403 (all the assert_is_*)
from kusari_cv.utils.testing.constant_stub_link import ConstantStubLink
from kusari_cv.utils.testing.generate_random_bbox import generate_random_bbox

__all__ = ["ConstantStubLink", "generate_random_bbox"]
__all__ += assertions.__all__
