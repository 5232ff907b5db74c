"""kvgold scan over dumps of ScatterPaKvCache (through its writer module,
scan_writer.py beside this file; skipped where this build has
no such operator): an msprobe step of the functional torch_npu variant
(honest, a token one slot off, a missing output, torch_npu's PA_NZ default
applied when the call gave no cache_mode), the in-place variant's caches
read back from the attention after it, a CANN dump of the kernel, the
950's 4-D key form, and an ops-test-kit e2e row without cache_mode."""
import os
import subprocess

import numpy as np
import pytest

import scan_dumps as sd  # on sys.path by tests/ops/conftest.py

spkc = sd.op("spkc")


@pytest.fixture
def cli():
    path = os.environ.get("KVGOLD_CLI")
    if not path or not os.path.exists(path):
        pytest.fail("KVGOLD_CLI must name the built kvgold command")
    p = subprocess.run([path, "scan", "/nonexistent", "--op", spkc.OP],
                       capture_output=True, text=True)
    if "is no kvgold operator" in p.stderr:
        pytest.skip("this build has no %s" % spkc.OP)
    return path


def test_msprobe_functional(cli, tmp_path):
    step = sd.MsprobeStep(str(tmp_path / "dump"), "npy")
    spkc.msprobe(step, spkc.case("norm_fp16"))
    off = spkc.case("norm_fp16")
    sd.plant_slot_off(off)
    spkc.msprobe(step, off)
    spkc.msprobe(step, spkc.case("norm_fp16"), drop=1)
    # recorded without cache_mode: torch_npu's PA_NZ, as the vector says
    spkc.msprobe(step, spkc.case(
        "trap_torch_npu_default_pa_nz_into_nd_cache"), default_mode=True)
    step.save()
    rc, doc, err = sd.scan(cli, str(tmp_path / "dump"))
    assert rc == 1, err
    got = [(c["op"], c["verdict"]) for c in doc["calls"]]
    assert got == [(spkc.OP, "PASS"), (spkc.OP, "FAIL"),
                   (spkc.OP, "NOT_JUDGED"), (spkc.OP, "PASS")]
    assert doc["calls"][1]["reason"].startswith("key_cache:")
    assert doc["calls"][2]["reason"].startswith(
        "value_cache: missing: the dump has no post-call value_cache "
        "(output[1])")


def test_cann_kernel(cli, tmp_path):
    root = str(tmp_path / "dump")
    spkc.cann(spkc.case("norm_fp16"), root, "spkc_1", 1)
    spkc.cann(spkc.case("nz_fp16_4d"), root, "spkc_2", 2)
    rc, doc, err = sd.scan(cli, root)
    # both calls' caches are written right; their untouched bytes are NOT
    # JUDGED (CANN records the inputs after the kernel ran), so neither
    # call is PASS (sd.cann_honest)
    assert rc == 1, (err, doc)
    for c, name in zip(doc["calls"], ["norm_fp16", "nz_fp16_4d"]):
        sd.cann_honest(c, spkc.case(name), spkc.IN)
    assert [c["verdict"] for c in doc["calls"]] == ["NOT_JUDGED"] * 2


def test_msprobe_950_batched_key(cli, tmp_path):
    """torch_npu's call with a 4-D key and the compress keywords, recorded
    without scatter_mode (torch_npu has none): scan picks Rope when
    compress_seq_offsets is given, else Alibi, as the 950 does; a token
    one slot off fails."""
    step = sd.MsprobeStep(str(tmp_path / "dump"), "npy")
    spkc.msprobe(step, spkc.case("alibi_4d_key_fp16"))
    spkc.msprobe(step, spkc.case("rope_4d_key_bf16_int64_index"))
    off = spkc.case("alibi_4d_key_fp16")
    sd.plant_slot_off(off)
    spkc.msprobe(step, off)
    step.save()
    rc, doc, err = sd.scan(cli, str(tmp_path / "dump"))
    assert rc == 1, err
    got = [c["verdict"] for c in doc["calls"]]
    assert got == ["PASS", "PASS", "FAIL"], doc["calls"]


def test_ttk_csv_torch_npu_default_cache_mode(cli, tmp_path):
    # an e2e row without cache_mode calls npu_scatter_pa_kv_cache with
    # torch_npu's default, PA_NZ (the operator's own is Norm)
    root = str(tmp_path / "manual")
    rows = [sd.write_ttk_e2e(spkc, spkc.case("nz_fp16_4d"), root, "nz_0"),
            sd.write_ttk_e2e(spkc, spkc.case("norm_fp16"), root, "norm_1")]
    assert rows[0]["attributes"] == "{'cache_mode': 'PA_NZ'}"
    for r in rows:
        r["attributes"] = "{}"
    csv = sd.write_ttk_csv(str(tmp_path / "cases.csv"), rows)
    rc, doc, err = sd.scan(cli, root, "--csv", csv)
    got = {c["id"]: c["verdict"] for c in doc["calls"]}
    assert got["nz_0"] == "PASS"
    assert got["norm_1"] != "PASS"
    # said, it is the operator's call that was made
    rows[1]["attributes"] = "{'cache_mode': 'Norm'}"
    sd.write_ttk_csv(csv, rows)
    rc, doc, err = sd.scan(cli, root, "--csv", csv)
    assert [c["verdict"] for c in doc["calls"]] == ["PASS", "PASS"]


def test_msprobe_in_place_read_back(cli, tmp_path):
    """npu_scatter_pa_kv_cache returns None (msprobe records it when
    registered: register_custom_api, docs/scan.md "Read-back"): its caches
    are read back from the attention that takes them next, ND and PA_NZ,
    judged against the generator's expected caches; a token one slot off
    in the attention's copy FAILs."""
    step = sd.MsprobeStep(str(tmp_path / "dump"), "npy")
    cases = [spkc.case("norm_fp16"), spkc.case("nz_bf16_5d"),
             spkc.case("norm_fp16")]
    sd.plant_slot_off(cases[2])
    q = ("fp16", np.ones((1, 8), dtype=np.float16))
    for c in cases:
        step.call("NPU", "npu_scatter_pa_kv_cache",
                  [c.inputs[n] for n in spkc.TORCH_IN],
                  {"cache_mode": c.attrs["cache_mode"]}, [])
        step.call("NPU", "npu_fused_infer_attention_score",
                  [q, c.post["key_cache"], c.post["value_cache"]], {}, [q])
    step.save()
    rc, doc, err = sd.scan(cli, str(tmp_path / "dump"))
    assert rc == 1, err
    got = [(c["op"], c["verdict"]) for c in doc["calls"]]
    assert got == [(spkc.OP, "PASS"), (spkc.OP, "PASS"),
                   (spkc.OP, "FAIL")], doc["calls"]
    for i, c in enumerate(doc["calls"]):
        assert c["read_back"] == (
            "key_cache read back from step0/rank0:NPU.npu_fused_infer_"
            "attention_score.%d.forward input_args[1]; value_cache read "
            "back from step0/rank0:NPU.npu_fused_infer_attention_score.%d."
            "forward input_args[2]" % (i, i)), c["read_back"]
    assert doc["calls"][2]["reason"].startswith("key_cache:")
