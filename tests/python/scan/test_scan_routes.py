"""The routes to a false PASS of issue 32, each re-created with our own
dump writers (scan_dumps.py): an entry of a dump that names, or might be,
a call of a kvgold operator and cannot be read ends NOT JUDGED with a
reason naming it, never left out; the summary reconciles (entries seen =
calls listed + entries of other operators); a dumped output the golden
does not compute is named; a misspelt --attr or one that is not JSON is a
usage error. One honest call sits beside each damaged entry, so that a
reader that drops the damaged one would make the scan PASS."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import scan_dumps as sd  # noqa: E402
from scan_dumps import one_not_judged, reconciles  # noqa: E402

# some operator's calls in each format (the first writer found that
# writes it); MANUAL's for ops-test-kit case directories named by their
# operator (OP_TYPE)
CANN = sd.first("cann")
ATB = sd.first("atb", "ATB_OP")
MSPROBE = sd.first("msprobe")
E2E = sd.first("E2E_API")
MANUAL = sd.first("ttk", "OP_TYPE")

VICTIM_ATB = "1_" + ATB.ATB_OP  # the damaged operation directory


def judged(doc):
    """{id suffix: (verdict, reason)} of a scan's calls."""
    return {c["id"]: (c["verdict"], c["reason"]) for c in doc["calls"]}


def link_in_place(victim, elsewhere):
    """Move `victim` to `elsewhere` and leave a symbolic link to it."""
    os.rename(victim, elsewhere)
    os.symlink(elsewhere, victim)


# ---- CANN ------------------------------------------------------------------

def cann_dump(tmp_path):
    """A dump with one honest launch and the path of a second one, to be
    damaged."""
    root = str(tmp_path / "dump")
    CANN.cann(CANN.case(CANN.SAMPLE), root, "honest", 1)
    victim = CANN.cann(CANN.case(CANN.SAMPLE), root, "victim", 2)
    return root, victim


@pytest.mark.parametrize("damage,words", [
    ("empty", ["DumpData.length", "empty"]),
    ("cut_length", ["DumpData.length", "shorter than the 8-byte"]),
    ("cut_header", ["DumpData.length", "past the end"]),
    ("length_past_end", ["DumpData.length", "past the end"]),
    ("length_over_64mib", ["DumpData.length", "over 64 MiB"]),
])
def test_cann_damaged_file_not_judged(cli, tmp_path, damage, words):
    root, victim = cann_dump(tmp_path)
    data = open(victim, "rb").read()
    if damage == "empty":
        data = b""
    elif damage == "cut_length":
        data = data[:5]
    elif damage == "cut_header":
        data = data[:20]
    elif damage == "length_past_end":
        data = (len(data)).to_bytes(8, "little") + data[8:]
    if damage == "length_over_64mib":
        hlen = (64 << 20) + 1
        with open(victim, "wb") as f:
            f.write(hlen.to_bytes(8, "little") + data[8:])
            f.truncate(hlen + 8 + 16)  # sparse: the length fits the file
    else:
        open(victim, "wb").write(data)
    rc, doc, err = sd.scan(cli, root)
    assert rc == 1, err
    one_not_judged(doc, "victim", os.path.basename(victim), *words)
    reconciles(doc, 2)


@pytest.mark.parametrize("kind", ["link", "dangling", "fifo"])
def test_cann_odd_entry_not_judged(cli, tmp_path, kind):
    root, victim = cann_dump(tmp_path)
    moved = str(tmp_path / "elsewhere.bin")
    os.rename(victim, moved)
    if kind == "link":
        os.symlink(moved, victim)
        words = ["is a symbolic link", "does not follow links"]
    elif kind == "dangling":
        os.symlink(str(tmp_path / "nothing"), victim)
        words = ["is a symbolic link"]
    else:
        os.mkfifo(victim)
        words = ["is a FIFO"]
    rc, doc, err = sd.scan(cli, root)
    assert rc == 1, err
    one_not_judged(doc, "victim", os.path.basename(victim), *words)
    reconciles(doc, 2)


def test_cann_linked_directory_not_judged(cli, tmp_path):
    root, victim = cann_dump(tmp_path)
    sub = tmp_path / "more"
    sub.mkdir()
    os.rename(victim, str(sub / os.path.basename(victim)))
    os.symlink(str(sub), os.path.join(root, "more"))
    rc, doc, err = sd.scan(cli, root)
    assert rc == 1, err
    one_not_judged(doc, "more", "is a symbolic link")
    reconciles(doc, 2)


@pytest.mark.parametrize("arg,words", [
    ("is_output_kvv=true", ["is_output_kvv", "no attribute or option"]),
    ("epsilon=abc", ["epsilon", "not a JSON value"]),
    ("cache_mode=PA", ["cache_mode", "not a JSON value"]),
    ("=1", ["NAME=VALUE"]),
])
def test_attr_usage_errors(cli, tmp_path, arg, words):
    root, _ = cann_dump(tmp_path)
    rc, doc, err = sd.scan(cli, root, "--attr", arg)
    assert rc == 2 and doc is None
    for w in words:
        assert w in err, err


