"""DynamicBlockQuant's benchmark shapes (bench.py finds this module)."""
import numpy as np

from kvgen import amax_block_quant as gen

import torch_golden as tg  # the PyTorch peer's helpers (tools/bench)

from ._inputs import Shape, T, codes

NAME = "DynamicBlockQuant"
_Y_STORE = {"int8": np.int8, "fp8_e4m3fn": np.uint8}


def make_shape(shape, rb, cb, dst, profile=None, group="main", what=""):
    """x bf16 of `shape` quantised in rb x cb blocks to `dst`; y and scale
    given poisoned, as the vectors give them."""
    rng = np.random.RandomState(6000 + int(np.prod(shape)) % 997 + rb)
    x = codes(rng, "bf16", shape, -3, 2)
    m, n = shape[-2], shape[-1]
    sshape = tuple(shape[:-2]) + (-(-m // rb), -(-n // cb))
    attrs = {"dst_type": dst, "row_block_size": rb, "col_block_size": cb,
             "min_scale": 0.0, "round_mode": "rint", "dst_type_max": 0.0}
    inputs = {"x": T(x, "bf16"),
              "y": T(np.full(shape, 0x5A, _Y_STORE[dst]), dst),
              "scale": T(np.full(sshape, np.nan, np.float32), "fp32")}
    prof = profile or "ascend950"

    def golden():
        y, scale = gen.golden(x, "bf16", attrs, prof)
        return {"y": T(y.astype(_Y_STORE[dst]), dst),
                "scale": T(scale, "fp32")}

    label = "%s %s bf16 %s %dx%d %s" % (
        what, "x".join(map(str, shape)), dst, rb, cb, prof)
    return Shape("dynamic_block_quant", label, int(np.prod(shape[:-1])),
                 inputs, golden, attrs,
                 {"profile": profile} if profile else None, group=group)


def main_shapes(quick):
    """DeepSeek's C8 write: each token's 512-wide k_nope in 1 x 128 tiles
    ([T, 1, 512], vllm-ascend's call), on both chips; a 128 x 128
    weight-style block to fp8 e4m3fn on the 950."""
    if quick:
        yield make_shape((256, 1, 512), 1, 128, "int8", what="k_nope")
        return
    yield make_shape((4096, 1, 512), 1, 128, "int8", what="k_nope")
    yield make_shape((4096, 1, 512), 1, 128, "int8", "a2a3", what="k_nope")
    yield make_shape((1024, 4096), 128, 128, "fp8_e4m3fn", what="weight")


def scaling_shapes(quick):
    """No cache: nothing to scale against."""
    return iter(())


def torch_golden(shape):
    """amax per block, scale amax / DST_MAX, y the saturating cast of
    x / scale (the ascend950 arithmetic; a2a3's reciprocal product too)."""
    a = shape.attrs
    dst, rb, cb = a["dst_type"], a["row_block_size"], a["col_block_size"]
    x0 = tg.tensor(shape.inputs["x"])
    profile = shape.options.get("profile", "ascend950")
    if dst not in ("int8", "fp8_e4m3fn"):
        return None, "no torch golden for DynamicBlockQuant " + dst
    m, n = x0.shape[-2], x0.shape[-1]
    if m % rb or n % cb:
        return None, "no torch golden for partial blocks"
    dmax = 127.0 if dst == "int8" else 448.0
    torch = tg.torch

    def fn():
        xf = x0.float().reshape(-1, m // rb, rb, n // cb, cb)
        amax = xf.abs().amax(dim=(2, 4), keepdim=True)
        if profile == "a2a3":
            mult = (1.0 / amax) * dmax
            scale = amax * torch.tensor(1.0 / 127.0, dtype=torch.float32)
            z = xf * mult
        else:
            scale = amax / dmax
            z = xf / scale
        y = tg.quantise(z, dst).reshape(x0.shape)
        s = scale.reshape(shape.inputs["scale"].array.shape)
        return {"y": tg.raw(y), "scale": s.numpy()}
    return fn, None
