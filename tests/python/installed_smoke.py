"""Run by the python.install test from / with only PYTHONPATH pointing at
an installed prefix (argv[2]): the package imports, loads its own libkvgold.so and
reproduces a vector case; the torch_npu stand-in's files are there."""
import os
import sys

import kvgold

case = sys.argv[1]
here = os.path.dirname(os.path.abspath(kvgold.__file__))
assert here.startswith(sys.argv[2] + os.sep), "not the installed package"
assert "tools/python" not in here
assert kvgold.library_path == os.path.join(here, "libkvgold.so")
c = kvgold.load_case(case)
out = kvgold.run(c.op, c.inputs, c.attrs, c.options)
assert c.expected and all(out[n] == c.expected[n] for n in c.expected)
# the torch_npu stand-in is a package: its testing modules and __main__
# must be installed with it
for sub in ("__main__.py", os.path.join("testing", "testcase.py"),
            os.path.join("testing", "common_utils.py")):
    assert os.path.isfile(os.path.join(here, "torch_npu", sub)), sub
print("installed kvgold %s at %s reproduces %s" % (
    kvgold.__version__, kvgold.library_path, os.path.basename(case)))
