"""Every ```python block of docs/python.md runs: blocks that define test_
functions under pytest, the others as scripts, from the repository root.

There is no NPU here, so `import torch_npu` finds a module on the path
that installs kvgold.torch_npu, the CPU stand-in (docs/python.md). The
examples' asserts are what is tested."""
import os
import re
import subprocess
import sys

import pytest

DOCS = os.environ.get("KVG_DOCS_DIR",
                      os.path.join(os.path.dirname(__file__), "..", "..",
                                   "docs"))
ROOT = os.path.dirname(os.path.abspath(DOCS))

STAND_IN = '''"""torch_npu for running docs/python.md without an NPU."""
import kvgold.torch_npu

kvgold.torch_npu.install()   # sys.modules["torch_npu"]: the stand-in
'''


def blocks():
    with open(os.path.join(DOCS, "python.md")) as f:
        text = f.read()
    return re.findall(r"^```python\n(.*?)^```$", text, re.S | re.M)


BLOCKS = blocks()


def test_the_page_has_examples():
    assert len(BLOCKS) >= 7


@pytest.mark.parametrize("i", range(len(BLOCKS)))
def test_example(i, tmp_path):
    code = BLOCKS[i]
    (tmp_path / "torch_npu.py").write_text(STAND_IN)
    script = tmp_path / ("test_doc_example_%d.py" % i)
    script.write_text(code)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(tmp_path)] + [p for p in env.get("PYTHONPATH", "").split(
            os.pathsep) if p])
    if re.search(r"^def test_", code, re.M):
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
               "--rootdir", str(tmp_path), str(script)]
    else:
        cmd = [sys.executable, str(script)]
    p = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True,
                       text=True)
    assert p.returncode == 0, "example %d failed:\n%s\n%s\n%s" % (
        i, code, p.stdout, p.stderr)
    if "def test_" in code:
        assert re.search(r"\b[1-9]\d* passed", p.stdout), p.stdout
        assert "failed" not in p.stdout, p.stdout
