"""kvgold scan over CANN dump files of KvRmsNormRopeCache (written by its
writer, scan_writer.py beside this file, and scan_dumps.write_cann): an
absent optional input placed by OpInput.arg_index, the four outputs
dumped without is_output_kv recorded, and an epsilon recorded past the
24th attribute (the format's other tests are
tests/python/scan/test_scan_cann.py and test_scan_routes.py). An honest
launch is NOT JUDGED, never PASS: its caches' written rows pass, but CANN
records the inputs after the kernel ran, so their untouched bytes cannot
be judged (sd.cann_honest)."""
import scan_dumps as sd  # on sys.path by tests/ops/conftest.py
from scan_dumps import one_not_judged, reconciles

kv = sd.op("kv")

HONEST_KV = "m_pa_bf16_kt_ct_sym_out"


def test_cann_absent_optional_input_placed_by_arg_index(cli, tmp_path):
    """CANN leaves k_rope_scale out without a placeholder and gives each
    input's position in OpInput.arg_index: c_kv_scale must not slide into
    k_rope_scale's place. An honest launch's caches pass (its untouched
    bytes NOT JUDGED); its cache with one code moved fails."""
    root = str(tmp_path / "dump")
    call = kv.case("m_pa_fp16_kt_ci8_sym_out")
    ins = sd.positional(call, kv.IN, call.inputs)
    assert ins[7] is None and ins[8] is not None  # k_rope_scale absent
    attrs = [(k, sd.attr_text(v)) for k, v in call.attrs.items()]
    sd.write_cann(root, "KvRmsNormRopeCache", "honest", ins,
                  sd.positional(call, kv.OUT, call.post), attrs, task=1,
                  arg_index=True)
    bad = kv.case("m_pa_fp16_kt_ci8_sym_out")
    dt, ckv = bad.post["ckv_cache"]
    init = bad.inputs["ckv_cache"][1]
    flat, iflat = ckv.reshape(-1), init.reshape(-1)
    at = int(sd.np.nonzero(flat != iflat)[0][0])
    flat[at] = sd.np.int8(int(flat[at]) ^ 0x40)
    sd.write_cann(root, "KvRmsNormRopeCache", "faulty", ins,
                  sd.positional(bad, kv.OUT, bad.post), attrs, task=2,
                  arg_index=True)
    rc, doc, err = sd.scan(cli, root)
    assert rc == 1, err
    got = [(c["id"].split(".")[1], c["verdict"]) for c in doc["calls"]]
    assert got == [("honest", "NOT_JUDGED"), ("faulty", "FAIL")], doc["calls"]
    sd.cann_honest(doc["calls"][0], call, kv.IN)
    assert doc["calls"][1]["reason"].startswith("ckv_cache:")


def test_cann_four_outputs_without_is_output_kv(cli, tmp_path):
    """k_rope and c_kv dumped, no is_output_kv recorded: kvgold's default
    (false) computes neither, so the two are named NOT JUDGED, and
    --attr is_output_kv=true judges them."""
    root = str(tmp_path / "dump")
    call = kv.case(HONEST_KV)
    assert call.attrs.get("is_output_kv") is True
    attrs = [(k, sd.attr_text(v)) for k, v in call.attrs.items()
             if k != "is_output_kv"]
    outs = sd.positional(call, kv.OUT, call.post)
    k_rope = outs[2][1]
    assert k_rope.dtype == sd.np.uint16  # bf16 bits
    outs[2] = (outs[2][0], k_rope ^ sd.np.uint16(0x5555))  # garbage
    sd.write_cann(root, "KvRmsNormRopeCache", "four",
                  sd.positional(call, kv.IN, call.inputs), outs, attrs)
    rc, doc, err = sd.scan(cli, root)
    assert rc == 1, err
    c = one_not_judged(doc, "four", "k_rope", "--attr")
    names = {r["name"]: r["verdict"] for r in c["report"]["results"]}
    assert names["k_rope"] == "NOT JUDGED" and names["c_kv"] == "NOT JUDGED"
    assert names["k_cache"] == "PASS" and names["ckv_cache"] == "PASS"
    assert names["untouched bytes of k_cache"] == "NOT JUDGED"
    assert names["untouched bytes of ckv_cache"] == "NOT JUDGED"
    rc, doc, err = sd.scan(cli, root, "--attr", "is_output_kv=true")
    assert rc == 1 and doc["calls"][0]["verdict"] == "FAIL", err
    assert doc["calls"][0]["reason"].startswith("k_rope:")


def test_cann_attrs_past_24_never_dropped(cli, tmp_path):
    """An epsilon recorded 30th was ignored, and a call computed with
    another epsilon passed."""
    root = str(tmp_path / "dump")
    kv.cann(kv.case(HONEST_KV), root, "honest", 1)
    call = kv.case(HONEST_KV)
    attrs = [("pad_%02d" % i, "0") for i in range(29)]
    attrs += [(k, sd.attr_text(v)) for k, v in call.attrs.items()]
    attrs.append(("epsilon", "0.5"))
    sd.write_cann(root, "KvRmsNormRopeCache", "victim",
                  sd.positional(call, kv.IN, call.inputs),
                  sd.positional(call, kv.OUT, call.post), attrs, task=2)
    rc, doc, err = sd.scan(cli, root)
    assert rc == 1, err
    honest, victim = doc["calls"]
    sd.cann_honest(honest, kv.case(HONEST_KV), kv.IN)
    assert victim["verdict"] == "NOT_JUDGED" and "victim" in victim["id"]
    for w in ("DumpData.attr", "more than 24"):
        assert w in victim["reason"], victim["reason"]
    reconciles(doc, 2)


def test_cann_launches_judged_by_their_attrs(cli, tmp_path):
    """Launches of the operator (from tests/python/scan/test_scan_cann.py's
    step): the attributes come from the header (is_output_kv gave k_rope
    and c_kv), 64 ulps in ckv_cache fail, a launch that dumped three of
    its four outputs is NOT JUDGED naming the fourth."""
    root = str(tmp_path / "dump" / "20260101" / "0" / "model" / "1" / "0")
    kv.cann(kv.case(HONEST_KV), root, "kvrope_0", 1)
    ulp = kv.case("m_norm_fp16_kt_ct_sym_noout")
    sd.plant_ulps(ulp, "ckv_cache", 64)
    kv.cann(ulp, root, "kvrope_4", 4)
    kv.cann(kv.case("m_norm_fp16_kt_chf8_sym_out"), root, "kvrope_6", 6,
            drop=3)
    rc, doc, err = sd.scan(cli, str(tmp_path / "dump"), "--standard",
                           "single")
    assert rc == 1, err
    got = [(c["api"], c["op"], c["verdict"]) for c in doc["calls"]]
    assert got == [("KvRmsNormRopeCache", kv.OP, "NOT_JUDGED"),
                   ("KvRmsNormRopeCache", kv.OP, "FAIL"),
                   ("KvRmsNormRopeCache", kv.OP, "NOT_JUDGED")]
    c = doc["calls"]
    assert c[0]["id"].endswith("/KvRmsNormRopeCache.kvrope_0.1.2."
                               "1700000000001")
    sd.cann_honest(c[0], kv.case(HONEST_KV), kv.IN)
    assert {r["name"] for r in c[0]["report"]["results"]} == {
        "k_cache", "ckv_cache", "k_rope", "c_kv",
        "untouched bytes of k_cache", "untouched bytes of ckv_cache"}
    assert c[1]["reason"].startswith("ckv_cache:")
    assert c[2]["reason"].startswith(
        "c_kv: missing: the dump has no post-call c_kv (output 3)")
