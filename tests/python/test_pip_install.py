"""`pip install .` as docs/python.md gives it - offline, no build
isolation, Debian's setuptools and wheel, into a venv that sees Debian's
packages - builds the C library and the command, and gives `import kvgold`,
the `kvgold` command and `python3 -m kvgold`, each judging a committed
vector from a directory outside the source tree. The tree is copied first
(sources only), so the test leaves no build files in the checkout."""
import os
import shutil
import subprocess
import sys

import pytest

from samples import case_doc, sample_case

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def _honest(doc):
    """an honest case (no expect_error) with an expected output"""
    return "expect_error" not in doc and bool(doc.get("expected"))


CASE = sample_case(_honest)


def copy_sources(dst):
    keep = ["CMakeLists.txt", "LICENSE", "README.md", "setup.py",
            "pyproject.toml", "src",
            "include", "tools"]
    for name in keep:
        src = os.path.join(ROOT, name)
        if os.path.isdir(src):
            shutil.copytree(src, os.path.join(dst, name),
                            ignore=shutil.ignore_patterns(
                                "__pycache__", "*.egg-info", "build*"))
        else:
            shutil.copy(src, dst)


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    if shutil.which("cmake") is None:
        pytest.fail("cmake is needed (tools/setup-debian.sh installs it)")
    base = tmp_path_factory.mktemp("pip")
    src, env_dir = base / "src", base / "venv"
    src.mkdir()
    copy_sources(str(src))
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages",
                    str(env_dir)], check=True)
    env = {k: v for k, v in os.environ.items()
           if k not in ("KVGOLD_LIBRARY", "KVGOLD_CASE_LIBRARY",
                        "KVGOLD_CLI", "PYTHONPATH", "LD_PRELOAD")}
    env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", "2")
    p = subprocess.run([str(env_dir / "bin" / "pip"), "install",
                        "--no-build-isolation", "--no-index", str(src)],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    return env_dir, env


def run(cmd, env, cwd):
    return subprocess.run(cmd, capture_output=True, text=True, env=env,
                          cwd=cwd)


def test_import_loads_the_installed_library(venv, tmp_path):
    env_dir, env = venv
    p = run([str(env_dir / "bin" / "python"), "-c",
             "import kvgold, os; print(kvgold.__version__); "
             "print(os.path.dirname(kvgold.__file__))"], env, str(tmp_path))
    assert p.returncode == 0, p.stderr
    version, where = p.stdout.split()
    assert version.count(".") == 2
    assert where.startswith(str(env_dir))  # not the source tree's copy
    assert os.path.isfile(os.path.join(where, "libkvgold.so"))
    assert os.path.isfile(os.path.join(where, "libkvgold_case.so"))


@pytest.mark.parametrize("how", ["script", "module"])
def test_the_command_judges_a_vector(venv, tmp_path, how):
    env_dir, env = venv
    cmd = ([str(env_dir / "bin" / "kvgold")] if how == "script" else
           [str(env_dir / "bin" / "python"), "-m", "kvgold"])
    p = run(cmd + ["check", CASE], env, str(tmp_path))
    assert p.returncode == 0, p.stdout + p.stderr
    assert "PASS" in p.stdout
    # and it fails what is wrong: a copy of the case whose expected output
    # has one byte changed
    bad = tmp_path / "bad"
    shutil.copytree(CASE, str(bad))
    # the last element's top byte (little endian: sign and exponent
    # bits): wrong by far under any standard, whatever the dtype
    name = sorted(case_doc(CASE)["expected"])[0]
    exp = bad / case_doc(CASE)["expected"][name]["file"]
    data = bytearray(exp.read_bytes())
    data[-1] ^= 0x40
    exp.write_bytes(bytes(data))
    p = run(cmd + ["check", str(bad)], env, str(tmp_path))
    assert p.returncode == 1, p.stdout + p.stderr


def test_scan_finds_the_installed_command(venv, tmp_path):
    """kvgold.scan runs the command installed beside the package, with no
    PATH or KVGOLD_CLI set."""
    env_dir, env = venv
    env = dict(env, PATH="/usr/bin:/bin")
    p = run([str(env_dir / "bin" / "python"), "-c",
             "import kvgold.__main__ as m; print(m.command())"], env,
            str(tmp_path))
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip().startswith(str(env_dir))
