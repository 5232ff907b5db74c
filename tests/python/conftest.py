"""Shared fixtures for the kvgold Python package's tests.

Run through ctest (label python), which sets KVGOLD_LIBRARY (the built
libkvgold.so), PYTHONPATH (tools/python), KVG_VECTORS_DIR and KVGOLD_CLI.
"""
import glob
import os

import numpy as np
import pytest

VECTORS = os.environ.get(
    "KVG_VECTORS_DIR",
    os.path.join(os.path.dirname(__file__), "..", "..", "vectors"))


def case_dirs():
    """Every case under vectors/: vectors/<dir>/<case>/case.json, for each
    operator's directory and examples/, found rather than listed so that a
    new operator's vectors are tested without an edit here."""
    return sorted(os.path.dirname(p) for p in glob.glob(
        os.path.join(VECTORS, "*", "*", "case.json")))


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


def expected_bits(c, name):
    """The bytes of case c's expected tensor `name`."""
    return np.asarray(c.expected[name]).tobytes()


@pytest.fixture
def hits(monkeypatch):
    """kvgold's call plans (kvgold/_plan.py) cleared; a list that gets one
    entry per call a plan runs (so a test can tell that a plan, not the
    full path, gave a result). kvgold is imported here, when a test asks
    for the fixture, not by every test that loads this file."""
    from kvgold import _plan
    _plan.clear()
    got = []
    execute = _plan.Plan.execute

    def counted(self, objs, addrs):
        got.append(self)
        return execute(self, objs, addrs)
    monkeypatch.setattr(_plan.Plan, "execute", counted)
    yield got
    _plan.clear()
