"""kvgold.compare and kvgold.testing.assert_matches_golden: verdicts from
the C library's CANN criteria, worst elements in cache coordinates,
untouched cache slots, INCOMPLETE when an output is not judged."""
import json
import subprocess

import numpy as np
import pytest
import torch

import kvgold
from conftest import cli_env, example
from kvgold.testing import assert_matches_golden

MLA = example("deepseek_mla_decode")  # k_cache bf16 PA_NZ, ckv_cache int8


def golden_and_npu():
    c = kvgold.load_case(MLA)
    inputs = {n: np.asarray(t).copy() for n, t in c.inputs.items()}
    golden = kvgold.run(c.op, inputs, c.attrs, c.options)
    npu = {n: v.copy() for n, v in golden.items()}
    return c, inputs, golden, npu


def written_slot(c, golden):
    """A flat k_cache index the golden wrote (it differs from the input)."""
    a = np.asarray(c.inputs["k_cache"]).reshape(-1)
    b = golden["k_cache"].reshape(-1)
    return int(np.flatnonzero(a != b)[0])


def test_identical_outputs_pass():
    c, inputs, golden, npu = golden_and_npu()
    r = kvgold.compare(golden, npu)
    assert r.passed and r.verdict == "PASS" and bool(r)
    assert set(r.tensors) == {"k_cache", "ckv_cache"}
    k = r.tensors["k_cache"]
    assert k.criterion == "float_re" and k.passed
    assert k.layout["kind"] == "nz"
    tokens = int((np.asarray(c.inputs["index"]) >= 0).sum())  # < 0 skips
    assert 0 < tokens < 8
    assert k.metrics["written"] == tokens * 64  # Dk 64 per token
    assert r.tensors["ckv_cache"].criterion == "int_abs1"
    assert "PASS" in r.report()
    # no packed rows here: the operator's kvg_op_row_layout says "none"
    assert k.rows is None and r.tensors["ckv_cache"].rows is None


def test_a_changed_written_element_is_reported_with_coordinates():
    c, inputs, golden, npu = golden_and_npu()
    i = written_slot(c, golden)
    k = npu["k_cache"].reshape(-1)
    k[i] = k[i] ^ 0x0400     # a large change in the exponent
    r = kvgold.compare(golden, npu, standard="single")  # single's verdict
    assert not r.passed and r.verdict == "FAIL"
    t = r.tensors["k_cache"]
    assert t.verdict == "FAIL" and t.metrics["bits_differ"] == 1
    worst = t.worst[0]
    assert worst["index"] == i
    assert set(worst["coord"]) == {"block", "slot", "head", "channel"}
    assert "block=" in r.report()
    doc = json.loads(r.to_json())
    assert doc["verdict"] == "FAIL" and doc["op"] == c.op


def test_an_untouched_slot_that_changes_fails():
    c, inputs, golden, npu = golden_and_npu()
    a = np.asarray(c.inputs["ckv_cache"]).reshape(-1)
    untouched = int(np.flatnonzero(a == golden["ckv_cache"].reshape(-1))[-1])
    npu["ckv_cache"].reshape(-1)[untouched] ^= 1   # |delta| = 1 ...
    r = kvgold.compare(golden, npu)
    t = r.tensors["ckv_cache"]
    # ... passes int_abs1 where written, but this slot is not written
    assert t.verdict == "FAIL" and t.metrics["untouched_changed"] == 1
    assert t.untouched_changed_first[0]["index"] == untouched


def test_missing_output_is_incomplete_not_pass():
    c, inputs, golden, npu = golden_and_npu()
    r = kvgold.compare(golden, {"k_cache": npu["k_cache"]})
    assert r.verdict == "INCOMPLETE" and not r.passed
    assert r.skipped == ["ckv_cache"] and "skipped: ckv_cache" in r.report()


def test_unknown_npu_name_is_an_error():
    c, inputs, golden, npu = golden_and_npu()
    with pytest.raises(kvgold.Error) as e:
        kvgold.compare(golden, dict(npu, k_rope=npu["k_cache"]))
    assert e.value.tensor == "k_rope"


def test_torch_npu_outputs_are_judged_too():
    c, inputs, golden, npu = golden_and_npu()
    tnpu = {n: kvgold.to_torch(v, c.dtypes[n]) for n, v in npu.items()}
    assert tnpu["k_cache"].dtype == torch.bfloat16
    assert kvgold.compare(golden, tnpu).passed


