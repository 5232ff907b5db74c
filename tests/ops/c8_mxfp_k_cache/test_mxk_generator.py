"""The C8-MXFP K write's NumPy golden (tools/gen/kvgen/c8_mxfp_k_cache.py)
against bytes derived by hand from the source's steps: E8M0 code =
E(amax) - 8 (OCP, e4m3fn), payload x * 2^(127 - code) in e4m3fn, the PA_NZ
payload position [b, n, c/32, o, c%32] and the scale cache's flat offsets
b*N*Bs*D/32 + n*Bs*D/32 + (o/16)*(D/64)*32 + (o%16)*2 + (e/2)*32 + e%2.
Caches start as 0x5A so an unwritten byte shows. The vectors are only as
right as this generator, and the C operator is checked against them."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "tools", "gen"))
from kvgen import c8_mxfp_k_cache as mk  # noqa: E402

POISON = 0x5A
ONE, HALF, M_ONE, FOURTEEN, M_FOURTEEN = 0x3F80, 0x3F00, 0xBF80, 0x4160, \
    0xC160


def caches(bn, n, d, bs):
    return (np.full((bn, n, d // 32, bs, 32), POISON, dtype=np.uint8),
            np.full((bn, n, bs // 16, d // 64, 16, 2), POISON,
                    dtype=np.uint8))


def hand_row(d=64):
    """Block 0: 1.0 with 0.5 at 1 and -1.0 at 2 (amax 1: code 119, x*2^8:
    256 -> 0x78, 128 -> 0x70, -256 -> 0xF8); block 1: 14 with -14 at 33
    (amax 14: code 122, x*2^5 = +-448 -> 0x7E / 0xFE); further blocks as
    block 0."""
    r = np.full(d, ONE, dtype=np.uint16)
    r[1], r[2] = HALF, M_ONE
    r[32:64] = FOURTEEN
    r[33] = M_FOURTEEN
    return r


def hand_payload(d=64):
    p = np.full(d, 0x78, dtype=np.uint8)
    p[1], p[2] = 0x70, 0xF8
    p[32:64] = 0x7E
    p[33] = 0xFE
    return p


def run(key, slot, kc, ksc):
    return mk.golden(key, "bf16", np.asarray(slot, dtype=np.int64), kc, ksc)


def test_one_token_bytes_by_hand():
    # N 1, D 64, Bs 64, 2 blocks; slot 70: b 1, o 6 (tile 0, place 6)
    kc, ksc = caches(2, 1, 64, 64)
    key = hand_row().reshape(1, 1, 64)
    kc2, ksc2, pads = run(key, [70], kc, ksc)
    assert pads == 0
    want = kc.copy()
    want[1, 0, :, 6, :] = hand_payload().reshape(2, 32)
    assert np.array_equal(kc2, want)
    flat = ksc.reshape(-1).copy()
    flat[128 + 6 * 2:128 + 6 * 2 + 2] = [119, 122]   # block 1 starts at 128
    assert np.array_equal(ksc2.reshape(-1), flat)


def test_second_head_and_tile_offsets():
    # N 2, D 128, Bs 64: head stride 64*128/32 = 256, tile stride
    # (128/64)*32 = 64; slot 19: tile 1, place 3 -> head h, code e at
    # 256h + 64 + 6 + (e/2)*32 + e%2
    kc, ksc = caches(1, 2, 128, 64)
    row = hand_row(128)
    key = np.stack([row, row]).reshape(1, 2, 128)
    _, ksc2, _ = run(key, [19], kc, ksc)
    flat = ksc.reshape(-1).copy()
    for h in range(2):
        for e, code in enumerate((119, 122, 119, 119)):
            flat[256 * h + 64 + 6 + (e // 2) * 32 + e % 2] = code
    assert np.array_equal(ksc2.reshape(-1), flat)


def test_one_pad_row_lands_on_slot_0_scales_only():
    kc, ksc = caches(2, 1, 64, 64)
    key = np.stack([hand_row(), np.full(64, ONE, dtype=np.uint16)])
    kc2, ksc2, pads = run(key.reshape(2, 1, 64), [-1, 5], kc, ksc)
    assert pads == 1
    assert (kc2[0, 0, :, 0, :] == POISON).all()    # pad payload skipped
    assert list(ksc2.reshape(-1)[0:2]) == [119, 122]
    assert list(ksc2.reshape(-1)[10:12]) == [119, 119]   # slot 5


def test_several_pad_rows_last_one_stays_and_any_negative_is_a_pad():
    kc, ksc = caches(1, 1, 64, 64)
    key = np.stack([hand_row(), np.full(64, ONE, dtype=np.uint16),
                    np.full(64, FOURTEEN, dtype=np.uint16)])
    _, ksc2, pads = run(key.reshape(3, 1, 64), [-1, 3, -7], kc, ksc)
    assert pads == 2
    assert list(ksc2.reshape(-1)[0:2]) == [122, 122]  # token 2's (-7)
    _, ksc3, _ = run(key.reshape(3, 1, 64)[::-1].copy(), [-7, 3, -1], kc,
                     ksc)
    assert list(ksc3.reshape(-1)[0:2]) == [119, 122]  # now token 0's row


def test_zero_and_tiny_blocks_code_0_payload_signed_zero():
    kc, ksc = caches(1, 1, 64, 64)
    r = np.zeros(64, dtype=np.uint16)
    r[1] = 0x8000                  # -0
    r[32:64] = 0x0080              # 2^-126: E 1 <= 8, code 0
    r[40] = 0x8080                 # -2^-126
    kc2, ksc2, _ = run(r.reshape(1, 1, 64), [2], kc, ksc)
    p = kc2[0, 0, :, 2, :].reshape(-1)
    assert p[1] == 0x80 and p[40] == 0x80
    assert (np.delete(p, [1, 40]) == 0).all()
    assert list(ksc2.reshape(-1)[4:6]) == [0, 0]


@pytest.mark.parametrize("change, tensor", [
    ({"slot": [0, -1]}, "slot_mapping"),      # slot 0's scales race
    ({"slot": [3, 3]}, "slot_mapping"),
    ({"slot": [3, 128]}, "slot_mapping"),
    ({"bs": 48}, "key_cache"),
    ({"bs": 80}, "key_cache"),
    ({"d": 96}, "key"),
    ({"ktag": "int8"}, "key"),
    ({"kctag": "fp8_e5m2"}, "key_cache"),
    ({"ksctag": "fp8_e4m3fn"}, "key_scale_cache"),
    ({"stag": "int16"}, "slot_mapping"),
])
def test_refusals_name_the_tensor(change, tensor):
    bs, d = change.get("bs", 64), change.get("d", 64)
    key = np.full((2, 1, d), ONE, dtype=np.uint16)
    kc = np.full((2, 1, d // 32, bs, 32), POISON, dtype=np.uint8)
    ksc = np.full((2, 1, bs // 16, max(d // 64, 1), 16, 2), POISON,
                  dtype=np.uint8)
    slot = np.asarray(change.get("slot", [1, 2]), dtype=np.int64)
    with pytest.raises(mk.Refused) as e:
        mk.check_shapes(key, change.get("ktag", "bf16"), slot,
                        change.get("stag", "int64"), kc,
                        change.get("kctag", "fp8_e4m3fn"), ksc,
                        change.get("ksctag", "e8m0"))
        mk.golden(key, "bf16", slot, kc, ksc)
    assert e.value.tensor == tensor
