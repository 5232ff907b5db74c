"""kvgold scan over an msprobe dump of torch_npu._npu_reshape_and_cache
(written by its writer, scan_writer.py beside this file; the format's
generic tests are tests/python/scan/test_scan_msprobe.py): the call
returns None, so its record holds no post-call cache; alone it is NOT
JUDGED naming the first one, never passed, and with the attention that
reads the caches after it, the caches are read back from that record's
inputs and judged (docs/scan.md, "Read-back")."""
import numpy as np

import scan_dumps as sd  # on sys.path by tests/ops/conftest.py

rac = sd.op("rac")


def test_msprobe_no_outputs_not_judged(cli, tmp_path):
    step = sd.MsprobeStep(str(tmp_path / "dump"), "npy")
    rac.msprobe(step, rac.case("nd_fp16"))
    step.save()
    rc, doc, err = sd.scan(cli, str(tmp_path / "dump"), "--standard",
                           "single")
    assert rc == 1, err
    c = doc["calls"]
    assert [(x["id"].split(":")[-1], x["verdict"]) for x in c] == [
        ("NPU.%s.0.forward" % rac.TORCH, "NOT_JUDGED")]
    assert c[0]["reason"].startswith(
        "key_cache: missing: the dump has no post-call key_cache "
        "(output[0])"), c[0]["reason"]


# ---- read-back (docs/scan.md, "Read-back"): the post-call caches from the
# next call that reads them. msprobe saves every input as a clone before
# its call, so the attention after _npu_reshape_and_cache holds the caches
# as the write left them (checked on msprobe's own writer: docs/scan.md).
# The reader's copies are the NumPy generator's expected caches; faults are
# planted in them here.

READER = "npu_fused_infer_attention_score"


def _query():
    return ("fp16", np.linspace(-1, 1, 4 * 64, dtype=np.float16)
            .reshape(1, 4, 64))


def _reader(step, key_cache, value_cache):
    """The attention as msprobe records it: query, key, value (the caches
    as it reads them), then num_heads by keyword."""
    return step.call("NPU", READER, [_query(), key_cache, value_cache],
                     {"num_heads": 4}, [_query()])


def _written(call):
    """The elements the call writes in each cache, from first principles:
    a row of heads x head_dim per token whose slot is not -1."""
    slots = call.inputs["slot_mapping"][1].reshape(-1)
    k = call.inputs["key"][1]
    return int((slots >= 0).sum()) * k.shape[1] * k.shape[2]


def _scan_rb(cli, tmp_path, write):
    step = sd.MsprobeStep(str(tmp_path / "dump"), "npy")
    write(step)
    step.save()
    rc, doc, err = sd.scan(cli, str(tmp_path / "dump"), "--standard",
                           "single")
    assert doc is not None, err
    return rc, doc


def _result(call, tensor):
    return next(r for r in call["report"]["results"] if r["name"] == tensor)


def test_read_back_from_the_attention_passes(cli, tmp_path):
    """The honest write, read back from the attention's key and value, in
    that order (key_cache <- input_args[1], value_cache <- input_args[2]:
    the other way round both would fail, the caches differ)."""
    call = rac.case("nd_fp16")

    def write(step):
        rac.msprobe(step, call)
        _reader(step, call.post["key_cache"], call.post["value_cache"])
    rc, doc = _scan_rb(cli, tmp_path, write)
    assert rc == 0 and doc["verdict"] == "PASS", doc["calls"]
    c = doc["calls"][0]
    reader = "step0/rank0:NPU.%s.0.forward" % READER
    assert c["read_back"] == (
        "key_cache read back from %s input_args[1]; value_cache read back "
        "from %s input_args[2]" % (reader, reader)), c["read_back"]
    k = _result(c, "key_cache")
    assert k["written"] == _written(call) and k["untouched_changed"] == 0
    assert doc["summary"]["other_calls"] == 1


def test_read_back_fault_in_the_readers_copy_fails(cli, tmp_path):
    """A written element of key_cache and an untouched row of value_cache
    changed in the attention's copy: FAIL, each in its own cache, at its
    own element; the report names the record read back from."""
    call = rac.case("nd_fp16")
    kflat = sd.plant_ulps(call, "key_cache", 1)
    slots = set(int(s) for s in call.inputs["slot_mapping"][1])
    tag, v = call.post["value_cache"]
    rows = v.reshape(-1, 4 * 64)
    free = next(s for s in range(rows.shape[0]) if s not in slots)
    rows[free, 7] = np.float16(1234.0)

    def write(step):
        rac.msprobe(step, call)
        _reader(step, call.post["key_cache"], call.post["value_cache"])
    rc, doc = _scan_rb(cli, tmp_path, write)
    c = doc["calls"][0]
    assert rc == 1 and c["verdict"] == "FAIL", c
    assert READER in c["read_back"]
    k, v = _result(c, "key_cache"), _result(c, "value_cache")
    assert k["verdict"] == "FAIL" and k["bits_differ"] == 1
    assert k["untouched_changed"] == 0
    assert [e["index"] for e in k["worst"]] == [kflat], k["worst"]
    assert v["verdict"] == "FAIL" and v["bits_differ"] == 0
    assert v["untouched_changed"] == 1
    assert [e["index"] for e in v["untouched_changed_first"]] == [
        free * 4 * 64 + 7], v["untouched_changed_first"]


