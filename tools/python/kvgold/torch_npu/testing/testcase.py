"""torch_npu.testing.testcase for kvgold's CPU stand-in: TestCase and
run_tests with the semantics of Ascend/pytorch's
torch_npu/testing/testcase.py at 9e73e708 for what op-plugin's operator
tests call: the per-test seed (SEED, default 666, for torch and random),
`npu_device`, assertRtolEqual, and assertEqual with a precision.

assertRtolEqual is as lenient as torch_npu's, on purpose (a test must
judge the same here as on the device): an element passes when its absolute
difference or its relative difference (to the larger magnitude, + 1e-9, or
+ 6e-8 for fp16) is at most `prec` (`prec16` for fp16); the call fails only
when MORE than `prec * numel` elements fail both ways. Two bf16 tensors
are compared with torch.allclose(rtol=prec16, atol=prec16) instead. NaN
positions must agree. A test that needs bit-exactness must say so itself
(torch.equal)."""
import os
import random
import sys
import unittest
from collections.abc import Sequence
from numbers import Number
from typing import Any, Optional

from .common_utils import is_iterable, set_npu_device

_RTOL_DTYPES = ("bool", "uint16", "int16", "int32", "float16", "float32",
                "int8", "uint8", "int64", "float64")


def run_tests() -> None:
    """unittest.main with the command line's arguments."""
    unittest.main(argv=sys.argv)