def test_assert_matches_golden_raises_with_the_report(tmp_path, cli):
    c, inputs, golden, npu = golden_and_npu()
    assert_matches_golden(c.op, inputs, npu, c.attrs, c.options)
    i = written_slot(c, golden)
    npu["k_cache"].reshape(-1)[i] ^= 0x0400
    with pytest.raises(AssertionError) as e:
        assert_matches_golden(c.op, inputs, npu, c.attrs, c.options,
                              save_to=str(tmp_path / "case"),
                              standard="single")  # single's verdict
    text = str(e.value)
    assert "FAIL" in text and "k_cache" in text and "kvgold compare" in text
    assert "--standard single" in text
    # the saved case reproduces the verdict in the CLI
    p = subprocess.run([cli, "compare", str(tmp_path / "case"),
                        str(tmp_path / "case" / "npu"), "--standard",
                        "single"], capture_output=True, env=cli_env(),
                       text=True)
    assert p.returncode == 1, p.stdout + p.stderr
    assert "FAIL" in p.stdout


def test_golden_run_in_place_is_judged_without_a_mask_and_says_so():
    c, inputs, golden, npu = golden_and_npu()
    g = kvgold.run(c.op, inputs, c.attrs, c.options, inplace=True)
    r = kvgold.compare(g, npu)
    assert r.passed and any("in place" in n for n in r.notes)
    assert "note: the golden ran in place" in r.report()
    # every element was judged as written: none counted untouched
    assert r.tensors["k_cache"].metrics["untouched"] == 0


def test_plain_dict_golden_with_the_call_given_separately():
    c, inputs, golden, npu = golden_and_npu()
    a = np.asarray(c.inputs["ckv_cache"]).reshape(-1)
    untouched = int(np.flatnonzero(a == golden["ckv_cache"].reshape(-1))[-1])
    npu["ckv_cache"].reshape(-1)[untouched] ^= 1
    with_call = kvgold.compare(dict(golden), npu, op=c.op, inputs=inputs,
                               attrs=c.attrs, options=c.options)
    assert with_call.tensors["ckv_cache"].metrics["untouched_changed"] == 1
    # without the call: no roles, layouts or written slots; every element
    # is judged against the golden, and |delta| = 1 passes int8's int_abs1
    bare = kvgold.compare(dict(golden), npu)
    t = bare.tensors["ckv_cache"]
    assert t.metrics["untouched"] == 0 and t.layout is None
    assert t.criterion == "int_abs1" and t.passed


def test_criteria_and_thresholds_override_the_automatic_choice():
    c, inputs, golden, npu = golden_and_npu()
    i = written_slot(c, golden)
    npu["k_cache"].reshape(-1)[i] ^= 1          # one bf16 ulp
    assert kvgold.compare(golden, npu).passed   # float_re tolerates it
    strict = kvgold.compare(golden, npu, criteria={"k_cache": "bitwise"})
    assert strict.tensors["k_cache"].criterion == "bitwise"
    assert not strict.passed
    tight = kvgold.compare(golden, npu, thresholds={"k_cache": 1e-12},
                           standard="single")  # single's Th
    assert tight.tensors["k_cache"].metrics["limits"]["threshold"] == 1e-12
    assert not tight.passed
    with pytest.raises(kvgold.Error) as e:
        kvgold.compare(golden, npu, criteria={"k_cache": "exact"})
    assert e.value.tensor == "k_cache"


