"""The types the public API speaks in, for annotations (docs/python.md).

A tensor is whatever kvgold.run takes: a NumPy array, a torch CPU tensor,
a kvgold.Tensor, a buffer, or an (object, dtype tag) pair. NumPy and torch
are optional, so their types cannot appear here: a tensor is Any to the
type checker, and these names say what is meant.
"""
from typing import Any, Mapping, Optional

TensorLike = Any
"""A NumPy array, torch CPU tensor, kvgold.Tensor, buffer, or an
(object, dtype tag) pair."""

Values = Optional[Mapping[str, Any]]
"""case.json's "attrs" or "options": name -> number, bool, string or list
of ints; None values are left out (the operator's default applies)."""

DTypes = Optional[Mapping[str, str]]
"""tensor name -> case-format dtype tag ("hif8", "bf16", ...), for
tensors whose storage does not say."""
