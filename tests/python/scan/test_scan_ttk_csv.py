"""kvgold scan --csv over ops-test-kit .bin case directories whose input
shapes, dtypes and attributes live only in its testcase CSV (written by
our own writer, scan_dumps.write_ttk_e2e / write_ttk_csv, from the
format of ops-test-kit's examples/case_store/e2e/*.csv and its
field_parser; and kernel-mode CSVs, ops-test-kit's examples/case_store/
kernel/*.csv with its TestcaseOp's reading of input_dtypes): the e2e slot
order of each torch_npu API and the kernel's order of a kernel-mode row,
honest cases pass, planted faults are found in their case and named, and
a CSV that is malformed or contradicts the files is named by file, line
and column."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import scan_dumps as sd  # noqa: E402

kv = sd.op("kv")
qkv = sd.op("qkv")
rac = sd.op("rac")
spkc = sd.op("spkc")

NORM = "m_norm_fp16_kt_ct_sym_noout"


def build(tmp_path):
    """manual_data/ with .bin e2e cases of four operators and cases.csv."""
    root = str(tmp_path / "manual_data")
    rows = [
        sd.write_ttk_e2e(kv, kv.case(NORM), root, "kv_norm_0"),
        sd.write_ttk_e2e(kv, kv.case("m_pa_bf16_kt_ct_sym_out"), root,
                         "kv_pa_out_1"),
        sd.write_ttk_e2e(qkv, qkv.case("bf16_k_int8_sym_v_plain"), root,
                         "qkv_2"),
        sd.write_ttk_e2e(rac, rac.case("nd_fp16"), root, "rac_3"),
        sd.write_ttk_e2e(spkc, spkc.case("norm_fp16"), root, "spkc_4"),
    ]
    ulp = kv.case(NORM)
    sd.plant_ulps(ulp, "k_cache", 64)
    rows.append(sd.write_ttk_e2e(kv, ulp, root, "kv_ulp_5"))
    off = rac.case("nd_fp16")
    sd.plant_slot_off(off)
    rows.append(sd.write_ttk_e2e(rac, off, root, "rac_off_6"))
    bad = qkv.case("fp16_kv_int8_asym")
    sd.plant_ulps(bad, "q_out", 64)
    rows.append(sd.write_ttk_e2e(qkv, bad, root, "qkv_ulp_7"))
    rows.append(sd.write_ttk_e2e(kv, kv.case("m_pa_bf16_kt_ct_sym_out"),
                                 root, "kv_missing_8", drop=3))
    csv = sd.write_ttk_csv(str(tmp_path / "cases.csv"), rows)
    return root, csv, rows


WANT = {
    "kv_norm_0": (kv.OP, "PASS", None),
    "kv_pa_out_1": (kv.OP, "PASS", None),
    "qkv_2": (qkv.OP, "PASS", None),
    "rac_3": (rac.OP, "PASS", None),
    "spkc_4": (spkc.OP, "PASS", None),
    "kv_ulp_5": (kv.OP, "FAIL", "k_cache:"),
    "rac_off_6": (rac.OP, "FAIL", "key_cache:"),
    "qkv_ulp_7": (qkv.OP, "FAIL", "q_out:"),
    "kv_missing_8": (kv.OP, "NOT_JUDGED",
                     "c_kv: missing: the dump has no post-call c_kv "
                     "(golden_3)"),
}


def check(doc):
    got = {c["id"]: c for c in doc["calls"]}
    assert sorted(got) == sorted(WANT)
    for name, (op, verdict, reason) in WANT.items():
        c = got[name]
        assert (c["op"], c["verdict"]) == (op, verdict), (name, c["reason"])
        if reason is not None:
            assert c["reason"].startswith(reason), (name, c["reason"])


def test_csv_judges_bin_cases(cli, tmp_path):
    root, csv, rows = build(tmp_path)
    rc, doc, err = sd.scan(cli, root, "--csv", csv, "--standard", "single")
    assert rc == 1, err
    assert doc["format"] == "ttk"
    check(doc)
    # the call's API is the CSV's api_name
    apis = {c["id"]: c["api"] for c in doc["calls"]}
    assert apis["qkv_2"] == qkv.E2E_API
    assert apis["spkc_4"] == spkc.E2E_API


def test_without_csv_bin_cases_are_not_judged(cli, tmp_path):
    root, csv, rows = build(tmp_path)
    rc, doc, err = sd.scan(cli, root, "--standard", "single")
    # the directory names say no operator: nothing is judged
    assert rc == 1
    assert doc["calls"] == []
    assert doc["other_calls"] == len(WANT)
    # with the operator given, the .bin inputs have no shape
    rc, doc, err = sd.scan(cli, root, "--op", kv.OP)
    c = {c["id"]: c for c in doc["calls"]}
    assert c["kv_norm_0"]["verdict"] == "NOT_JUDGED"
    assert "a .bin input records no shape" in c["kv_norm_0"]["reason"]


def test_csv_attributes_are_used(cli, tmp_path):
    root, csv, rows = build(tmp_path)
    # the same row with another epsilon: the golden computes another
    # result, so the honest case fails
    for r in rows:
        if r["testcase_name"] == "kv_norm_0":
            assert "'epsilon': 1e-05" in r["attributes"]
            r["attributes"] = r["attributes"].replace("1e-05", "0.5")
    sd.write_ttk_csv(csv, rows)
    rc, doc, err = sd.scan(cli, root, "--csv", csv, "--standard", "single")
    got = {c["id"]: c["verdict"] for c in doc["calls"]}
    assert got["kv_norm_0"] == "FAIL"
    assert got["kv_pa_out_1"] == "PASS"


def test_csv_shape_contradicting_the_file(cli, tmp_path):
    root, csv, rows = build(tmp_path)
    for r in rows:
        if r["testcase_name"] == "rac_3":
            # key said to have half its last dimension: half the bytes
            shapes = eval(r["tensor_view_shapes"])
            want = shapes[0]
            shapes = (want[:-1] + (want[-1] // 2,),) + shapes[1:]
            r["tensor_view_shapes"] = repr(shapes)
    sd.write_ttk_csv(csv, rows)
    rc, doc, err = sd.scan(cli, root, "--csv", csv)
    c = {c["id"]: c for c in doc["calls"]}["rac_3"]
    assert c["verdict"] == "NOT_JUDGED"
    # names the CSV's line (rac_3 is the 4th testcase: line 5) and the file
    assert c["reason"].startswith(csv + ": line 5 (testcase rac_3): tensor "
                                  "0 is "), c["reason"]
    nbytes = 2
    for d in want:
        nbytes *= d
    assert "rac_3/input_0_float16.bin has %d" % nbytes in c["reason"]


def test_csv_dtype_and_count_contradicting_the_files(cli, tmp_path):
    root, csv, rows = build(tmp_path)
    for r in rows:
        if r["testcase_name"] == "kv_norm_0":
            r["tensor_dtypes"] = r["tensor_dtypes"].replace("'float16'",
                                                            "'float32'", 1)
        if r["testcase_name"] == "rac_3":
            r["tensor_view_shapes"] = r["tensor_view_shapes"][:-1] + \
                ", (1,))"
            r["tensor_dtypes"] = r["tensor_dtypes"][:-1] + ", 'int32')"
    sd.write_ttk_csv(csv, rows)
    rc, doc, err = sd.scan(cli, root, "--csv", csv)
    c = {c["id"]: c for c in doc["calls"]}
    assert c["kv_norm_0"]["verdict"] == "NOT_JUDGED"
    assert "tensor 0 is float32, " in c["kv_norm_0"]["reason"]
    assert "kv_norm_0/input_0_float16.bin says float16" in \
        c["kv_norm_0"]["reason"]
    assert c["rac_3"]["verdict"] == "NOT_JUDGED"
    assert "tensor_view_shapes declares 6 tensors" in c["rac_3"]["reason"]
    assert "has 5 input slots" in c["rac_3"]["reason"]


def test_case_without_a_row(cli, tmp_path):
    root, csv, rows = build(tmp_path)
    sd.write_ttk_csv(csv, [r for r in rows
                           if r["testcase_name"] != "kv_norm_0"])
    rc, doc, err = sd.scan(cli, root, "--csv", csv, "--op", kv.OP)
    c = {c["id"]: c for c in doc["calls"]}
    assert c["kv_norm_0"]["verdict"] == "NOT_JUDGED"
    assert "the testcase CSV has no row whose testcase_name is kv_norm_0" \
        in c["kv_norm_0"]["reason"]
    # without --op too: a case the CSV does not describe is unknown, not
    # "another operator"
    rc, doc, err = sd.scan(cli, root, "--csv", csv)
    assert rc == 1
    c = {c["id"]: c for c in doc["calls"]}
    assert c["kv_norm_0"]["verdict"] == "NOT_JUDGED"
    assert doc["other_calls"] == 0


def test_duplicate_row_is_ambiguous(cli, tmp_path):
    root, csv, rows = build(tmp_path)
    sd.write_ttk_csv(csv, rows + [dict(rows[0])])
    rc, doc, err = sd.scan(cli, root, "--csv", csv)
    c = {c["id"]: c for c in doc["calls"]}["kv_norm_0"]
    assert c["verdict"] == "NOT_JUDGED"
    assert c["reason"].startswith(csv + ": line 2 (testcase kv_norm_0): "
                                  "line 11 has the same testcase_name")


def test_unknown_attribute_is_not_guessed(cli, tmp_path):
    root, csv, rows = build(tmp_path)
    rows[3]["attributes"] = "{'compress_type': 'ALIBI'}"
    sd.write_ttk_csv(csv, rows)
    rc, doc, err = sd.scan(cli, root, "--csv", csv)
    c = {c["id"]: c for c in doc["calls"]}["rac_3"]
    assert c["verdict"] == "NOT_JUDGED"
    assert "attributes: compress_type is no argument of " \
        "torch_npu._npu_reshape_and_cache" in c["reason"]


@pytest.mark.parametrize("text, where", [
    # an unterminated quote: the line and column where it opened
    ('testcase_name,api_name,tensor_view_shapes\n'
     'a,torch.add,"((2,3),)\n', "cases.csv: line 2, column 13 (csv): a "
     "quoted field is not closed"),
    # a malformed literal: the column of the fault inside the cell
    ('testcase_name,api_name,tensor_view_shapes,tensor_dtypes\n'
     'a,torch.add,"((2,3),(4,)",\'float16\'\n',
     "cases.csv: line 2, column 25 (tensor_view_shapes): expected ',' or "
     "')'"),
    ('testcase_name,tensor_view_shapes\na,"((2,3),(4,"\n',
     "cases.csv: line 2, column 14 (tensor_view_shapes): no closing ')'"),
    ('testcase_name,tensor_view_shapes,attributes\n'
     'a,"((2,3),)","{\'eps\' 1}"\n',
     "cases.csv: line 2, column 22 (attributes): expected ':'"),
    ('testcase_name,tensor_view_shapes\n\n'
     'a,"((2,x),)"\n',
     "cases.csv: line 3, column 8 (tensor_view_shapes): not a value"),
    ('api_name,tensor_view_shapes\nx,"((1,),)"\n',
     "cases.csv: line 1 (header): no testcase_name column"),
    ('testcase_name,tensor_view_shapes\na,"((1,),)" x\n',
     "cases.csv: line 2, column 13 (csv): text after a closing quote"),
    ('testcase_name,tensor_view_shapes\na,"((1,),)",7\n',
     "cases.csv: line 2, column 13 (csv): more fields than the header's 2 "
     "columns"),
])
def test_malformed_csv(cli, tmp_path, text, where):
    root, csv, rows = build(tmp_path)
    with open(csv, "w", encoding="utf-8") as f:
        f.write(text)
    rc, doc, err = sd.scan(cli, root, "--csv", csv)
    assert rc == 2
    assert doc is None
    assert where in err, err
    assert csv in err


def test_csv_needs_ttk(cli, tmp_path):
    root, csv, rows = build(tmp_path)
    atb = str(tmp_path / "atb")
    rac.atb(rac.case("nd_fp16"), atb, "0_ReshapeAndCacheOperation")
    rc, doc, err = sd.scan(cli, atb, "--csv", csv)
    assert rc == 2
    assert "--csv is ops-test-kit's testcase CSV, and this dump is atb" \
        in err


def test_unreadable_csv(cli, tmp_path):
    root, csv, rows = build(tmp_path)
    rc, doc, err = sd.scan(cli, root, "--csv", str(tmp_path / "none.csv"))
    assert rc == 2
    assert "none.csv" in err


def test_header_names_both_forms(cli, tmp_path):
    """A CSV without the shapes column names what each of ops-test-kit's
    two forms starts with; one with both cannot say which it is."""
    root, csv, rows = build(tmp_path)
    for text, where in (
            ("testcase_name,api_name\n",
             "no tensor_view_shapes column (ops-test-kit's e2e testcase CSV "
             "has testcase_name, api_name, tensor_view_shapes, ...; its "
             "kernel-mode CSV testcase_name, op_name, input_shapes, ...)"),
            ("testcase_name,tensor_view_shapes,input_shapes\n",
             "both tensor_view_shapes (ops-test-kit's e2e CSV) and "
             "input_shapes (its kernel-mode CSV)")):
        with open(csv, "w", encoding="utf-8") as f:
            f.write(text)
        rc, doc, err = sd.scan(cli, root, "--csv", csv)
        assert rc == 2 and where in err, err


# ---- kernel-mode CSVs: op_name, input_shapes, input_dtypes ---------------

def test_kernel_mode_csv(cli, tmp_path):
    """ops-test-kit's kernel-mode CSV (its default for KV and QKV .bin
    data): the row's op_name names the kernel, input_shapes / input_dtypes
    the kernel's inputs in order (None for an optional one left out), the
    attributes the kernel's. Honest cases pass, a planted cache fault
    fails, and input_dtypes is read as ops-test-kit's TestcaseOp
    normalises it: one dtype for every input, or one per input."""
    root = str(tmp_path / "manual")
    norm = spkc.case("norm_fp16")
    rows = [sd.write_kernel(kv, kv.case(NORM), root, "k_kv_0"),
            sd.write_kernel(qkv, qkv.case("bf16_k_int8_sym_v_plain"), root,
                         "k_qkv_1"),
            sd.write_kernel(spkc, norm, root, "k_spkc_2")]
    bad = kv.case(NORM)
    sd.plant_ulps(bad, "k_cache", 64)
    rows.append(sd.write_kernel(kv, bad, root, "k_kv_ulp_3"))
    off = spkc.case("norm_fp16")
    sd.plant_slot_off(off)
    rows.append(sd.write_kernel(spkc, off, root, "k_spkc_off_4"))
    # one dtype for all: ops-test-kit gives slot_mapping float16 too,
    # which its int32 file contradicts
    rows.append(sd.write_kernel(spkc, norm, root, "k_spkc_one_5",
                             dtypes="('float16',)"))
    # two dtypes for eight inputs: ops-test-kit marks it invalid
    rows.append(sd.write_kernel(spkc, norm, root, "k_spkc_two_6",
                             dtypes="('float16', 'float16')"))
    csv = sd.write_kernel_csv(str(tmp_path / "kernel.csv"), rows)
    rc, doc, err = sd.scan(cli, root, "--csv", csv, "--standard", "single")
    assert rc == 1, err
    got = {c["id"]: c for c in doc["calls"]}
    want = {"k_kv_0": (kv.OP, "PASS"), "k_qkv_1": (qkv.OP, "PASS"),
            "k_spkc_2": (spkc.OP, "PASS"), "k_kv_ulp_3": (kv.OP, "FAIL"),
            "k_spkc_off_4": (spkc.OP, "FAIL"),
            "k_spkc_one_5": (spkc.OP, "NOT_JUDGED"),
            "k_spkc_two_6": (spkc.OP, "NOT_JUDGED")}
    assert {k: (c["op"], c["verdict"]) for k, c in got.items()} == want
    assert got["k_kv_0"]["api"] == kv.KERNEL  # its op_name
    assert got["k_kv_ulp_3"]["reason"].startswith("k_cache:")
    assert got["k_spkc_off_4"]["reason"].startswith("key_cache:")
    assert "tensor 2 is float16, " in got["k_spkc_one_5"]["reason"]
    assert "k_spkc_one_5/input_2_int32.bin says int32" in \
        got["k_spkc_one_5"]["reason"]
    assert "input_dtypes: 2 dtypes for 8 inputs" in \
        got["k_spkc_two_6"]["reason"]
    assert "CASE_FIELD_AMBIGUOUS" in got["k_spkc_two_6"]["reason"]
    # without the CSV the .bin inputs have no shape
    rc, doc, err = sd.scan(cli, root, "--op", spkc.OP)
    c = {c["id"]: c for c in doc["calls"]}["k_spkc_2"]
    assert c["verdict"] == "NOT_JUDGED"


# ---- kvgold prepare --csv: the CSV of the directories it writes ----------

PREPARED = [(kv, "m_pa_bf16_kt_ct_sym_out"), (qkv, "fp16_kv_int8_asym"),
            (rac, "nd_fp16"), (spkc, "norm_fp16"),
            (kv, "m_norm_fp16_kt_ce4m3_sym_noout"),
            # the copy-only dtypes and HiFloat8: the names prepare writes
            # are the names scan reads
            (spkc, "norm_uint32"), (spkc, "norm_int16"),
            (spkc, "nz_hif8_key_e4m3_value")]


def prepare(cli, out, csv, cases):
    import subprocess
    return subprocess.run(
        [cli, "prepare"] + [os.path.join(sd.VECTORS, m.OP, c)
                            for m, c in cases] + ["--out", out, "--csv", csv],
        capture_output=True, text=True, env=sd.cli_env())


def test_prepare_csv_rows(cli, tmp_path):
    import ast
    import csv as pycsv
    from ttk_support import TTK_E2E_OUTPUTS
    out, csv = str(tmp_path / "manual"), str(tmp_path / "cases.csv")
    p = prepare(cli, out, csv, PREPARED)
    assert p.returncode == 0, p.stderr
    with open(csv, newline="", encoding="utf-8") as f:
        rows = list(pycsv.DictReader(f))
    assert [r["testcase_name"] for r in rows] == [c for _, c in PREPARED]
    for (mod, name), r in zip(PREPARED, rows):
        call = mod.case(name)
        assert r["api_name"] == mod.E2E_API
        shapes = ast.literal_eval(r["tensor_view_shapes"])
        dtypes = ast.literal_eval(r["tensor_dtypes"])
        # every tensor argument of the API in signature order, None where
        # the case has none (the files prepare wrote say the same)
        assert len(shapes) == len(dtypes) == len(mod.E2E_IN)
        for i, n in enumerate(mod.E2E_IN):
            got = call.inputs.get(n)
            if got is None:
                assert (shapes[i], dtypes[i]) == (None, None)
                assert os.path.exists(os.path.join(
                    out, name, "input_%d_none.bin" % i))
            else:
                assert shapes[i] == tuple(got[1].shape)
                assert dtypes[i] == sd.TTK_DTYPE[got[0]]
        # the caches ops-test-kit must append to the device outputs
        # (an empty cell: the API returns its outputs)
        assert ast.literal_eval(r["inplace_input_indexes"] or "()") == \
            TTK_E2E_OUTPUTS[mod.E2E_API][1], name
        # the goldens: what ops-test-kit lists for the return ([None]
        # for an API that returns None), then the caches
        goldens = sorted(n for n in os.listdir(os.path.join(out, name))
                         if n.startswith("golden_"))
        returned = TTK_E2E_OUTPUTS[mod.E2E_API][0]
        assert len(goldens) == len(returned) + len(
            TTK_E2E_OUTPUTS[mod.E2E_API][1]), name
        if returned == (None,):
            assert goldens[0] == "golden_0_none.bin", name
        # the case's attributes, and only the API's keywords
        attrs = ast.literal_eval(r["attributes"])
        assert set(attrs) <= set(mod.E2E_ATTRS)
        for k, v in call.attrs.items():
            if k in mod.E2E_ATTRS:
                assert attrs[k] == v, (name, k)
    # the row's attributes are what prepare computed with: a default the
    # case leaves out is written (qkv's epsilon)
    assert ast.literal_eval(rows[1]["attributes"])["epsilon"] == 1e-06
    # and scan reads them back: kvgold against itself passes; a golden
    # byte changed fails
    rc, doc, err = sd.scan(cli, out, "--csv", csv)
    assert rc == 0, err
    assert [c["verdict"] for c in doc["calls"]] == ["PASS"] * len(PREPARED)
    # (golden_1 of _npu_reshape_and_cache: key_cache after its None)
    g = os.path.join(out, "nd_fp16", [n for n in os.listdir(
        os.path.join(out, "nd_fp16")) if n.startswith("golden_1_")][0])
    data = bytearray(open(g, "rb").read())
    data[-1] ^= 0x40
    open(g, "wb").write(bytes(data))
    rc, doc, err = sd.scan(cli, out, "--csv", csv)
    got = {c["id"]: c for c in doc["calls"]}
    assert got["nd_fp16"]["verdict"] == "FAIL"
    assert got["nd_fp16"]["reason"].startswith("key_cache:")
    assert rc == 1


def test_prepare_csv_inplace_checked(cli, tmp_path):
    """A row whose inplace_input_indexes are not the slots the API writes
    in place would make ops-test-kit compare other tensors with the
    goldens: scan says so and does not judge the call."""
    import csv as pycsv
    out, csv = str(tmp_path / "manual"), str(tmp_path / "cases.csv")
    p = prepare(cli, out, csv, PREPARED[:4])
    assert p.returncode == 0, p.stderr
    with open(csv, newline="", encoding="utf-8") as f:
        rows = list(pycsv.DictReader(f))
    rows[2]["inplace_input_indexes"] = "(4, 5)"   # nd_fp16
    rows[0]["inplace_input_indexes"] = "(5, 6)"   # V1 returns its caches
    with open(csv, "w", newline="", encoding="utf-8") as f:
        w = pycsv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    rc, doc, err = sd.scan(cli, out, "--csv", csv)
    got = {c["id"]: c for c in doc["calls"]}
    assert got["nd_fp16"]["verdict"] == "NOT_JUDGED"
    assert "inplace_input_indexes is (4, 5); torch_npu._npu_reshape_and_" \
        "cache writes slots (2, 3) in place" in got["nd_fp16"]["reason"]
    assert got[PREPARED[0][1]]["verdict"] == "NOT_JUDGED"
    assert "writes slots () in place" in got[PREPARED[0][1]]["reason"]
    assert got["fp16_kv_int8_asym"]["verdict"] == "PASS"


def test_prepare_csv_all_or_nothing(cli, tmp_path):
    out, csv = str(tmp_path / "manual"), str(tmp_path / "cases.csv")
    with open(csv, "w") as f:
        f.write("poison\n")
    # a case prepare refuses (ReshapeAndCacheOmni has no torch_npu API):
    # neither the directories nor the CSV
    p = prepare(cli, out, csv, PREPARED[:2] + [
        (sd.op("omni"), "edges_bf16")])
    assert p.returncode == 2
    assert "has no torch_npu API" in p.stderr
    assert open(csv).read() == "poison\n"
    assert not os.path.exists(out) or os.listdir(out) == []
    # a CSV in a directory that does not exist: nothing written either
    bad = str(tmp_path / "no" / "cases.csv")
    p = prepare(cli, out, bad, PREPARED[:2])
    assert p.returncode == 2
    assert "its directory %s: No such file or directory; nothing " \
        "written" % os.path.dirname(bad) in p.stderr
    assert not os.path.exists(bad)
    assert not os.path.exists(out) or os.listdir(out) == []
