"""Public names of kusari.functions.evaluation (re-exported by kusari.functions)."""

from kusari.functions.evaluation.accuracy import accuracy
from kusari.functions.evaluation.binary_accuracy import binary_accuracy
from kusari.functions.evaluation.classification_summary import (
    classification_summary,
    f1_score,
    precision,
    recall,
)
from kusari.functions.evaluation.r2_score import r2_score

__all__ = [
    "accuracy",
    "binary_accuracy",
    "classification_summary",
    "f1_score",
    "precision",
    "r2_score",
    "recall",
]
