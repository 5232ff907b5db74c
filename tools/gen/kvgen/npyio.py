"""Writing .npy files byte-for-byte as NumPy 1.24 does, whatever NumPy runs.

np.save's header layout has changed across NumPy versions (the growth-axis
spaces arrived in 1.24); regeneration must reproduce the committed files
exactly, so the header is built here from the documented format.
"""
import numpy as np

_DESCR = {
    np.dtype('<f2'): "<f2", np.dtype('<u2'): "<u2", np.dtype('<f4'): "<f4",
    np.dtype('|i1'): "|i1", np.dtype('|u1'): "|u1", np.dtype('<i4'): "<i4",
    np.dtype('<i8'): "<i8", np.dtype('<i2'): "<i2", np.dtype('<u4'): "<u4",
}


def npy_bytes(arr):
    """The .npy v1.0 image of a C-order array of a supported dtype."""
    # np.asarray(order="C"), not np.ascontiguousarray: the latter turns a
    # 0-d array into shape (1,), and rank 0 must stay shape ().
    arr = np.asarray(arr, order="C")
    descr = _DESCR[arr.dtype.newbyteorder('<') if arr.dtype.itemsize > 1
                   else arr.dtype]
    shape = tuple(int(d) for d in arr.shape)
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %r, }" % (
        descr, shape)
    if shape:
        header += " " * (21 - len(repr(shape[0])))
    hlen = len(header) + 1
    pad = 64 - ((10 + hlen) % 64)
    total = hlen + pad
    prefix = b"\x93NUMPY\x01\x00" + bytes([total & 0xFF, total >> 8])
    data = arr.astype(arr.dtype.newbyteorder('<'), copy=False).tobytes()
    return prefix + header.encode("latin1") + b" " * pad + b"\n" + data


def save(path, arr):
    with open(path, "wb") as f:
        f.write(npy_bytes(arr))
