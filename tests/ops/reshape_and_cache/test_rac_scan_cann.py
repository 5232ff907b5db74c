"""kvgold scan over CANN dump files of ReshapeAndCache (written by its
writer, scan_writer.py beside this file): a launch on FRACTAL_NZ caches is
judged with the NZ layout, a token written one slot off fails naming
key_cache; dumped as CANN really writes it, the caches' inputs read after
the kernel ran, an honest launch and one with a stray write outside the
written rows are NOT JUDGED (never PASS) and a written-row fault FAILs
(the format's other tests are tests/python/scan/test_scan_cann.py and
test_scan_routes.py)."""
import scan_dumps as sd  # on sys.path by tests/ops/conftest.py

rac = sd.op("rac")


def test_cann_nz_layout_and_slot_off(cli, tmp_path):
    root = str(tmp_path / "dump" / "20260101" / "0" / "model" / "1" / "0")
    rac.cann(rac.case("nz_fp16"), root, "rac_3", 3)
    off = rac.case("nd_fp16")
    sd.plant_slot_off(off)
    rac.cann(off, root, "rac_5", 5)
    rc, doc, err = sd.scan(cli, str(tmp_path / "dump"), "--standard",
                           "single")
    assert rc == 1, err
    got = [(c["api"], c["op"], c["verdict"]) for c in doc["calls"]]
    # the honest call's caches' untouched bytes are NOT JUDGED (CANN
    # records the inputs after the kernel ran: sd.cann_honest), never PASS
    assert got == [("ReshapeAndCache", rac.OP, "NOT_JUDGED"),
                   ("ReshapeAndCache", rac.OP, "FAIL")]
    c = doc["calls"]
    sd.cann_honest(c[0], rac.case("nz_fp16"), rac.IN)
    assert c[0]["report"]["results"][0]["layout"]["kind"] == "nz"
    assert c[1]["reason"].startswith("key_cache:")


# A real CANN dump file holds the in-place caches as read after the
# kernel ran, the "pre-call" input equal to the post-call output
# (docs/scan.md, "When each format records a call's inputs"). The three
# cases below dump the operator that way.


def post_launch(call):
    """The call as a post-launch dump holds it: each in-place cache's
    input is its post-call contents."""
    for n in sd.inplace(call, rac.IN):
        call.inputs[n] = (call.post[n][0], call.post[n][1].copy())
    return call


def unwritten_row(call, cache="key_cache"):
    """A slot of `cache` no token writes, as a row of its post-call
    array (a view)."""
    post = call.post[cache][1]
    rows = post.reshape(post.shape[0] * post.shape[1], -1)
    used = {int(s) for s in call.inputs["slot_mapping"][1].reshape(-1)}
    return rows[min(set(range(rows.shape[0])) - used)]


def scan_rac(cli, tmp_path, call):
    root = str(tmp_path / "dump")
    rac.cann(call, root, "rac_0", 1)
    rc, doc, err = sd.scan(cli, root)
    assert len(doc["calls"]) == 1, err
    return rc, doc["calls"][0]


def test_cann_post_launch_honest_call_is_not_judged(cli, tmp_path):
    call = post_launch(rac.case(rac.SAMPLE))
    rc, c = scan_rac(cli, tmp_path, call)
    assert rc == 1
    sd.cann_honest(c, call, rac.IN)
    assert c["reason"].startswith("untouched bytes of key_cache: " +
                                  sd.CANN_AFTER)


def test_cann_stray_write_a_post_launch_dump_hides_is_not_passed(cli,
                                                                 tmp_path):
    # the stray write is in the post-call cache and, as CANN reads the
    # inputs after the kernel, in the "pre-call" one too: nothing can see
    # it, so the call is NOT JUDGED, never PASS
    call = post_launch(rac.case(rac.SAMPLE))
    row = unwritten_row(call)
    row.view(sd.np.uint16)[0] ^= 0x4000
    call.inputs["key_cache"] = (call.post["key_cache"][0],
                                call.post["key_cache"][1].copy())
    rc, c = scan_rac(cli, tmp_path, call)
    assert rc == 1 and c["verdict"] == "NOT_JUDGED", c
    res = {r["name"]: r for r in c["report"]["results"]}
    assert res["untouched bytes of key_cache"]["verdict"] == "NOT JUDGED"
    # the same stray write with a genuine pre-call cache is found: the
    # untouched comparison runs, it just has nothing to see above
    call = rac.case(rac.SAMPLE)
    unwritten_row(call).view(sd.np.uint16)[0] ^= 0x4000
    rc, c = scan_rac(cli, tmp_path / "genuine", call)
    assert rc == 1 and c["verdict"] == "FAIL", c
    assert c["reason"].startswith("key_cache:"), c


def test_cann_post_launch_written_row_fault_fails(cli, tmp_path):
    call = rac.case(rac.SAMPLE)
    assert sd.plant_fault(call) == "key_cache"
    post_launch(call)
    rc, c = scan_rac(cli, tmp_path, call)
    assert rc == 1 and c["verdict"] == "FAIL", c
    assert c["reason"].startswith("key_cache:"), c
    res = {r["name"]: r for r in c["report"]["results"]}
    assert res["untouched bytes of key_cache"]["verdict"] == "NOT JUDGED"


# The aclnn operator dump writes a launch's inputs before the kernel, to a
# file of its own, and its outputs after it, to another (docs/scan.md,
# "CANN operator dumps"): paired, the pre-call caches are genuine, so the
# untouched bytes are judged and a stray write there fails.

def scan_aclnn(cli, tmp_path, call, api=None):
    root = str(tmp_path / "dump" / "0")
    sd.write_aclnn(rac, call, root, 40, 1700000000000, api=api)
    rc, doc, err = sd.scan(cli, str(tmp_path / "dump"))
    assert len(doc["calls"]) == 1, err
    return rc, doc["calls"][0]


def test_aclnn_pair_honest_passes_stray_write_fails(cli, tmp_path):
    rc, c = scan_aclnn(cli, tmp_path / "honest", rac.case(rac.SAMPLE))
    assert rc == 0 and c["verdict"] == "PASS", c
    res = {r["name"]: r for r in c["report"]["results"]}
    assert set(res) == {"key_cache", "value_cache"}, res
    # one bit of a row no token writes, in the post-call cache only
    call = rac.case(rac.SAMPLE)
    unwritten_row(call).view(sd.np.uint16)[0] ^= 0x4000
    rc, c = scan_aclnn(cli, tmp_path / "stray", call,
                       api="aclnnReshapeAndCache")
    assert rc == 1 and c["verdict"] == "FAIL", c
    assert c["reason"].startswith("key_cache:"), c
    k = {r["name"]: r for r in c["report"]["results"]}["key_cache"]
    assert k["verdict"] == "FAIL" and k["untouched_changed"] == 1, k