def test_read_back_without_a_reader_says_what_to_dump(cli, tmp_path):
    call = rac.case("nd_fp16")
    rc, doc = _scan_rb(cli, tmp_path, lambda step: rac.msprobe(step, call))
    c = doc["calls"][0]
    assert rc == 1 and c["verdict"] == "NOT_JUDGED" and c["read_back"] is None
    for w in ("no call reads it after this one in its dump.json",
              "add the call that reads it", "npu_fused_infer_attention_score",
              "to msprobe's dump list"):
        assert w in c["reason"], c["reason"]


def test_read_back_stops_at_the_next_call_of_the_operator(cli, tmp_path):
    """Two writes (two layers, caches of one shape) and one attention after
    the second: it reads the second's caches, so the first is NOT JUDGED
    and the second PASS."""
    first, second = rac.case("nd_fp16"), rac.case("nd_fp16")

    def write(step):
        rac.msprobe(step, first)
        rac.msprobe(step, second)
        _reader(step, second.post["key_cache"], second.post["value_cache"])
    rc, doc = _scan_rb(cli, tmp_path, write)
    v = [(c["id"].split(":")[-1], c["verdict"]) for c in doc["calls"]]
    assert v == [("NPU.%s.0.forward" % rac.TORCH, "NOT_JUDGED"),
                 ("NPU.%s.1.forward" % rac.TORCH, "PASS")], v
    assert ("no call reads it after this one before the next "
            "reshape_and_cache call") in doc["calls"][0]["reason"]
    assert "%s.1.forward" % rac.TORCH not in (doc["calls"][1]["read_back"]
                                               or "")


def test_read_back_of_another_layers_cache_is_not_judged(cli, tmp_path):
    """An attention whose key and value hold another cache (every element
    the call does not write differs from the pre-call cache): not this
    call's cache, NOT JUDGED by the guard, never FAIL."""
    call = rac.case("nd_fp16")
    other = {}
    for n in ("key_cache", "value_cache"):
        tag, post = call.post[n]
        bits = post.view(np.uint16) ^ np.uint16(0x0001)
        other[n] = (tag, bits.view(np.float16))

    def write(step):
        rac.msprobe(step, call)
        _reader(step, other["key_cache"], other["value_cache"])
    rc, doc = _scan_rb(cli, tmp_path, write)
    c = doc["calls"][0]
    assert rc == 1 and c["verdict"] == "NOT_JUDGED", c
    total = call.inputs["key_cache"][1].size
    want = ("differs from the pre-call key_cache in %d elements the call "
            "does not write (it writes %d): not this call's cache"
            % (total - _written(call), _written(call)))
    assert want in c["reason"], c["reason"]
    assert "NPU.%s.0.forward input_args[1]" % READER in c["reason"]
    assert doc["summary"]["failed"] == 0


def test_read_back_skips_a_writer_of_another_operator(cli, tmp_path):
    """A record of another in-place operator (the spkc scan writer's
    torch_npu form) between the write and the attention takes caches of
    the same shape - here the pre-call ones, as another layer's
    zero-initialised caches would be: a writer is never a reader, so the
    attention's copies are the ones judged (PASS; the writer's pre-call
    caches would fail every written row)."""
    call = rac.case("nd_fp16")
    spkc = sd.op("spkc")

    def write(step):
        rac.msprobe(step, call)
        # the same five tensors by the same names, cache_mode Norm
        spkc.msprobe(step, call)
        _reader(step, call.post["key_cache"], call.post["value_cache"])
    rc, doc = _scan_rb(cli, tmp_path, write)
    c = doc["calls"][0]
    assert c["verdict"] == "PASS", c
    assert doc["calls"][1]["op"] == spkc.OP
    assert spkc.TORCH not in c["read_back"] and READER in c["read_back"]


def test_read_back_stops_at_a_record_it_cannot_parse(cli, tmp_path):
    """A record between the write and the attention that cannot be parsed
    may be the one that reads the caches: the search ends there, NOT
    JUDGED naming it, never a link to the attention after it."""
    call = rac.case("nd_fp16")

    def write(step):
        rac.msprobe(step, call)
        step.call("NPU", "npu_unknown", [], {}, [])
        _reader(step, call.post["key_cache"], call.post["value_cache"])
    step = sd.MsprobeStep(str(tmp_path / "dump"), "npy")
    write(step)
    step.save()
    path = tmp_path / "dump" / "step0" / "rank0" / "dump.json"
    text = path.read_text()
    # the one record without arguments gets a bare word: its brackets
    # still balance, so only this record is malformed
    assert text.count('"input_args": []') == 1
    bad = text.replace('"input_args": []', '"input_args": [tru]')
    path.write_text(bad)
    rc, doc, err = sd.scan(cli, str(tmp_path / "dump"))
    c = doc["calls"][0]
    assert rc == 1 and c["verdict"] == "NOT_JUDGED", err
    assert c["read_back"] is None
    assert ("step0/rank0:NPU.npu_unknown.0.forward, which may read it, "
            "cannot be read") in c["reason"], c["reason"]