def test_the_default_is_ops_test_kits_rule_as_in_the_cli(cli, tmp_path):
    # kvgold.compare and `kvgold compare` judge by the same default:
    # mixed_ttk@3675093, named in the report, with ops-test-kit's own
    # verdict per tensor
    c, inputs, golden, npu = golden_and_npu()
    r = kvgold.compare(golden, npu)
    doc = json.loads(r.to_json())
    assert doc["standard"] == "mixed_ttk@3675093"
    for t in doc["results"]:
        assert t["standard_name"] == "mixed_ttk"
        assert t["ops_test_kit"]["verdict"] == "PASS"
    assert "standards and thresholds: mixed_ttk@3675093" in r.report()
    p = subprocess.run([cli, "compare", MLA, MLA + "/npu", "--json"],
                       capture_output=True, env=cli_env(), text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    assert json.loads(p.stdout)["standard"] == doc["standard"]
    # the versioned name is accepted, another commit's is not
    assert kvgold.compare(golden, npu, standard="mixed_ttk@3675093").passed
    with pytest.raises(kvgold.Error):
        kvgold.compare(golden, npu, standard="mixed_ttk@03a2bfd")


def test_standard_level_and_third_party_reach_the_library():
    # the standard each tensor was judged by is the one asked for
    c, inputs, golden, npu = golden_and_npu()
    r = kvgold.compare(golden, npu, standard="mixed")
    assert all(json.loads(r.to_json())["results"][i]["standard_name"] ==
               "mixed" for i in range(2))
    # commercial without a third party: the float cache is not judged, so
    # the verdict cannot be PASS (an unjudged tensor never passes)
    r = kvgold.compare(golden, npu, standard="commercial", level="L0")
    assert not r.passed
    # with the golden itself as the third party every ratio is 1: PASS
    r = kvgold.compare(golden, npu, standard="commercial", level="L0",
                       third_party={"k_cache": golden["k_cache"]})
    k = json.loads(r.to_json())["results"][0]
    assert k["name"] == "k_cache" and k["level"] == "L0"
    assert k["verdict"] == "PASS", r.report()
    with pytest.raises(kvgold.Error) as e:
        kvgold.compare(golden, npu, standard="strict")
    assert e.value.tensor == "standard" and "'strict'" in e.value.message


def test_e8m0_scales_and_fp4_codes_are_judged_apart_from_the_payload():
    """Issue 35: a scale tensor gets its own bitwise verdict (a wrong scale
    fails though its payload passes), its distance in binades; packed fp4
    is judged per 4-bit code, index = 2 * byte + nibble. Values from the
    formats' definitions: e8m0 c = 2^(c-127); fp4 e2m1 0xA = -1, 0xB = -1.5.
    """
    y = np.array([0x38, 0xC0, 0x30, 0x44], np.uint8)  # e4m3fn 1 -2 0.5 3
    s = np.array([120, 121, 127, 0xFF], np.uint8)      # 2^-7 2^-6 1 NaN
    q = np.array([0x52, 0xA7], np.uint8)                # fp4 1 3 | 6 -1
    golden = {"y": y, "scale": s, "q": q}
    npu = {n: v.copy() for n, v in golden.items()}
    npu["scale"][2] = 126  # 1 -> 2^-1: one binade
    npu["q"][1] = 0xB7     # code 3 (byte 1, high nibble): -1 -> -1.5
    dt = {"y": "fp8_e4m3fn", "scale": "e8m0", "q": "fp4_e2m1"}
    r = kvgold.compare(golden, npu, dtypes=dt)
    assert r.verdict == "FAIL" and r.tensors["y"].passed
    sc = r.tensors["scale"]
    assert (sc.dtype, sc.criterion, sc.verdict) == ("e8m0", "bitwise", "FAIL")
    assert sc.metrics["mere"] is None and sc.metrics["cosine"] is None
    assert sc.metrics["value_statistics"].startswith("not applicable")
    w = sc.worst[0]
    assert (w["index"], w["binades"], w["actual_text"], w["expected_text"]) \
        == (2, 1, "2^-1", "2^0")
    assert "2^-1 (0x7e) vs golden 2^0 (0x7f): 1 binade" in r.report()
    fq = r.tensors["q"]
    assert fq.criterion == "bitwise"  # ops-test-kit's "bin" (the default)
    assert fq.metrics["elements"] == 4 and fq.metrics["bits_differ"] == 1
    w = fq.worst[0]
    assert (w["index"], w["byte"], w["nibble"]) == (3, 1, 1)
    assert (w["expected"], w["actual"]) == (-1.0, -1.5)
    assert (w["expected_bits"], w["actual_bits"]) == ("0xa", "0xb")
    # another standard: fp4 by code distance passes one step; the scale
    # still fails, alone
    r = kvgold.compare(golden, npu, dtypes=dt, standard="single")
    assert r.tensors["q"].criterion == "code_dist" and r.tensors["q"].passed
    assert [n for n, t in r.tensors.items() if not t.passed] == ["scale"]
    with pytest.raises(kvgold.Error, match="judged bitwise only"):
        kvgold.compare(golden, npu, dtypes=dt,
                       criteria={"scale": "code_dist"})
