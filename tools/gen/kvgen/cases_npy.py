"""Reference .npy files written by NumPy itself (vectors/npy/).

Here, and only here, the files are written with np.save /
np.lib.format.write_array rather than kvgen.npyio: NumPy's own bytes are the
reference that tests/test_npy.c holds the C writer (kvg_npy_encode) and the
C reader (kvg_npy_load) to. Regeneration is byte-identical under the NumPy
the project pins (Debian 12's 1.24.2); other NumPy versions may write other
headers, which the regen check would then report.

Every array's raw bytes follow one formula, so the C test rebuilds the same
array without reading the file:

    byte j of the data = (seed + 151 * j) % 255 + 1      (never 0)

The bytes are reinterpreted as the descr (NaN patterns included: np.save
copies raw memory, it does not convert).

WRITER: v1.0 files the C writer must reproduce byte for byte (every
supported descr, every rank 0..8, empty arrays, a 13-digit first dimension
for the growth-axis padding). Their bytes are also checked here against
kvgen.npyio, the generator's own writer.

READER: files the C reader must accept (version 2.0) or refuse with a
specific message (version 3.0, Fortran order, big-endian, unsupported
descrs).
"""
import io
import os

import numpy as np

from . import npyio

NAME = "npy"

# (file stem, descr, shape, seed) -- mirrored by k_writer_files in
# tests/test_npy.c; keep the two tables in step.
WRITER = [
    ("f2_r0", "<f2", (), 1),
    ("u2_r1", "<u2", (5,), 2),
    ("f4_r2", "<f4", (3, 4), 3),
    ("i1_r3", "|i1", (2, 3, 4), 4),
    ("u1_r4", "|u1", (2, 1, 3, 2), 5),
    ("i4_r5", "<i4", (1, 2, 1, 3, 2), 6),
    ("i8_r6", "<i8", (2, 1, 1, 2, 1, 2), 7),
    ("f4_r7", "<f4", (2, 1, 2, 1, 2, 1, 2), 8),
    ("u2_r8", "<u2", (1, 2, 1, 2, 1, 2, 1, 3), 9),
    ("f2_empty", "<f2", (0,), 10),
    ("f4_dim13", "<f4", (1234567890123, 0), 11),
    ("u1_r1_300", "|u1", (300,), 12),
    ("i4_zero_mid", "<i4", (1000000, 0, 1000000, 1000), 13),
]


def pattern(seed, nbytes):
    j = np.arange(nbytes, dtype=np.int64)
    return ((seed + 151 * j) % 255 + 1).astype(np.uint8)


def array(descr, shape, seed):
    dt = np.dtype(descr)
    n = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
    return pattern(seed, n).view(dt).reshape(shape)


def _np_save_bytes(arr):
    buf = io.BytesIO()
    np.save(buf, arr)
    return buf.getvalue()


def _write_array_bytes(arr, version):
    buf = io.BytesIO()
    np.lib.format.write_array(buf, arr, version=version)
    return buf.getvalue()


def _put(dir, stem, data):
    with open(os.path.join(dir, stem + ".npy"), "wb") as f:
        f.write(data)


def generate(dir):
    for stem, descr, shape, seed in WRITER:
        arr = array(descr, shape, seed)
        data = _np_save_bytes(arr)
        # The generator's writer claims NumPy 1.24's bytes; hold it to that.
        if npyio.npy_bytes(arr) != data:
            raise AssertionError("kvgen.npyio differs from np.save for %s"
                                 % stem)
        _put(dir, stem, data)

    # Accepted by the C reader: version 2.0 (4-byte header length).
    _put(dir, "v2_f4", _write_array_bytes(array("<f4", (2, 3), 20), (2, 0)))
    # Refused by the C reader, each with its own message.
    _put(dir, "v3_f4", _write_array_bytes(array("<f4", (2, 3), 21), (3, 0)))
    _put(dir, "fortran_f4",
         _np_save_bytes(np.asfortranarray(array("<f4", (2, 3), 22))))
    _put(dir, "bigendian_f4", _np_save_bytes(array(">f4", (3,), 23)))
    _put(dir, "descr_f8", _np_save_bytes(array("<f8", (2,), 24)))
    _put(dir, "descr_b1",
         _np_save_bytes(np.array([True, False, True, True])))