class TestCase(unittest.TestCase):
    npu_device: str
    _precision = 1e-5
    maxDiff = None
    exact_dtype = False

    @property
    def precision(self) -> float:
        return self._precision

    @precision.setter
    def precision(self, prec: float) -> None:
        self._precision = prec

    @classmethod
    def setUpClass(cls) -> None:
        cls.npu_device = set_npu_device()

    def setUp(self) -> None:
        import torch
        seed = int(os.getenv("SEED", "666"))
        torch.manual_seed(seed)
        random.seed(seed)

    # ---- assertRtolEqual ---------------------------------------------------

    def assertRtolEqual(self, x: Any, y: Any, prec: float = 1.e-4,
                        prec16: float = 1.e-3, auto_trans_dtype: bool = False,
                        message: Optional[str] = None) -> None:
        import numpy as np
        import torch

        if isinstance(x, Sequence) and isinstance(y, Sequence):
            for x_, y_ in zip(x, y):
                self.assertRtolEqual(x_, y_, prec, prec16, auto_trans_dtype,
                                     message)
            return
        if isinstance(x, torch.Tensor) and isinstance(y, Sequence):
            y = torch.as_tensor(y, dtype=x.dtype, device=x.device)
        elif isinstance(x, Sequence) and isinstance(y, torch.Tensor):
            x = torch.as_tensor(x, dtype=y.dtype, device=y.device)

        if torch.is_tensor(x) and torch.is_tensor(y):
            if auto_trans_dtype:
                x = x.to(y.dtype)
            if x.dtype == torch.bfloat16 and y.dtype == torch.bfloat16:
                if x.shape != y.shape:
                    self.fail("shape error!")
                if not torch.allclose(x.cpu(), y.cpu(), rtol=prec16,
                                      atol=prec16):
                    self.fail("result error!")
                return
            x = x.detach().cpu().numpy()
            y = y.detach().cpu().numpy()
        elif isinstance(x, Number) and isinstance(y, Number):
            x, y = np.array(x), np.array(y)

        if x.shape != y.shape:
            self.fail("shape error")
        if x.dtype != y.dtype:
            self.fail("dtype error")
        if x.dtype.name not in _RTOL_DTYPES:
            self.fail("required dtype in [np.bool_, np.uint16, np.int16, "
                      "np.int32, np.float16, np.float32, np.int8, np.uint8, "
                      "np.int64]")
        if x.dtype == np.bool_:
            if not np.equal(x, y).all():
                self.fail("result error")
        elif x.dtype == np.float16:
            self._rtol_compare(x, y, prec16, 6e-8)
        else:
            self._rtol_compare(x, y, prec, 10e-10)

    def _rtol_compare(self, x: Any, y: Any, prec: float,
                      minimum: float) -> None:
        import numpy as np
        # integer dtypes subtract in their own type, wrapping, as
        # torch_npu's does
        diff = y - x
        nan_mask = np.isnan(x)
        if not np.equal(nan_mask, np.isnan(y)).all():
            self.fail(None)
        if nan_mask.any():
            diff[nan_mask] = 0
        result = np.abs(diff)
        deno = np.maximum(np.abs(x), np.abs(y))
        atol_ok = np.less_equal(result, prec)
        rtol_ok = np.less_equal(result / np.add(deno, minimum), prec)
        if not rtol_ok.all() and not atol_ok.all():
            limit = x.size * prec
            if np.sum(~rtol_ok) > limit and np.sum(~atol_ok) > limit:
                self.fail("result error")

    # ---- assertEqual with a precision ----------------------------------------

    def assertEqual(self, x: Any, y: Any,
                    prec: Any = None, message: str = "",
                    allow_inf: bool = False,
                    exact_dtype: Optional[bool] = None) -> None:
        """torch_npu's: tensors of equal size whose largest absolute
        difference is at most `prec` (default self.precision), numbers
        within `prec`, iterables element by element, the rest as
        unittest."""
        import torch
        if exact_dtype is None:
            exact_dtype = self.exact_dtype
        if isinstance(prec, str) and message == "":
            message, prec = prec, None
        if prec is None:
            prec = self.precision

        if isinstance(x, torch.Tensor) and isinstance(y, Number):
            x = x.item()
        elif isinstance(y, torch.Tensor) and isinstance(x, Number):
            y = y.item()
        if isinstance(x, Number) or isinstance(y, Number):
            if abs(x) == float("inf") or abs(y) == float("inf"):
                if not allow_inf:
                    self.fail("Expected finite numeric values - x={}, y={}"
                              .format(x, y))
                super().assertEqual(x, y, message)
                return
            super().assertLessEqual(abs(x - y), prec, message)
        elif isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor):
            self._assert_tensor_equal(x, y, prec, message, allow_inf,
                                      exact_dtype)
        elif isinstance(x, (str, bytes)) and isinstance(y, (str, bytes)):
            super().assertEqual(x, y, message)
        elif isinstance(x, (set, dict)) or isinstance(y, (set, dict)):
            super().assertEqual(x, y, message)
        elif is_iterable(x) and is_iterable(y):
            super().assertEqual(len(x), len(y), message)
            for x_, y_ in zip(x, y):
                self.assertEqual(x_, y_, prec, message, allow_inf,
                                 exact_dtype)
        else:
            super().assertEqual(x, y, message)

    def _assert_tensor_equal(self, a: Any, b: Any, prec: float, message: str,
                             allow_inf: bool, exact_dtype: bool) -> None:
        import torch
        super().assertEqual(a.size(), b.size(), message)
        if exact_dtype:
            super().assertEqual(a.dtype, b.dtype, message)
        if a.numel() == 0:
            return
        if a.dtype in (torch.float16, torch.bfloat16):
            a = a.to(torch.float32)
        b = b.to(a)
        if a.dtype == torch.bool:
            a, b = a.to(torch.int), b.to(torch.int)
        diff = a - b
        if a.dtype.is_floating_point:
            nan_mask = torch.isnan(a)
            self.assertTrue(torch.equal(nan_mask, torch.isnan(b)), message)
            diff[nan_mask] = 0
            if allow_inf:
                inf_mask = torch.isinf(a)
                self.assertTrue(torch.equal(inf_mask.sign(),
                                            torch.isinf(b).sign()), message)
                diff[inf_mask] = 0
        if diff.is_signed() and diff.dtype != torch.int8:
            diff = diff.abs()
        super().assertLessEqual(diff.max().item(), prec, message)
