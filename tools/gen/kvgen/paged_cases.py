"""Case helpers every paged-cache copy operator's vectors use: seeded 16-bit values and never-zero poisoned caches,
the special codes sprinkled into inputs, int32 index tensors, slot runs
packed into blocks, a prefill's slots through a block table, and the
refusal an invalid case expects.
"""

import numpy as np

from . import formats
from .casefile import T


def values(rng, tag, shape):
    """Seeded values in [-5, 5), rounded to the dtype (storage array)."""
    x = rng.uniform(-5.0, 5.0, size=shape).astype(np.float32)
    return np.ascontiguousarray(formats.encode(tag, x))


def poison(rng, tag, shape):
    """Seeded random bit patterns with no zero byte, as a cache of `tag`."""
    raw = rng.randint(1, 256, size=int(np.prod(shape)) * 2).astype(np.uint8)
    arr = raw.view(np.uint16).reshape(shape)
    return arr.view(np.float16) if tag == "fp16" else arr


# Raw codes of the special values: quiet NaN, negative NaN with payload,
# signalling NaN, +-inf, +-0, smallest and largest subnormal, +-max.
SPECIAL = {
    "fp16": dict(nan=0x7E00, nnan=0xFE01, snan=0x7C01, inf=0x7C00,
                 ninf=0xFC00, zero=0x0000, nzero=0x8000, tiny=0x0001,
                 sub=0x03FF, max=0x7BFF, nmax=0xFBFF),
    "bf16": dict(nan=0x7FC0, nnan=0xFF81, snan=0x7F81, inf=0x7F80,
                 ninf=0xFF80, zero=0x0000, nzero=0x8000, tiny=0x0001,
                 sub=0x007F, max=0x7F7F, nmax=0xFF7F),
}


def sprinkle(rng, tag, arr, every=4):
    """Replace about 1 in `every` elements of a 16-bit array (in place) by
    special codes, every code of SPECIAL[tag] at least once. int8 arrays get
    their extremes -128, 127 and 0 instead."""
    flat = arr.reshape(-1)
    if tag == "int8":
        codes = np.array([-128, 127, 0, -1], dtype=np.int8)
        view = flat
    else:
        codes = np.array(sorted(SPECIAL[tag].values()), dtype=np.uint16)
        view = flat.view(np.uint16)
    pos = np.nonzero(rng.randint(0, every, size=flat.size) == 0)[0]
    view[pos] = codes[rng.randint(0, codes.size, size=pos.size)]
    first = rng.permutation(flat.size)[:codes.size]
    view[first] = codes


def i32(a):
    return T(np.asarray(a, dtype=np.int32), "int32")


def pack(rng, counts, block_size, gap=0, shuffle=False, align=False):
    """Start slots for runs of `counts` slots: in head order (or shuffled),
    back to back with up to `gap` free slots between (or block-aligned
    regions); returns (slots, num_blocks) with one spare block at the end."""
    order = np.arange(len(counts))
    if shuffle:
        rng.shuffle(order)
    slots = np.zeros(len(counts), dtype=np.int64)
    at = 0
    for i in order:
        if align:
            at = -(-at // block_size) * block_size
        elif gap:
            at += int(rng.randint(0, gap + 1))
        slots[i] = at
        at += max(int(counts[i]), 1)
    return slots, -(-at // block_size) + 1


def prefill_slots(table, start, tokens, block_size, pad_at=(), tail=()):
    """A prefill of one sequence from position `start` on: position p goes
    to slot table[p // block_size] * block_size + p % block_size (how vLLM
    fills a paged cache), tokens at `pad_at` are padding (-1), and the
    slots in `tail` follow as single tokens (a decode step's)."""
    pos = np.arange(start, start + tokens)
    slots = np.asarray(table)[pos // block_size] * block_size + pos % block_size
    slots = slots.astype(np.int64)
    slots[list(pad_at)] = -1
    return np.concatenate([slots, np.asarray(tail, dtype=np.int64)])


def expect_error(tensor):
    """The refusal an invalid paged-copy case expects."""
    return {"status": 161002, "tensor": tensor}
