"""kvgold scan holds no whole cache in memory: the dumped tensors are mapped
where they lie in their files and the golden updates a copy-on-write
mapping of the pre-call cache, so a call whose caches are far bigger than
--max-memory is judged under it (the old reader needed every cache three
times: pre-call, post-call and the golden's copy, each reserved in the
memory ledger), while the pages the golden writes are still counted and
refused beyond the limit.

The dumps are written here, sparse: a ReshapeAndCache call on fp16 caches
of 64 MiB each ([1024 blocks, 128 slots, 4 heads, 64]), whose non-zero
blocks (poisoned with random values, written, or planted faults) are the
only bytes on disk. The post-call caches are the pre-call ones with each
token's key / value row written at its slot, from first principles.
Run as a script it writes such a dump of any size, for measuring:
    test_rac_scan_memory.py atb|cann DIR CACHE_MIB
"""
import os
import sys

import numpy as np
import pytest

# run as a script too: scan_dumps is not then on sys.path by
# tests/ops/conftest.py
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python", "scan"))
import scan_dumps as sd  # noqa: E402

MIB = 1 << 20
BS, H, D = 128, 4, 64
ROW = H * D * 2            # bytes of one slot (fp16)
BLOCK = BS * ROW           # 64 KiB


class Sparse:
    """An fp16 cache [blocks, BS, H, D] held as its non-zero blocks; the
    rest is a hole of the file it goes to (zeros)."""

    def __init__(self, n_blocks, blocks):
        self.shape = (n_blocks, BS, H, D)
        self.nbytes = n_blocks * BLOCK
        self.blocks = blocks  # {index: float16 array [BS, H, D]}

    def copy(self):
        return Sparse(self.shape[0],
                      {b: a.copy() for b, a in self.blocks.items()})

    def row(self, slot):
        b = slot // BS
        if b not in self.blocks:
            self.blocks[b] = np.zeros((BS, H, D), np.float16)
        return self.blocks[b], slot % BS

    def write(self, f, at):
        for b, a in sorted(self.blocks.items()):
            f.seek(at + b * BLOCK)
            f.write(a.tobytes())


