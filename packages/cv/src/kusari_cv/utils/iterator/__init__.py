"""Running a function over an iterator's batches, lazily."""

from kusari_cv.utils.iterator.apply_to_iterator import apply_to_iterator
from kusari_cv.utils.iterator.progress_hook import ProgressHook
from kusari_cv.utils.iterator.unzip import unzip

__all__ = ["ProgressHook", "apply_to_iterator", "unzip"]
