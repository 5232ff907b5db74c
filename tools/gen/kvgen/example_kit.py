"""What the bundled examples (cases_examples.py) share: seeded bf16 values,
never-zero poisoned caches, a model's rotary tables, the stand-in NPU dump
directories."""
import os

import numpy as np

from . import formats, npyio

F32 = np.float32


def bf16(rng, shape, scale, shift=0.0):
    x = (rng.standard_normal(shape) * scale + shift).astype(F32)
    return formats.encode("bf16", x)


def poison(rng, shape, dtype):
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    raw = rng.randint(1, 256, size=nbytes).astype(np.uint8)
    return raw.view(dtype).reshape(shape)


def rope_tables(rng, tokens, dim):
    """cos/sin of random positions, as a model's rotary table gives them."""
    pos = rng.randint(0, 8192, size=(tokens, 1)).astype(np.float64)
    inv = 10000.0 ** (-np.arange(0, dim, 2, dtype=np.float64) / dim)
    ang = np.concatenate([pos * inv, pos * inv], axis=-1)
    return (formats.encode("bf16", np.cos(ang).astype(F32)),
            formats.encode("bf16", np.sin(ang).astype(F32)))


def storage(arr, tag):
    """The kv golden returns raw codes; cases store int8 as int8."""
    arr = np.ascontiguousarray(arr)
    return arr.view(np.int8) if tag == "int8" else arr


def save_dump(d, sub, outputs):
    os.makedirs(os.path.join(d, sub), exist_ok=True)
    for name, arr in outputs.items():
        npyio.save(os.path.join(d, sub, name + ".npy"), arr)
