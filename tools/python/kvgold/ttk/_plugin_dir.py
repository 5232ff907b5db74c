"""The directory given to ops-test-kit's --plugin: one file, written from
the operators' call forms.

ops-test-kit reads a plug-in file's `__spec__` and `__golden__` tables
with `ast`, without running it, so they must be literals in a file; they
are facts each operator's module already states as data (TORCH_NPU_CALLS'
"ttk_spec" / "ttk_golden"), so the file is written from them rather than
kept beside them by hand. It is rewritten only when its text changes
(written to a temporary file, then renamed over it), so concurrent users
of one directory see a whole file.
"""
import os
import tempfile
from typing import Iterable, List, Mapping, Optional, Tuple

FILE_NAME = "kvgold_plugin.py"
"""The plug-in file (ops-test-kit's scanners skip names starting with
"_" and `__init__.py`)."""

ENV = "KVGOLD_TTK_PLUGIN"
"""The environment variable naming the directory, when no path is given."""


def default_dir(version: str) -> str:
    """$KVGOLD_TTK_PLUGIN, else kvgold's directory in the user's cache
    ($XDG_CACHE_HOME or ~/.cache), one per kvgold version."""
    named = os.environ.get(ENV)
    if named:
        return named
    cache = os.environ.get("XDG_CACHE_HOME") or \
        os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "kvgold", "ttk-plugin", version)


def source(entries: Iterable[Tuple[str, str, str]]) -> str:
    """The plug-in file's text for (api, TestSpec class, golden function)
    entries: the literal tables, and the import of every name they give
    from kvgold.ttk (ops-test-kit executes the file on its own, by path)."""
    rows = sorted(entries)
    names = sorted({n for _, spec, golden in rows for n in (spec, golden)})
    lines: List[str] = [
        '"""kvgold as an ops-test-kit plug-in: written by kvgold.ttk from the',
        "operators' call forms (python3 -m kvgold.ttk); not to be edited.",
        '"""',
        "from kvgold.ttk import (  # noqa: F401 (named by the tables)"]
    lines += ["    %s," % n for n in names]
    lines += [")", "", "__spec__ = {"]
    lines += ["    %r: %r," % (api, spec) for api, spec, _ in rows]
    lines += ["}", "", "__golden__ = {", '    "e2e": {']
    lines += ["        %r: %r," % (api, golden) for api, _, golden in rows]
    lines += ["    },", "}", ""]
    return "\n".join(lines)


def write(path: str, text: str) -> str:
    """`text` as path/FILE_NAME unless it already is; returns path.
    OSError (with the OS reason) when the directory cannot be written."""
    os.makedirs(path, exist_ok=True)
    target = os.path.join(path, FILE_NAME)
    try:
        with open(target, encoding="utf-8") as f:
            if f.read() == text:
                return path
    except FileNotFoundError:
        pass
    fd, tmp = tempfile.mkstemp(prefix=".kvgold_plugin.", dir=path)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, target)
    except BaseException:
        os.unlink(tmp)
        raise
    return path


def entries(forms: Mapping[str, Iterable[Mapping[str, object]]]
            ) -> List[Tuple[str, str, str]]:
    """(api, TestSpec class, golden) of every call form that has them."""
    out = []
    for op in sorted(forms):
        for form in forms[op]:
            if form.get("ttk_spec") and form.get("ttk_golden"):
                out.append((str(form["api"]), str(form["ttk_spec"]),
                            str(form["ttk_golden"])))
    return out


def ensure(forms: Mapping[str, Iterable[Mapping[str, object]]],
           version: str, path: Optional[str] = None) -> str:
    """The plug-in directory (path, or default_dir), its file written."""
    return write(path or default_dir(version), source(entries(forms)))
