"""The bundled examples the main job (tools/demo.sh) runs the oracle on:
realistic steps of a model, each a case directory plus stand-in NPU dumps.

There is no NPU here, so the dumps stand in for kernels: an honest one,
which must pass, and buggy ones, which must fail. Each example is an
operator's own: a module kvgen/<op>_example.py defines EXAMPLES, {the
example's directory name: a function writing it into a directory}, and
documents it; this module gathers them into vectors/examples/.
"""
import importlib
import pkgutil

from . import __path__ as _kvgen_path

NAME = "examples"


def _example_modules():
    return [importlib.import_module(__package__ + "." + m.name)
            for m in sorted(pkgutil.iter_modules(_kvgen_path),
                            key=lambda m: m.name)
            if m.name.endswith("_example")]


def generate(root):
    for mod in _example_modules():
        for write in mod.EXAMPLES.values():
            write(root)
