"""Shared fixtures for the kvgold Python package's tests.

Run through ctest (label python), which sets KVGOLD_LIBRARY (the built
libkvgold.so), PYTHONPATH (tools/python), KVG_VECTORS_DIR and KVGOLD_CLI.
"""
import glob
import os

import pytest

VECTORS = os.environ.get(
    "KVG_VECTORS_DIR",
    os.path.join(os.path.dirname(__file__), "..", "..", "vectors"))
OPS = ("kv_rms_norm_rope_cache", "qkv_rms_norm_rope_cache",
       "reshape_and_cache_omni", "reshape_and_cache", "examples")


def case_dirs():
    out = []
    for op in OPS:
        out += sorted(os.path.dirname(p) for p in glob.glob(
            os.path.join(VECTORS, op, "*", "case.json")))
    return out


def case_id(path):
    return "/".join(path.rstrip("/").split("/")[-2:])


@pytest.fixture
def cli():
    path = os.environ.get("KVGOLD_CLI")
    if not path or not os.path.exists(path):
        pytest.fail("KVGOLD_CLI must name the built kvgold command "
                    "(ctest sets it)")
    return path


def example(name):
    return os.path.join(VECTORS, "examples", name)


def cli_env():
    """The environment for running the kvgold command: without the
    sanitizer runtime preloaded for Python (an ASan build links its own,
    and two runtimes refuse to start)."""
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    return env