def _attr_another_lacks():
    """(an attribute of the CANN writer's SAMPLE call, another operator
    none of whose vector cases has it)."""
    def attrs_of(op):
        names = set()
        for p in sd.glob.glob(os.path.join(sd.VECTORS, op, "*",
                                           "case.json")):
            with open(p) as f:
                names.update(sd.json.load(f).get("attrs", {}))
        return names
    mine = sorted(CANN.case(CANN.SAMPLE).attrs)
    for w in sd.every("OP"):
        if w.OP != CANN.OP:
            lacks = [a for a in mine if a not in attrs_of(w.OP)]
            if lacks:
                return lacks[0], w.OP
    raise AssertionError("every operator has every attribute of %s"
                         % CANN.OP)


def test_attr_of_another_operator_with_op(cli, tmp_path):
    root, _ = cann_dump(tmp_path)
    attr, op = _attr_another_lacks()
    value = sd.json.dumps(CANN.case(CANN.SAMPLE).attrs[attr])
    rc, doc, err = sd.scan(cli, root, "--op", op, "--attr",
                           "%s=%s" % (attr, value))
    assert rc == 2 and "no attribute or option of %s" % op in err, err


def test_cann_one_broken_file_named_by_field(cli, tmp_path):
    root, victim = cann_dump(tmp_path)
    open(victim, "wb").write(b"\x01\x02\x03")
    rc, doc, err = sd.scan(cli, victim)
    assert rc == 2
    assert "DumpData.length" in err and os.path.basename(victim) in err
    assert "not a dump kvgold reads" not in err


# ---- ATB -------------------------------------------------------------------

def atb_dump(tmp_path):
    root = str(tmp_path / "atb")
    ATB.atb(ATB.case(ATB.SAMPLE), root, "0_" + ATB.ATB_OP)
    ATB.atb(ATB.case(ATB.SAMPLE), root, VICTIM_ATB)
    return root, os.path.join(root, VICTIM_ATB)


def test_atb_linked_operation_not_judged(cli, tmp_path):
    root, victim = atb_dump(tmp_path)
    link_in_place(victim, str(tmp_path / VICTIM_ATB))
    rc, doc, err = sd.scan(cli, root)
    assert rc == 1, err
    one_not_judged(doc, VICTIM_ATB, "is a symbolic link")
    reconciles(doc, 2)


@pytest.mark.parametrize("side", ["after", "before"])
def test_atb_side_that_is_a_file_not_judged(cli, tmp_path, side):
    root, victim = atb_dump(tmp_path)
    import shutil
    shutil.rmtree(os.path.join(victim, side))
    open(os.path.join(victim, side), "wb").write(b"x")
    rc, doc, err = sd.scan(cli, root)
    assert rc == 1, err
    one_not_judged(doc, VICTIM_ATB,
                   os.path.join(victim, side), "is a regular file",
                   "a directory belongs")
    reconciles(doc, 2)


def test_atb_output_fifo_is_named_not_missing(cli, tmp_path):
    root, victim = atb_dump(tmp_path)
    out = os.path.join(victim, "after", "outtensor1.bin")
    os.remove(out)
    os.mkfifo(out)
    rc, doc, err = sd.scan(cli, root)
    assert rc == 1, err
    one_not_judged(doc, VICTIM_ATB, "outtensor1.bin",
                   "FIFO")


def test_atb_output_past_a_gap_is_not_dropped(cli, tmp_path):
    root, victim = atb_dump(tmp_path)
    after = os.path.join(victim, "after")
    os.rename(os.path.join(after, "outtensor1.bin"),
              os.path.join(after, "outtensor2.bin"))
    rc, doc, err = sd.scan(cli, root)
    assert rc == 1, err
    one_not_judged(doc, VICTIM_ATB, "no outtensor1.bin")


# ---- msprobe -----------------------------------------------------------------

def msprobe_dump(tmp_path):
    """Two ranks, each with one honest call."""
    root = tmp_path / "msprobe"
    for rank in ("r0", "r1"):  # each writes its own step0/rank0
        step = sd.MsprobeStep(str(root / rank))
        MSPROBE.msprobe(step, MSPROBE.case(MSPROBE.SAMPLE))
        step.save()
    return str(root), str(root / "r1" / "step0" / "rank0" / "dump.json")


