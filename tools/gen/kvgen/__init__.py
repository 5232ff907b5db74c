"""kvgen - the NumPy golden generator for kvgold.

Written independently of the C library: vectorised NumPy over whole tensors,
following the arithmetic contract of the spec (section 1) step by step in
binary32. Nothing here imports or calls kvgold's C code.
"""
