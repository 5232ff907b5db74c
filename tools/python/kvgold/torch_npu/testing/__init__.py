"""torch_npu.testing for kvgold's CPU stand-in: the few names op-plugin's
operator tests import (`from torch_npu.testing.testcase import TestCase,
run_tests`, `from torch_npu.testing.common_utils import SupportedDevices,
get_npu_device`), with the semantics of Ascend/pytorch's
`torch_npu/testing/testcase.py` and `common_utils.py` (checked at
9e73e708), so such a test file runs unchanged with kvgold as its NPU.

It is not Ascend/pytorch's package: only what those tests call is here
(docs/python.md lists it); anything else is an AttributeError naming it."""
from . import common_utils, testcase  # noqa: F401