@pytest.mark.parametrize("kind", ["dangling", "fifo", "link"])
def test_msprobe_odd_dump_json_not_judged(cli, tmp_path, kind):
    root, victim = msprobe_dump(tmp_path)
    moved = str(tmp_path / "dump.json")
    os.rename(victim, moved)
    if kind == "dangling":
        os.symlink(str(tmp_path / "nothing.json"), victim)
    elif kind == "link":
        os.symlink(moved, victim)
    else:
        os.mkfifo(victim)
    rc, doc, err = sd.scan(cli, root)
    assert rc == 1, err
    one_not_judged(doc, "r1", victim,
                   "FIFO" if kind == "fifo" else "symbolic link")
    reconciles(doc, 2)


def test_msprobe_deep_member_is_named(cli, tmp_path):
    root, victim = msprobe_dump(tmp_path)
    text = open(victim).read()
    deep = "[" * 300 + "]" * 300
    text = text.replace('"data": {', '"data": {"deep": %s, ' % deep, 1)
    open(victim, "w").write(text)
    rc, doc, err = sd.scan(cli, root)
    assert rc == 2
    assert "nested deeper than" in err and "malformed JSON" not in err


# ---- ops-test-kit --------------------------------------------------------------

def test_ttk_linked_case_not_judged(cli, tmp_path):
    root = str(tmp_path / "manual")
    call, name = MANUAL.case(MANUAL.SAMPLE), MANUAL.OP_TYPE + "_1"
    MANUAL.ttk(call, root, MANUAL.OP_TYPE + "_0")
    victim = MANUAL.ttk(call, root, name)
    link_in_place(victim, str(tmp_path / name))
    rc, doc, err = sd.scan(cli, root, *sd.attr_args(call))
    assert rc == 1, err
    one_not_judged(doc, name, "is a symbolic link")
    reconciles(doc, 2)


def ttk_csv_dump(tmp_path):
    root = str(tmp_path / "manual_data")
    rows = [sd.write_ttk_e2e(E2E, E2E.case(E2E.SAMPLE), root, "honest"),
            sd.write_ttk_e2e(E2E, E2E.case(E2E.SAMPLE), root, "victim")]
    return root, rows


@pytest.mark.parametrize("cell,value,words", [
    ("tensor_view_shapes", "negative", ["-3"]),
    ("tensor_view_shapes", "huge", ["77371252455336267181195264"]),
    ("attributes", "long", ["attributes"]),
    ("output_tensor_indexes", "(0, 1)", ["output_tensor_indexes"]),
    (None, "no row", ["no row whose testcase_name is victim"]),
])
def test_ttk_csv_bad_row_not_judged(cli, tmp_path, cell, value, words):
    root, rows = ttk_csv_dump(tmp_path)
    victim = rows[1]
    if cell is None:
        rows = rows[:1]
    elif value == "negative":
        victim[cell] = victim[cell].replace("((", "((-3, ", 1)
    elif value == "huge":
        victim[cell] = victim[cell].replace("((", "((%d, " % (2 ** 86), 1)
    elif value == "long":
        victim[cell] = repr({"cache_mode": "P" * 1000})
    else:
        victim[cell] = value
    csv = sd.write_ttk_csv(str(tmp_path / "cases.csv"), rows)
    rc, doc, err = sd.scan(cli, root, "--csv", csv)
    assert rc == 1, err
    one_not_judged(doc, "victim", *words)
    reconciles(doc, 2)


# ---- the PATH itself -------------------------------------------------------------

def test_scan_fifo_and_device_say_what_they_are(cli, tmp_path):
    fifo = str(tmp_path / "pipe")
    os.mkfifo(fifo)
    for path, what in ((fifo, "is a FIFO"),
                       ("/dev/zero", "is a character device")):
        rc, doc, err = sd.scan(cli, path)
        assert rc == 2 and what in err, err
        assert "No such file" not in err


def test_ttk_device_outputs_in_another_format_not_passed_over(cli, tmp_path):
    """A .npy case whose device outputs are .bin files: the goldens must
    not be judged in their place."""
    root = str(tmp_path / "manual")
    call, name = MANUAL.case(MANUAL.SAMPLE), MANUAL.OP_TYPE + "_1"
    MANUAL.ttk(call, root, MANUAL.OP_TYPE + "_0")
    victim = MANUAL.ttk(call, root, name)
    # faulty device outputs (a byte of each changed), written as .bin
    # beside the .npy goldens
    goldens = sorted(n for n in os.listdir(victim)
                     if n.startswith("golden_") and n.endswith(".npy"))
    assert goldens
    for n in goldens:
        data = bytearray(sd.np.load(os.path.join(victim, n)).tobytes())
        data[0] ^= 0x40
        with open(os.path.join(victim, "output_" + n[len("golden_"):-4] +
                               ".bin"), "wb") as f:
            f.write(bytes(data))
    rc, doc, err = sd.scan(cli, root, *sd.attr_args(call))
    assert rc == 1, err
    one_not_judged(doc, name, "output_" + goldens[0][len("golden_"):-4] +
                   ".bin", "another format")
    reconciles(doc, 2)
