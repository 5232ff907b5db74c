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
