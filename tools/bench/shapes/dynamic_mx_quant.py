"""DynamicMxQuant's benchmark shapes (bench.py finds this module)."""
import numpy as np

from kvgen import mx_block_quant as gen

import torch_golden as tg  # the PyTorch peer's helpers (tools/bench)

from ._inputs import Shape, T, codes

NAME = "DynamicMxQuant"
_EMAX = {"fp4_e2m1": 2, "fp8_e4m3fn": 8}


def make_shape(shape, dst, group="main", what=""):
    """x bf16 of `shape` quantised in blocks of 32 along the last dim to
    `dst` (scale_alg 0, rint); y and mxscale given poisoned, as the
    vectors give them."""
    rng = np.random.RandomState(7000 + int(np.prod(shape)) % 997)
    x = codes(rng, "bf16", shape, -3, 2)
    n = shape[-1]
    yshape = tuple(shape[:-1]) + ((n // 2,) if dst == "fp4_e2m1" else (n,))
    blocks = -(-n // 32)
    sshape = tuple(shape[:-1]) + (-(-blocks // 2), 2)
    attrs = {"axis": -1, "round_mode": "rint", "dst_type": dst,
             "block_size": 32, "scale_alg": 0, "dst_type_max": 0.0,
             "max_low_bound": 0.0}
    inputs = {"x": T(x, "bf16"),
              "y": T(np.full(yshape, 0x5A, np.uint8), dst),
              "mxscale": T(np.full(sshape, 0xA5, np.uint8), "e8m0")}

    def golden():
        y, s = gen.golden(x, "bf16", attrs)
        return {"y": T(y, dst), "mxscale": T(s, "e8m0")}

    label = "%s %s bf16 %s block 32" % (what, "x".join(map(str, shape)), dst)
    return Shape("dynamic_mx_quant", label, int(np.prod(shape[:-1])),
                 inputs, golden, attrs, None, group=group)


def main_shapes(quick):
    """vllm-ascend's C8-MXFP K write: MXFP8 [T, 8, 128] (8 KV heads of
    128); an MXFP4 row of DeepSeek-V4's 7168-wide hidden state."""
    if quick:
        yield make_shape((256, 8, 128), "fp8_e4m3fn", what="mxfp8 K")
        return
    yield make_shape((4096, 8, 128), "fp8_e4m3fn", what="mxfp8 K")
    yield make_shape((1024, 7168), "fp4_e2m1", what="mxfp4 hidden")


def scaling_shapes(quick):
    """No cache: nothing to scale against."""
    return iter(())


def torch_golden(shape):
    """amax per block of 32, the OCP code from its exponent (frexp), the
    multiplier 2^(127 - code) (0 for code 0), y the rint of x * mult to
    fp8 e4m3fn / fp4 pairs, mxscale the codes in pairs."""
    a = shape.attrs
    dst = a["dst_type"]
    x0 = tg.tensor(shape.inputs["x"])
    n = x0.shape[-1]
    if n % 64:
        return None, "no torch golden for a padded block pair"
    torch = tg.torch

    def fn():
        xf = x0.float().reshape(-1, n // 32, 32)
        amax = xf.abs().amax(dim=2, keepdim=True)
        e = torch.frexp(amax)[1] - 1 + 127            # E(amax) for normals
        code = torch.clamp(e - _EMAX[dst], min=0)
        mult = torch.where(code == 0, torch.zeros_like(amax),
                           torch.ldexp(torch.ones_like(amax), 127 - code))
        z = xf * mult
        if dst == "fp4_e2m1":
            c = tg.fp4_codes(z).reshape(-1, n // 2, 2)
            y = (c[..., 0] | (c[..., 1] << 4)).reshape(
                shape.inputs["y"].array.shape)
        else:
            y = tg.quantise(z, dst).reshape(x0.shape)
        s = code.to(torch.uint8).reshape(shape.inputs["mxscale"].array.shape)
        return {"y": y.numpy(), "mxscale": s.numpy()}
    return fn, None
