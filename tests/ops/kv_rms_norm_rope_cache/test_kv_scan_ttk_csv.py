"""kvgold scan --csv over a kernel-mode ops-test-kit row of
KvRmsNormRopeCache (written by its writer, scan_writer.py beside this file,
and scan_dumps.write_kernel): a row declaring fewer inputs than the
kernel's eleven slots is named with its column (the format's other tests
are tests/python/scan/test_scan_ttk_csv.py)."""
import scan_dumps as sd  # on sys.path by tests/ops/conftest.py

kv = sd.op("kv")

NORM = "m_norm_fp16_kt_ct_sym_noout"


def test_kernel_mode_input_count(cli, tmp_path):
    """A kernel-mode row with fewer inputs than the directory holds is
    named with its column."""
    root = str(tmp_path / "manual")
    r = sd.write_kernel(kv, kv.case(NORM), root, "k_kv_0")
    shapes = eval(r["input_shapes"])[:7]
    r["input_shapes"] = repr(shapes)
    r["input_dtypes"] = repr(eval(r["input_dtypes"])[:7])
    csv = sd.write_kernel_csv(str(tmp_path / "kernel.csv"), [r])
    rc, doc, err = sd.scan(cli, root, "--csv", csv)
    c = doc["calls"][0]
    assert c["verdict"] == "NOT_JUDGED"
    assert "input_shapes declares 7 tensors" in c["reason"]
    assert "has 11 input slots" in c["reason"]


def e2e(tmp_path):
    """.bin e2e cases of the operator (torch_npu's V1 form) and their
    CSV: two honest ones, 64 ulps in k_cache, a case without its c_kv."""
    root = str(tmp_path / "manual_data")
    rows = [sd.write_ttk_e2e(kv, kv.case(NORM), root, "kv_norm_0"),
            sd.write_ttk_e2e(kv, kv.case("m_pa_bf16_kt_ct_sym_out"), root,
                             "kv_pa_out_1")]
    ulp = kv.case(NORM)
    sd.plant_ulps(ulp, "k_cache", 64)
    rows.append(sd.write_ttk_e2e(kv, ulp, root, "kv_ulp_2"))
    rows.append(sd.write_ttk_e2e(kv, kv.case("m_pa_bf16_kt_ct_sym_out"),
                                 root, "kv_missing_3", drop=3))
    return root, rows, sd.write_ttk_csv(str(tmp_path / "cases.csv"), rows)


def test_e2e_csv_cases(cli, tmp_path):
    root, rows, csv = e2e(tmp_path)
    rc, doc, err = sd.scan(cli, root, "--csv", csv, "--standard", "single")
    assert rc == 1, err
    got = {c["id"]: (c["op"], c["verdict"], c["reason"])
           for c in doc["calls"]}
    assert {k: v[:2] for k, v in got.items()} == {
        "kv_norm_0": (kv.OP, "PASS"), "kv_pa_out_1": (kv.OP, "PASS"),
        "kv_ulp_2": (kv.OP, "FAIL"), "kv_missing_3": (kv.OP, "NOT_JUDGED")}
    assert got["kv_ulp_2"][2].startswith("k_cache:")
    assert got["kv_missing_3"][2].startswith(
        "c_kv: missing: the dump has no post-call c_kv (golden_3)")
    # with the operator given but no CSV, the .bin inputs have no shape
    rc, doc, err = sd.scan(cli, root, "--op", kv.OP)
    c = {c["id"]: c for c in doc["calls"]}
    assert c["kv_norm_0"]["verdict"] == "NOT_JUDGED"
    assert "a .bin input records no shape" in c["kv_norm_0"]["reason"]


def test_csv_attributes_are_used(cli, tmp_path):
    root, rows, csv = e2e(tmp_path)
    # the same row with another epsilon: the golden computes another
    # result, so the honest case fails
    assert "'epsilon': 1e-05" in rows[0]["attributes"]
    rows[0]["attributes"] = rows[0]["attributes"].replace("1e-05", "0.5")
    sd.write_ttk_csv(csv, rows)
    rc, doc, err = sd.scan(cli, root, "--csv", csv, "--standard", "single")
    got = {c["id"]: c["verdict"] for c in doc["calls"]}
    assert got["kv_norm_0"] == "FAIL"
    assert got["kv_pa_out_1"] == "PASS"


def test_kernel_mode_fault(cli, tmp_path):
    root = str(tmp_path / "manual")
    bad = kv.case(NORM)
    sd.plant_ulps(bad, "k_cache", 64)
    rows = [sd.write_kernel(kv, kv.case(NORM), root, "k_kv_0"),
            sd.write_kernel(kv, bad, root, "k_kv_ulp_1")]
    csv = sd.write_kernel_csv(str(tmp_path / "kernel.csv"), rows)
    rc, doc, err = sd.scan(cli, root, "--csv", csv, "--standard", "single")
    assert rc == 1, err
    got = {c["id"]: c for c in doc["calls"]}
    assert [got[k]["verdict"] for k in ("k_kv_0", "k_kv_ulp_1")] == [
        "PASS", "FAIL"]
    assert got["k_kv_0"]["api"] == kv.KERNEL
    assert got["k_kv_ulp_1"]["reason"].startswith("k_cache:")


def test_prepare_csv_rows(cli, tmp_path):
    """kvgold prepare's rows of an fp8-cache case and one with every
    output (prepared.check_prepared), read back by scan."""
    from prepared import check_prepared
    check_prepared(cli, tmp_path, [(kv, "m_pa_bf16_kt_ct_sym_out"),
                                   (kv, "m_norm_fp16_kt_ce4m3_sym_noout")])
