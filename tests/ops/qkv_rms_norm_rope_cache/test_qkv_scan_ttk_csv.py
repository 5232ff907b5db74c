"""kvgold scan --csv over .bin ops-test-kit cases of QkvRmsNormRopeCache
(its writer, scan_writer.py beside this file; the format's generic tests
are tests/python/scan/test_scan_ttk_csv.py): e2e and kernel-mode rows of
honest cases pass, 64 ulps in q_out fail naming it; kvgold prepare writes
the epsilon the case leaves out (the default it computed with)."""
import ast

import scan_dumps as sd  # on sys.path by tests/ops/conftest.py
from prepared import check_prepared

qkv = sd.op("qkv")


def test_e2e_csv_cases(cli, tmp_path):
    root = str(tmp_path / "manual_data")
    bad = qkv.case("fp16_kv_int8_asym")
    sd.plant_ulps(bad, "q_out", 64)
    rows = [sd.write_ttk_e2e(qkv, qkv.case("bf16_k_int8_sym_v_plain"), root,
                             "qkv_0"),
            sd.write_ttk_e2e(qkv, bad, root, "qkv_ulp_1")]
    csv = sd.write_ttk_csv(str(tmp_path / "cases.csv"), rows)
    rc, doc, err = sd.scan(cli, root, "--csv", csv, "--standard", "single")
    assert rc == 1, err
    got = {c["id"]: c for c in doc["calls"]}
    assert {k: (c["op"], c["verdict"]) for k, c in got.items()} == {
        "qkv_0": (qkv.OP, "PASS"), "qkv_ulp_1": (qkv.OP, "FAIL")}
    assert got["qkv_ulp_1"]["reason"].startswith("q_out:")
    assert got["qkv_0"]["api"] == qkv.E2E_API


def test_kernel_mode_csv(cli, tmp_path):
    root = str(tmp_path / "manual")
    rows = [sd.write_kernel(qkv, qkv.case("bf16_k_int8_sym_v_plain"), root,
                            "k_qkv_1")]
    csv = sd.write_kernel_csv(str(tmp_path / "kernel.csv"), rows)
    rc, doc, err = sd.scan(cli, root, "--csv", csv, "--standard", "single")
    assert rc == 0, err
    assert [(c["op"], c["verdict"], c["api"]) for c in doc["calls"]] == [
        (qkv.OP, "PASS", qkv.KERNEL)]


def test_prepare_csv_default_epsilon(cli, tmp_path):
    out, csv, rows = check_prepared(cli, tmp_path,
                                    [(qkv, "fp16_kv_int8_asym")])
    # the row's attributes are what prepare computed with: a default the
    # case leaves out is written
    assert "epsilon" not in qkv.case("fp16_kv_int8_asym").attrs
    assert ast.literal_eval(rows[0]["attributes"])["epsilon"] == 1e-06
