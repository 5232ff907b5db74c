"""Reading and writing .npy files (format 1.0-3.0) with the standard
library only, as the case format stores tensors (spec section 5)."""
import ast
import struct

MAGIC = b"\x93NUMPY"


def read(path):
    """(descr, shape, data bytes) of a C-order .npy file."""
    with open(path, "rb") as f:
        blob = f.read()
    if blob[:6] != MAGIC or len(blob) < 10:
        raise ValueError("%s: not a .npy file (bad magic)" % path)
    major = blob[6]
    if major == 1:
        hlen, start = struct.unpack("<H", blob[8:10])[0], 10
    elif major in (2, 3):
        hlen, start = struct.unpack("<I", blob[8:12])[0], 12
    else:
        raise ValueError("%s: .npy format version %d is not 1, 2 or 3"
                         % (path, major))
    try:
        header = ast.literal_eval(
            blob[start:start + hlen].decode("latin1" if major < 3
                                            else "utf-8"))
        descr, fortran, shape = (header["descr"], header["fortran_order"],
                                 tuple(header["shape"]))
    except (ValueError, SyntaxError, KeyError, TypeError):
        raise ValueError("%s: malformed .npy header" % path) from None
    if fortran:
        raise ValueError("%s: Fortran order; the case format is C order"
                         % path)
    return descr, shape, blob[start + hlen:]


def write(path, descr, shape, data):
    """Write a version 1.0 .npy file as NumPy 1.24 does (header padded with
    spaces to a multiple of 64 bytes, ending in a newline)."""
    shape_text = "(%s)" % ("".join("%d, " % d for d in shape)[:-2]
                           + ("," if len(shape) == 1 else ""))
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (
        descr, shape_text)
    pad = 64 - (10 + len(header) + 1) % 64
    header = (header + " " * (pad % 64) + "\n").encode("latin1")
    with open(path, "wb") as f:
        f.write(MAGIC + b"\x01\x00" + struct.pack("<H", len(header)))
        f.write(header)
        f.write(data)
