"""kvgold.load_case reads case directories exactly as the kvgold command:
the same strict JSON reader, the same tensor entries (.bin + "shape"),
header-first reading of regular files only. Every case file below is given
to `kvgold check` and to load_case, and both must take the same decision,
which must be the one the case format (spec section 5, tools/lib/json/json.h)
prescribes.

load_case runs in a child process with a time limit (and, outside
sanitizer builds, an address-space limit), so that a reader that hangs on
a FIFO or reads /dev/zero forever fails the test instead of the machine.
"""
import json
import os
import resource
import shutil
import subprocess
import sys

import numpy as np
import pytest

from conftest import cli_env
from samples import sample_case


def _fits(doc):
    """an honest case (no expect_error) with a comment, an attribute whose
    value is a string, and an input in a .npy file"""
    return ("expect_error" not in doc and "comment" in doc and
            any(isinstance(v, str) for v in doc.get("attrs", {}).values())
            and any(e["file"].endswith(".npy")
                    for e in doc["inputs"].values()))


def _fits_error(doc):
    """a case that expects the refusal 161002"""
    return doc.get("expect_error", {}).get("status") == 161002


# Some operator's cases (conftest.sample_case): what the edits below
# splice is read from the base's case.json, never assumed.
BASE = sample_case(_fits)
ERROR_BASE = sample_case(_fits_error)
with open(os.path.join(BASE, "case.json")) as _f:
    _DOC = json.load(_f)
OP = _DOC["op"]
# the input the file edits are made on, and its file
IN = [n for n, e in _DOC["inputs"].items() if e["file"].endswith(".npy")][0]
IN_FILE = _DOC["inputs"][IN]["file"]
# a string attribute, as case.json spells it
ATTR = [k for k, v in _DOC["attrs"].items() if isinstance(v, str)][0]
ATTR_TEXT = ('"%s": "%s"' % (ATTR, _DOC["attrs"][ATTR])).encode()
SANITIZED = "asan" in os.environ.get("LD_PRELOAD", "")

# The child: load the case, print ACCEPT, or REFUSE and the error.
CHILD = r"""
import resource, sys
limit = int(sys.argv[2])
if limit:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
import kvgold
try:
    c = kvgold.load_case(sys.argv[1])
except kvgold.Error as e:
    print("REFUSE %d %s" % (e.status, e.message))
else:
    print("ACCEPT %s %s" % (c.op, sorted(c.inputs)))
"""


def load_in_child(case_dir, timeout=60):
    """(decision, text) of load_case in a child: ACCEPT, REFUSE, or how it
    went wrong (a hang, a Python exception other than kvgold.Error)."""
    limit = 0 if SANITIZED else 1 << 30
    try:
        p = subprocess.run([sys.executable, "-c", CHILD, case_dir,
                            str(limit)], capture_output=True, text=True,
                           timeout=timeout, env=os.environ)
    except subprocess.TimeoutExpired:
        return "HANG", "load_case did not return in %d s" % timeout
    words = p.stdout.split(" ", 1)
    if p.returncode == 0 and words[0] in ("ACCEPT", "REFUSE"):
        return words[0], p.stdout.strip()
    return "CRASH", (p.stdout + p.stderr).strip()[-600:]


def cli_decision(cli, case_dir, timeout=60):
    """ACCEPT (check ran and passed), REFUSE ("invalid case", exit 2), or
    what else happened."""
    try:
        p = subprocess.run([cli, "check", case_dir], capture_output=True,
                           text=True, timeout=timeout, env=cli_env())
    except subprocess.TimeoutExpired:
        return "HANG", "kvgold check did not return in %d s" % timeout
    if p.returncode == 0:
        return "ACCEPT", p.stdout.strip()[-300:]
    if p.returncode == 2 and "invalid case" in p.stderr:
        return "REFUSE", p.stderr.strip()
    return "OTHER %d" % p.returncode, (p.stdout + p.stderr).strip()[-600:]


# ---- the case files -------------------------------------------------------

def _text(d):
    with open(os.path.join(d, "case.json"), "rb") as f:
        return f.read()


def _put(d, raw):
    path = os.path.join(d, "case.json")
    os.unlink(path)
    with open(path, "wb") as f:
        f.write(raw)


def _edit(d, fn):
    with open(os.path.join(d, "case.json")) as f:
        doc = json.load(f)
    fn(doc)
    _put(d, json.dumps(doc, indent=1).encode())


def _splice(d, old, new):
    raw = _text(d)
    assert old in raw, (old, raw[:200])
    _put(d, raw.replace(old, new, 1))


