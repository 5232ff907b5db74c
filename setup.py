"""`pip install .`: the kvgold Python package with its C library and the
`kvgold` command, built by CMake from this tree (docs/python.md). The
package's metadata is in pyproject.toml; this file adds the build step
and the version (from CMakeLists.txt, so it is written once).

Offline, with Debian's setuptools and wheel:

    python3 -m venv --system-site-packages /opt/kvgold-venv
    /opt/kvgold-venv/bin/pip install --no-build-isolation --no-index .

The wheel holds the package (tools/python/kvgold), libkvgold.so and
libkvgold_case.so beside its __init__.py (where kvgold._lib looks) and the command as kvgold/bin/kvgold;
the `kvgold` script and `python3 -m kvgold` run that command. Only the
library and the command are built (no tests); CMAKE_BUILD_PARALLEL_LEVEL
sets the build's jobs, KVG_CMAKE_ARGS adds configure options.
"""
import os
import shlex
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

ROOT = os.path.dirname(os.path.abspath(__file__))


def _version():
    """The project's version, from CMakeLists.txt's project() call."""
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        text = f.read()
    at = text.index("VERSION", text.index("project(kvgold"))
    return text[at:].split()[1]


class BuildWithCMake(build_py):
    """The pure-Python files as usual, then the C library and the command
    built into a scratch tree and copied into the package."""

    def run(self):
        super().run()
        tree = os.path.join(self.get_finalized_command("build").build_temp,
                            "cmake")
        cmake = shutil.which("cmake")
        if cmake is None:
            raise SystemExit("kvgold: pip install needs cmake and a C "
                             "compiler (Debian: apt-get install cmake gcc)")
        args = [cmake, "-S", ROOT, "-B", tree, "-DCMAKE_BUILD_TYPE=Release",
                "-DKVG_BUILD_TESTS=OFF", "-DKVG_BUILD_PYTHON=ON",
                "-DKVG_BUILD_TOOLS=ON", "-DKVG_INSTALL=OFF"]
        args += shlex.split(os.environ.get("KVG_CMAKE_ARGS", ""))
        subprocess.check_call(args)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL",
                              str(os.cpu_count() or 1))
        subprocess.check_call([cmake, "--build", tree, "-j", jobs,
                               "--target", "kvgold_pycase", "kvgold_cli"])
        pkg = os.path.join(self.build_lib, "kvgold")
        libs = os.path.join(tree, "tools", "python", "lib")
        cli = os.path.join(tree, "tools", "kvgold")
        for name in ("libkvgold.so", "libkvgold_case.so"):
            # copyfile follows libkvgold.so's link to the versioned file
            shutil.copyfile(os.path.join(libs, name), os.path.join(pkg, name))
        os.makedirs(os.path.join(pkg, "bin"), exist_ok=True)
        shutil.copyfile(cli, os.path.join(pkg, "bin", "kvgold"))
        os.chmod(os.path.join(pkg, "bin", "kvgold"), 0o755)


class BinaryDistribution(Distribution):
    """The wheel holds machine code: tagged for this platform."""

    def has_ext_modules(self):
        return True


setup(
    version=_version(),
    cmdclass={"build_py": BuildWithCMake},
    distclass=BinaryDistribution,
)
