"""What every operator's benchmark shapes share: seeded inputs drawn as
codes, cache poison, slot patterns, and the Shape record bench.py times."""
import numpy as np

from kvgen.casefile import T

F32 = np.float32
STORE = {"fp16": np.float16, "bf16": np.uint16, "int8": np.int8,
         "fp8_e4m3fn": np.uint8, "fp8_e5m2": np.uint8, "hif8": np.uint8}
SIZE = {"fp16": 2, "bf16": 2, "int8": 1, "fp8_e4m3fn": 1, "fp8_e5m2": 1,
        "hif8": 1}


# ---- inputs ------------------------------------------------------------------
#
# Values are drawn directly as codes (random sign, exponent in a range,
# random mantissa): exact in the format, never zero, and fast enough for
# tensors of 50M elements, where encoding random floats would take longer
# than the goldens being timed.

def codes(rng, tag, shape, e_lo, e_hi):
    """Random fp16/bf16 codes with unbiased exponent in [e_lo, e_hi]."""
    n = int(np.prod(shape))
    sign = rng.randint(0, 2, size=n).astype(np.uint16) << 15
    if tag == "bf16":
        exp = (rng.randint(e_lo, e_hi + 1, size=n) + 127).astype(np.uint16)
        code = sign | (exp << 7) | rng.randint(0, 128, size=n).astype(
            np.uint16)
        return code.reshape(shape)
    exp = (rng.randint(e_lo, e_hi + 1, size=n) + 15).astype(np.uint16)
    code = sign | (exp << 10) | rng.randint(0, 1024, size=n).astype(np.uint16)
    return code.reshape(shape).view(np.float16)


def positive(rng, tag, shape, e_lo, e_hi):
    c = codes(rng, tag, shape, e_lo, e_hi)
    return (c.view(np.uint16) & np.uint16(0x7FFF)).view(c.dtype)


def poison(rng, tag, shape):
    """A cache's initial content: random bytes, none zero."""
    raw = rng.randint(1, 256, size=int(np.prod(shape)) * SIZE[tag]).astype(
        np.uint8)
    if SIZE[tag] == 2:
        raw = raw.view(np.uint16)
    return raw.view(STORE[tag]).reshape(shape)


def spread_slots(rng, tokens, total):
    """`tokens` distinct slots drawn from the whole range [0, total), in
    random order: decode, where each token is a different sequence's next
    position, and the scaling runs, which spread the writes over the cache."""
    return rng.choice(total, size=tokens, replace=False).astype(np.int64)


def paged_slots(rng, tokens, bs, blocks):
    """Prefill of one sequence: position p goes to slot table[p // bs] * bs
    + p % bs of a shuffled block table (how vLLM fills a paged cache)."""
    table = rng.permutation(blocks)[:-(-tokens // bs)]
    pos = np.arange(tokens)
    return (table[pos // bs] * bs + pos % bs).astype(np.int64)


def i32(a):
    return T(np.asarray(a, dtype=np.int32), "int32")


# ---- one shape ----------------------------------------------------------------

class Shape:
    """A benchmark case: its inputs, attributes and the golden to time."""

    def __init__(self, op, label, tokens, inputs, golden, attrs=None,
                 options=None, group="main"):
        self.op, self.label, self.tokens = op, label, tokens
        self.inputs, self.golden = inputs, golden
        self.attrs, self.options = attrs or {}, options or {}
        self.group = group