def _input_as_bin(d, grow=0, drop_shape=False):
    """The input's .npy -> .bin (its raw data) with a "shape" entry (its
    first dim `grow` larger than the data's)."""
    a = np.load(os.path.join(d, IN_FILE))
    bin_file = IN_FILE[:-len(".npy")] + ".bin"
    a.tofile(os.path.join(d, bin_file))
    os.unlink(os.path.join(d, IN_FILE))
    shape = list(a.shape)
    shape[0] += grow

    def fix(doc):
        doc["inputs"][IN]["file"] = bin_file
        if not drop_shape:
            doc["inputs"][IN]["shape"] = shape
    _edit(d, fix)


def _input_shape(d, delta):
    a = np.load(os.path.join(d, IN_FILE))
    shape = list(a.shape)
    shape[0] += delta

    def fix(doc):
        doc["inputs"][IN]["shape"] = shape
    _edit(d, fix)


def _status(d, text):
    _splice(d, b'"status": 161002', b'"status": ' + text)


def _fifo(d):
    os.unlink(os.path.join(d, "case.json"))
    os.mkfifo(os.path.join(d, "case.json"))


def _link(d, name, target):
    os.unlink(os.path.join(d, name))
    os.symlink(target, os.path.join(d, name))


# (id, base, how to make it from the base, the decision the format says)
CASES = [
    ("valid", BASE, lambda d: None, "ACCEPT"),
    ("valid_expect_error", ERROR_BASE, lambda d: None, "ACCEPT"),
    ("bin_with_shape", BASE, _input_as_bin, "ACCEPT"),
    ("npy_with_its_shape", BASE, lambda d: _input_shape(d, 0), "ACCEPT"),
    ("unicode_comment", BASE, lambda d: _splice(
        d, b'"comment": "', '"comment": "caf\u00e9 \u2713 '.encode()),
     "ACCEPT"),
    ("escaped_surrogate_pair", BASE, lambda d: _splice(
        d, b'"comment": "', b'"comment": "\\ud83d\\ude00 '), "ACCEPT"),
    # refused by the strict reader
    ("duplicate_top_key", BASE, lambda d: _splice(
        d, b'"op": "%s",' % OP.encode(),
        b'"op": "%s", "op": "%s",' % (OP.encode(), OP.encode())),
     "REFUSE"),
    ("duplicate_attr", BASE, lambda d: _splice(
        d, ATTR_TEXT, b'"%s": "not_%s", ' % (ATTR.encode(), ATTR.encode()) +
        ATTR_TEXT), "REFUSE"),
    ("status_float", ERROR_BASE, lambda d: _status(d, b"161002.0"),
     "REFUSE"),
    ("status_true", ERROR_BASE, lambda d: _status(d, b"true"), "REFUSE"),
    ("status_string", ERROR_BASE, lambda d: _status(d, b'"161002"'),
     "REFUSE"),
    ("lone_surrogate", BASE, lambda d: _splice(
        d, b'"comment": "', b'"comment": "\\ud800 '), "REFUSE"),
    ("nul_escape", BASE, lambda d: _splice(
        d, b'"comment": "', b'"comment": "a\\u0000b '), "REFUSE"),
    ("deep_nesting", BASE, lambda d: _splice(
        d, b'"comment": "', b'"flags": ' + b"[" * 100000 + b"]" * 100000 +
        b', "comment": "'), "REFUSE"),
    ("invalid_utf8", BASE, lambda d: _splice(
        d, b'"comment": "', b'"comment": "\xff\xfe '), "REFUSE"),
    ("text_after_object", BASE, lambda d: _put(d, _text(d) + b" {}"),
     "REFUSE"),
    ("nan_literal", BASE, lambda d: _splice(
        d, b'"comment": "', b'"flags": NaN, "comment": "'), "REFUSE"),
    ("byte_order_mark", BASE, lambda d: _put(d, b"\xef\xbb\xbf" + _text(d)),
     "REFUSE"),
    # refused by the case format
    ("bin_without_shape", BASE,
     lambda d: _input_as_bin(d, drop_shape=True), "REFUSE"),
    ("bin_of_the_wrong_size", BASE, lambda d: _input_as_bin(d, grow=1),
     "REFUSE"),
    ("npy_shape_differs", BASE, lambda d: _input_shape(d, 1), "REFUSE"),
    ("unknown_entry_key", BASE, lambda d: _splice(
        d, b'"file": "%s"' % IN_FILE.encode(),
        b'"file": "%s", "fmt": "npy"' % IN_FILE.encode()), "REFUSE"),
    ("file_outside_the_case", BASE, lambda d: _splice(
        d, b'"file": "%s"' % IN_FILE.encode(), b'"file": "../%s/%s"' % (
            os.path.basename(BASE).encode(), IN_FILE.encode())), "REFUSE"),
    ("unknown_attr", BASE, lambda d: _splice(
        d, ATTR_TEXT, ATTR_TEXT + b', "colour": 1'), "REFUSE"),
    ("attr_of_the_wrong_type", BASE, lambda d: _splice(
        d, ATTR_TEXT, b'"%s": 1' % ATTR.encode()), "REFUSE"),
    ("unknown_input", BASE, lambda d: _edit(d, lambda doc: doc["inputs"].
                                            __setitem__("bogus", doc[
                                                "inputs"][IN])),
     "REFUSE"),
    # not regular files
    ("fifo_case_json", BASE, _fifo, "REFUSE"),
    ("dev_zero_case_json", BASE, lambda d: _link(d, "case.json",
                                                 "/dev/zero"), "REFUSE"),
    ("dev_zero_input", BASE, lambda d: _link(d, IN_FILE, "/dev/zero"),
     "REFUSE"),
    ("fifo_input", BASE, lambda d: (os.unlink(os.path.join(d, IN_FILE)),
                                    os.mkfifo(os.path.join(d, IN_FILE))),
     "REFUSE"),
]


