"""kvgold scan --csv over .bin ops-test-kit cases of ScatterPaKvCache (its
writer, scan_writer.py beside this file; the format's generic tests are
tests/python/scan/test_scan_ttk_csv.py): kernel-mode rows - a token one
slot off fails, input_dtypes read as ops-test-kit's TestcaseOp normalises
it (one dtype for every input, contradicted by the int32 slot_mapping
file; two dtypes for eight inputs ambiguous); without the CSV the .bin
inputs have no shape; kvgold prepare's rows of the copy-only dtypes and
HiFloat8 use the names scan reads."""
import scan_dumps as sd  # on sys.path by tests/ops/conftest.py
from prepared import check_prepared

spkc = sd.op("spkc")


def test_kernel_mode_csv(cli, tmp_path):
    root = str(tmp_path / "manual")
    norm = spkc.case("norm_fp16")
    rows = [sd.write_kernel(spkc, norm, root, "k_spkc_2")]
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
    assert {k: (c["op"], c["verdict"]) for k, c in got.items()} == {
        "k_spkc_2": (spkc.OP, "PASS"), "k_spkc_off_4": (spkc.OP, "FAIL"),
        "k_spkc_one_5": (spkc.OP, "NOT_JUDGED"),
        "k_spkc_two_6": (spkc.OP, "NOT_JUDGED")}
    assert got["k_spkc_2"]["api"] == spkc.KERNEL
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


def test_prepare_csv_copy_dtypes(cli, tmp_path):
    # the copy-only dtypes and HiFloat8: the names prepare writes are the
    # names scan reads
    check_prepared(cli, tmp_path, [(spkc, "norm_fp16"), (spkc, "norm_uint32"),
                                   (spkc, "norm_int16"),
                                   (spkc, "nz_hif8_key_e4m3_value")])