def make_call(n_blocks, tokens, seed=7):
    """key, value [tokens, H, D], slot_mapping (one padding token, -1), the
    pre-call caches (poisoned blocks: the first, the last and those the
    tokens write) and the post-call ones."""
    rng = np.random.default_rng(seed)
    key = rng.standard_normal((tokens, H, D)).astype(np.float16)
    value = rng.standard_normal((tokens, H, D)).astype(np.float16)
    # distinct slots, each in its own block (own page), spread over the
    # cache; the last token is padding
    step = max(1, (n_blocks - 2) // tokens)
    slots = np.array([(1 + t * step) * BS + (t * 37) % BS
                      for t in range(tokens)], np.int32)
    slots[-1] = -1
    pre = []
    for _ in range(2):
        touched = {0, n_blocks - 1} | {int(s) // BS for s in slots if s >= 0}
        pre.append(Sparse(n_blocks, {
            b: rng.standard_normal((BS, H, D)).astype(np.float16)
            for b in touched}))
    post = [c.copy() for c in pre]
    for t, s in enumerate(slots):
        if s < 0:
            continue
        for cache, src in ((post[0], key), (post[1], value)):
            blk, r = cache.row(int(s))
            blk[r] = src[t]
    return {"key": key, "value": value, "slot_mapping": slots,
            "pre": pre, "post": post}


def plant_far(call, which=0):
    """One element of an untouched block, far from every written one,
    changed in the post-call cache: the untouched part must still be
    judged whole. Returns the block."""
    cache = call["post"][which]
    b = cache.shape[0] // 2 + 1
    while b in cache.blocks:
        b += 1
    blk, _ = cache.row(b * BS)
    blk[5, 1, 3] = np.float16(0.5)
    return b


ATB_HEAD = ("$Version=1.0\n$Object.Count=1\n$Object.Length=%d\n"
            "format=2\ndtype=%d\ndims=%s\n$End=1\n")


def atb_file(path, tag, arr):
    """An ATB tensor file (scan_dumps.atb_bin's header), sparse for a
    Sparse cache."""
    head = (ATB_HEAD % (arr.nbytes, sd.ACL[tag],
                        ",".join(str(int(d)) for d in arr.shape))).encode()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(head)
        if isinstance(arr, Sparse):
            arr.write(f, len(head))
            f.truncate(len(head) + arr.nbytes)
        else:
            f.write(np.ascontiguousarray(arr).tobytes())


def write_atb(root, name, call, task=1):
    d = os.path.join(root, name)
    ins = [("fp16", call["key"]), ("fp16", call["value"]),
           ("fp16", call["pre"][0]), ("fp16", call["pre"][1]),
           ("int32", call["slot_mapping"])]
    for i, (tag, a) in enumerate(ins):
        atb_file(os.path.join(d, "before", "intensor%d.bin" % i), tag, a)
    for i, a in enumerate(call["post"]):
        atb_file(os.path.join(d, "after", "outtensor%d.bin" % i), "fp16", a)
    return d


def write_cann(root, name, call, task=1):
    """One CANN dump file (scan_dumps.write_cann's layout: length, DumpData
    header, the inputs' then the outputs' payloads), caches sparse."""
    ins = [("fp16", call["key"]), ("fp16", call["value"]),
           ("fp16", call["pre"][0]), ("fp16", call["pre"][1]),
           ("int32", call["slot_mapping"])]
    outs = [("fp16", c) for c in call["post"]]
    msg = sd.pb_bytes(1, b"2.0") + sd.pb_int(2, 1700000000 + task)
    for tag, a in outs:
        msg += sd.pb_bytes(3, sd.pb_tensor(False, tag, a))
    for i, (tag, a) in enumerate(ins):
        msg += sd.pb_bytes(4, sd.pb_tensor(True, tag, a, packed=i % 2 == 0))
    msg += sd.pb_bytes(6, name.encode())
    os.makedirs(root, exist_ok=True)
    path = os.path.join(root, "ReshapeAndCache.%s.%d.2.%d" % (
        name, task, 1700000000000 + task))
    with open(path, "wb") as f:
        f.write(len(msg).to_bytes(8, "little") + msg)
        at = f.tell()
        for _, a in ins + outs:
            if isinstance(a, Sparse):
                a.write(f, at)
            else:
                f.seek(at)
                f.write(np.ascontiguousarray(a).tobytes())
            at += a.nbytes
        f.truncate(at)
    return path


N_BLOCKS = 1024            # 64 MiB per cache, 256 MiB of caches a call
CACHE = N_BLOCKS * BLOCK


def scan(cli, path, *args):
    return sd.scan(cli, path, "--jobs", "1", *args)


@pytest.fixture(params=["atb", "cann"])
def dump(request, tmp_path):
    """Two calls: honest, and one element of an untouched block of the
    post-call key_cache changed."""
    root = str(tmp_path / request.param)
    write = write_atb if request.param == "atb" else write_cann
    write(root, "1_ReshapeAndCacheOperation", make_call(N_BLOCKS, 16))
    bad = make_call(N_BLOCKS, 16, seed=8)
    far = plant_far(bad)
    write(root, "2_ReshapeAndCacheOperation", bad, task=2)
    return root, far


def honest(root, c):
    """The honest call judged whole: PASS in ATB; in CANN its written
    rows pass but its caches' untouched bytes are NOT JUDGED (CANN records
    the inputs after the kernel ran, sd.cann_honest) - for that reason,
    not for the memory limit."""
    if os.path.basename(root) == "atb":
        assert c["verdict"] == "PASS", c
    else:
        assert c["verdict"] == "NOT_JUDGED", c
        assert c["reason"].startswith("untouched bytes of key_cache: " +
                                      sd.CANN_AFTER), c
        res = {r["name"]: r["verdict"] for r in c["report"]["results"]}
        assert res["key_cache"] == res["value_cache"] == "PASS", res


def test_caches_beyond_the_limit_are_judged(cli, dump):
    root, far = dump
    limit = 16 * MIB
    # the old reader reserved each cache it read: one alone is 4x the
    # limit, a call held six
    assert CACHE >= 4 * limit
    rc, doc, err = scan(cli, root, "--max-memory", "16M")
    assert doc is not None, err
    honest(root, doc["calls"][0])
    assert doc["calls"][1]["verdict"] == "FAIL", doc
    assert rc == 1
    # the fault is where it was planted: an untouched element changed
    index = ((far * BS + 5) * H + 1) * D + 3
    assert doc["calls"][1]["reason"] == (
        "key_cache: 1 untouched element changed (first at index %d)"
        % index), doc["calls"][1]


def test_workers_share_the_limit(cli, dump):
    root, _ = dump
    rc, doc, err = sd.scan(cli, root, "--jobs", "2", "--max-memory", "16M")
    assert doc is not None, err
    honest(root, doc["calls"][0])
    assert doc["calls"][1]["verdict"] == "FAIL", doc


def test_the_pages_the_golden_writes_are_counted(cli, tmp_path):
    """15 tokens, each in its own page of each cache: 30 copied pages
    (120 KiB) that the ledger reserves before the golden runs."""
    root = str(tmp_path / "atb")
    write_atb(root, "1_ReshapeAndCacheOperation", make_call(N_BLOCKS, 16))
    rc, doc, err = scan(cli, root, "--max-memory", "96K")
    assert rc == 1, err
    call = doc["calls"][0]
    assert call["verdict"] == "NOT_JUDGED", call
    assert "copy-on-write of mapped" in call["reason"], call
    assert "--max-memory" in call["reason"], call
    rc, doc, err = scan(cli, root, "--max-memory", "1M")
    assert rc == 0, (err, doc)


def test_a_call_read_not_mapped_is_counted(cli, tmp_path):
    """Below the mapping threshold (1 MiB) a cache is read and reserved:
    512 KiB caches, each held pre-call, post-call and as the golden's
    copy (3 MiB)."""
    root = str(tmp_path / "atb")
    write_atb(root, "1_ReshapeAndCacheOperation", make_call(8, 4))
    rc, doc, err = scan(cli, root, "--max-memory", "4M")
    assert rc == 0, (err, doc)
    rc, doc, err = scan(cli, root, "--max-memory", "1M")
    assert rc == 1, err
    assert doc["calls"][0]["verdict"] == "NOT_JUDGED"
    assert "--max-memory" in doc["calls"][0]["reason"]


if __name__ == "__main__":
    kind, out, mib = sys.argv[1], sys.argv[2], int(sys.argv[3])
    n = mib * MIB // BLOCK
    (write_atb if kind == "atb" else write_cann)(
        out, "1_ReshapeAndCacheOperation", make_call(n, 64))