MAKE = {c[0]: c[2] for c in CASES}


def make_case(tmp_path, case_id, base, make):
    d = str(tmp_path / case_id)
    shutil.copytree(base, d)
    make(d)
    return d


@pytest.mark.parametrize("case_id, base, make, want", CASES,
                         ids=[c[0] for c in CASES])
def test_load_case_decides_as_the_cli(tmp_path, cli, case_id, base, make,
                                      want):
    d = make_case(tmp_path, case_id, base, make)
    cli_got, cli_text = cli_decision(cli, d)
    py_got, py_text = load_in_child(d)
    assert (cli_got, py_got) == (want, want), (
        "the format says %s; kvgold check: %s (%s); load_case: %s (%s)"
        % (want, cli_got, cli_text, py_got, py_text))


def test_refusals_name_the_file_and_field(tmp_path):
    d = make_case(tmp_path, "dup", BASE, MAKE["duplicate_top_key"])
    got, text = load_in_child(d)
    assert got == "REFUSE" and "170003" in text, text
    # the reader's message: the file, line and column, both positions
    assert os.path.join(d, "case.json") + ":" in text, text
    assert '"op"' in text, text
    d = make_case(tmp_path, "fifo", BASE, _fifo)
    got, text = load_in_child(d)
    assert got == "REFUSE" and "FIFO" in text and "not a regular file" in \
        text, text


def test_bin_entry_loads_the_same_tensor(tmp_path):
    """A .bin + shape entry gives the same tensor as the .npy it came
    from (read in this process: load_case is trusted to return here)."""
    import kvgold
    d = make_case(tmp_path, "bin", BASE, _input_as_bin)
    c, ref = kvgold.load_case(d), kvgold.load_case(BASE)
    assert c.inputs[IN] == ref.inputs[IN]
    a = np.load(os.path.join(BASE, IN_FILE))
    assert c.inputs[IN].shape == a.shape
    assert np.asarray(c.inputs[IN]).tobytes() == a.tobytes()
    assert c.attrs == ref.attrs and c.comment == ref.comment


# A child that loads a case and prints its peak resident memory in KiB.
PEAK = r"""
import resource, sys
import kvgold
try:
    kvgold.load_case(sys.argv[1])
    print("ACCEPT", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
except kvgold.Error as e:
    print("REFUSE", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
          e.message)
"""


def peak_in_child(case_dir):
    limit = 0 if SANITIZED else 1 << 30

    def cap():
        if limit:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    p = subprocess.run([sys.executable, "-c", PEAK, case_dir],
                       capture_output=True, text=True, timeout=120,
                       env=os.environ, preexec_fn=cap)
    words = p.stdout.split(" ", 2)
    assert p.returncode == 0 and len(words) >= 2, p.stdout + p.stderr
    return words[0], int(words[1]), p.stdout


@pytest.mark.parametrize("victim", ["case.json", IN_FILE])
def test_big_junk_is_refused_without_reading_it(tmp_path, victim):
    """256 MiB of junk (a sparse file: no disk used) as case.json or as an
    input: refused after the reader's limit (4 MiB) or the header, and the
    process never holds more than a fraction of it."""
    small = make_case(tmp_path, "small", BASE, lambda d: None)
    got, baseline, _ = peak_in_child(small)
    assert got == "ACCEPT"

    def junk(d):
        path = os.path.join(d, victim)
        os.unlink(path)
        with open(path, "wb") as f:
            f.write(b"{" if victim == "case.json" else b"\x93JUNK")
            f.truncate(256 << 20)
    d = make_case(tmp_path, "junk", BASE, junk)
    got, peak, text = peak_in_child(d)
    assert got == "REFUSE", text
    assert victim in text, text
    assert peak - baseline < 32 << 10, (
        "peak %d KiB against %d KiB for a small case" % (peak, baseline))
