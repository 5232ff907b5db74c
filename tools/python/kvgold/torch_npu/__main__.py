"""python3 -m kvgold.torch_npu FILE [ARGS...]: run a test file written for
the NPU (op-plugin's `... if __name__ == "__main__": run_tests()`) on the
CPU, with kvgold's stand-in installed as torch_npu and nothing else
replaced. ARGS go to the file as its sys.argv[1:] (e.g. -v, or a test
name)."""
import os
import runpy
import sys
from typing import List

from . import install


def main(argv: List[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        sys.stdout.write(__doc__)
        return 0 if argv else 2
    install()
    sys.argv = list(argv)
    # as `python3 FILE` would: the file's folder first on the path
    sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
    runpy.run_path(argv[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
