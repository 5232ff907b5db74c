"""kvgold scan --csv over ops-test-kit .bin case directories whose input
shapes, dtypes and attributes live only in its testcase CSV (written by
our own writer, scan_dumps.write_ttk_e2e / write_ttk_csv, from the
format of ops-test-kit's examples/case_store/e2e/*.csv and its
field_parser; and kernel-mode CSVs, ops-test-kit's examples/case_store/
kernel/*.csv with its TestcaseOp's reading of input_dtypes): the e2e slot
order of every operator's torch_npu API and the kernel's order of a
kernel-mode row, honest cases pass, a planted fault is found in its case
and named, and a CSV that is malformed or contradicts the files is named
by file, line and column. Each operator's own CSV cases (its faults, its
attributes, its dtypes) are in tests/ops/<op>/."""
import ast
import os
import sys

import pytest

import kvgold.ops

sys.path.insert(0, os.path.dirname(__file__))
import scan_dumps as sd  # noqa: E402
from prepared import check_prepared, prepare, read_rows  # noqa: E402
from ttk_support import TTK_E2E_OUTPUTS  # noqa: E402

# every operator with an ops-test-kit e2e form: their SAMPLE calls, and
# the first one's with a planted fault
E2E = sd.every("E2E_API", "SAMPLE")
KERNEL = sd.every("KERNEL", "IN", "SAMPLE")
FIRST = E2E[0]


def build(tmp_path):
    """manual_data/ with .bin e2e cases of every operator, one with a
    fault, and cases.csv. Returns the root, the CSV, its rows and the
    expected {testcase: (op, verdict, reason prefix)}."""
    root = str(tmp_path / "manual_data")
    rows = [sd.write_ttk_e2e(w, w.case(w.SAMPLE), root,
                             "%s_%d" % (w.ALIAS, i))
            for i, w in enumerate(E2E)]
    want = {r["testcase_name"]: (w.OP, "PASS", None)
            for r, w in zip(rows, E2E)}
    bad = FIRST.case(FIRST.SAMPLE)
    planted = sd.plant_fault(bad)
    name = "%s_bad_%d" % (FIRST.ALIAS, len(rows))
    rows.append(sd.write_ttk_e2e(FIRST, bad, root, name))
    want[name] = (FIRST.OP, "FAIL", planted + ":")
    csv = sd.write_ttk_csv(str(tmp_path / "cases.csv"), rows)
    return root, csv, rows, want


def check(doc, want):
    got = {c["id"]: c for c in doc["calls"]}
    assert sorted(got) == sorted(want)
    for name, (op, verdict, reason) in want.items():
        c = got[name]
        assert (c["op"], c["verdict"]) == (op, verdict), (name, c["reason"])
        if reason is not None:
            assert c["reason"].startswith(reason), (name, c["reason"])


def test_csv_judges_bin_cases(cli, tmp_path):
    root, csv, rows, want = build(tmp_path)
    rc, doc, err = sd.scan(cli, root, "--csv", csv, "--standard", "single")
    assert rc == 1, err
    assert doc["format"] == "ttk"
    check(doc, want)
    # the call's API is the CSV's api_name
    apis = {c["id"]: c["api"] for c in doc["calls"]}
    assert apis == {r["testcase_name"]: r["api_name"] for r in rows}


def test_without_csv_bin_cases_are_not_judged(cli, tmp_path):
    root, csv, rows, want = build(tmp_path)
    rc, doc, err = sd.scan(cli, root, "--standard", "single")
    # the directory names say no operator: nothing is judged
    assert rc == 1
    assert doc["calls"] == []
    assert doc["other_calls"] == len(want)


def test_csv_shape_contradicting_the_file(cli, tmp_path):
    root, csv, rows, want = build(tmp_path)
    r = rows[0]
    name = r["testcase_name"]
    # tensor 0 said to have half its last dimension: half the bytes
    shapes = ast.literal_eval(r["tensor_view_shapes"])
    whole = shapes[0]
    assert whole is not None and whole[-1] % 2 == 0
    shapes = (whole[:-1] + (whole[-1] // 2,),) + shapes[1:]
    r["tensor_view_shapes"] = repr(shapes)
    sd.write_ttk_csv(csv, rows)
    rc, doc, err = sd.scan(cli, root, "--csv", csv)
    c = {c["id"]: c for c in doc["calls"]}[name]
    assert c["verdict"] == "NOT_JUDGED"
    # names the CSV's line (the first testcase: line 2) and the file
    assert c["reason"].startswith(csv + ": line 2 (testcase %s): tensor "
                                  "0 is " % name), c["reason"]
    tag, arr = FIRST.case(FIRST.SAMPLE).inputs[FIRST.E2E_IN[0]]
    assert "%s/input_0_%s.bin has %d" % (name, sd.TTK_DTYPE[tag],
                                         arr.nbytes) in c["reason"]


def test_csv_dtype_and_count_contradicting_the_files(cli, tmp_path):
    root, csv, rows, want = build(tmp_path)
    a, b = rows[0], rows[-1]
    dtypes = ast.literal_eval(a["tensor_dtypes"])
    was = dtypes[0]
    other = "float32" if was != "float32" else "float16"
    a["tensor_dtypes"] = repr((other,) + tuple(dtypes[1:]))
    # one tensor more than the case directory holds
    n_in = len([f for f in os.listdir(os.path.join(root, b["testcase_name"]))
                if f.startswith("input_")])
    b["tensor_view_shapes"] = repr(
        ast.literal_eval(b["tensor_view_shapes"]) + ((1,),))
    b["tensor_dtypes"] = repr(ast.literal_eval(b["tensor_dtypes"]) +
                              ("int32",))
    sd.write_ttk_csv(csv, rows)
    rc, doc, err = sd.scan(cli, root, "--csv", csv)
    c = {c["id"]: c for c in doc["calls"]}
    ca, cb = c[a["testcase_name"]], c[b["testcase_name"]]
    assert ca["verdict"] == "NOT_JUDGED"
    assert "tensor 0 is %s, " % other in ca["reason"], ca["reason"]
    assert "%s/input_0_%s.bin says %s" % (a["testcase_name"], was, was) in \
        ca["reason"], ca["reason"]
    assert cb["verdict"] == "NOT_JUDGED"
    assert "tensor_view_shapes declares %d tensors" % (n_in + 1) in \
        cb["reason"], cb["reason"]
    assert "has %d input slots" % n_in in cb["reason"]


def test_case_without_a_row(cli, tmp_path):
    root, csv, rows, want = build(tmp_path)
    name = rows[0]["testcase_name"]
    sd.write_ttk_csv(csv, rows[1:])
    rc, doc, err = sd.scan(cli, root, "--csv", csv, "--op", FIRST.OP)
    c = {c["id"]: c for c in doc["calls"]}
    assert c[name]["verdict"] == "NOT_JUDGED"
    assert "the testcase CSV has no row whose testcase_name is %s" % name \
        in c[name]["reason"]
    # without --op too: a case the CSV does not describe is unknown, not
    # "another operator"
    rc, doc, err = sd.scan(cli, root, "--csv", csv)
    assert rc == 1
    c = {c["id"]: c for c in doc["calls"]}
    assert c[name]["verdict"] == "NOT_JUDGED"
    assert doc["other_calls"] == 0


def test_duplicate_row_is_ambiguous(cli, tmp_path):
    root, csv, rows, want = build(tmp_path)
    name = rows[0]["testcase_name"]
    sd.write_ttk_csv(csv, rows + [dict(rows[0])])
    rc, doc, err = sd.scan(cli, root, "--csv", csv)
    c = {c["id"]: c for c in doc["calls"]}[name]
    assert c["verdict"] == "NOT_JUDGED"
    assert c["reason"].startswith(
        csv + ": line 2 (testcase %s): line %d has the same testcase_name"
        % (name, len(rows) + 2)), c["reason"]


def test_unknown_attribute_is_not_guessed(cli, tmp_path):
    root, csv, rows, want = build(tmp_path)
    assert "compress_type" not in FIRST.E2E_ATTRS
    rows[0]["attributes"] = "{'compress_type': 'ALIBI'}"
    sd.write_ttk_csv(csv, rows)
    rc, doc, err = sd.scan(cli, root, "--csv", csv)
    c = {c["id"]: c for c in doc["calls"]}[rows[0]["testcase_name"]]
    assert c["verdict"] == "NOT_JUDGED"
    assert "attributes: compress_type is no argument of %s" % \
        FIRST.E2E_API in c["reason"], c["reason"]


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
    root, csv, rows, want = build(tmp_path)
    with open(csv, "w", encoding="utf-8") as f:
        f.write(text)
    rc, doc, err = sd.scan(cli, root, "--csv", csv)
    assert rc == 2
    assert doc is None
    assert where in err, err
    assert csv in err


def test_csv_needs_ttk(cli, tmp_path):
    root, csv, rows, want = build(tmp_path)
    atb = str(tmp_path / "atb")
    w = sd.first("atb", "ATB_OP", "SAMPLE")
    w.atb(w.case(w.SAMPLE), atb, "0_" + w.ATB_OP)
    rc, doc, err = sd.scan(cli, atb, "--csv", csv)
    assert rc == 2
    assert "--csv is ops-test-kit's testcase CSV, and this dump is atb" \
        in err


def test_unreadable_csv(cli, tmp_path):
    root, csv, rows, want = build(tmp_path)
    rc, doc, err = sd.scan(cli, root, "--csv", str(tmp_path / "none.csv"))
    assert rc == 2
    assert "none.csv" in err


def test_header_names_both_forms(cli, tmp_path):
    """A CSV without the shapes column names what each of ops-test-kit's
    two forms starts with; one with both cannot say which it is."""
    root, csv, rows, want = build(tmp_path)
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
    attributes the kernel's. Every operator's SAMPLE passes, a planted
    fault fails."""
    root = str(tmp_path / "manual")
    rows = [sd.write_kernel(w, w.case(w.SAMPLE), root, "k_%s_%d" % (
        w.ALIAS, i)) for i, w in enumerate(KERNEL)]
    want = {r["testcase_name"]: (w.OP, "PASS") for r, w in zip(rows, KERNEL)}
    bad = KERNEL[0].case(KERNEL[0].SAMPLE)
    planted = sd.plant_fault(bad)
    rows.append(sd.write_kernel(KERNEL[0], bad, root, "k_bad"))
    want["k_bad"] = (KERNEL[0].OP, "FAIL")
    csv = sd.write_kernel_csv(str(tmp_path / "kernel.csv"), rows)
    rc, doc, err = sd.scan(cli, root, "--csv", csv, "--standard", "single")
    assert rc == 1, err
    got = {c["id"]: c for c in doc["calls"]}
    assert {k: (c["op"], c["verdict"]) for k, c in got.items()} == want
    for r, w in zip(rows, KERNEL):
        assert got[r["testcase_name"]]["api"] == w.KERNEL  # its op_name
    assert got["k_bad"]["reason"].startswith(planted + ":")


# ---- kvgold prepare --csv: the CSV of the directories it writes ----------

PREPARED = [(w, w.SAMPLE) for w in E2E]


def test_prepare_csv_rows(cli, tmp_path):
    out, csv, rows = check_prepared(cli, tmp_path, PREPARED)
    # a golden byte changed fails, naming the tensor of that golden
    w, name = PREPARED[0]
    goldens = sorted(n for n in os.listdir(os.path.join(out, name))
                     if n.startswith("golden_") and "_none" not in n)
    g = os.path.join(out, name, goldens[-1])
    data = bytearray(open(g, "rb").read())
    data[-1] ^= 0x40
    open(g, "wb").write(bytes(data))
    rc, doc, err = sd.scan(cli, out, "--csv", csv)
    got = {c["id"]: c for c in doc["calls"]}
    returned, slots = TTK_E2E_OUTPUTS[w.E2E_API]
    names = [n for n in returned + tuple(w.E2E_IN[s] for s in slots)]
    last = names[int(goldens[-1].split("_")[1])]
    assert got[name]["verdict"] == "FAIL"
    assert got[name]["reason"].startswith(last + ":"), got[name]["reason"]
    assert rc == 1


def _slots(t):
    return "(%s)" % ", ".join(str(s) for s in t)


def test_prepare_csv_inplace_checked(cli, tmp_path):
    """A row whose inplace_input_indexes are not the slots the API writes
    in place would make ops-test-kit compare other tensors with the
    goldens: scan says so and does not judge the call; the last row,
    left as it was, passes."""
    import csv as pycsv
    out, csv = str(tmp_path / "manual"), str(tmp_path / "cases.csv")
    p = prepare(cli, out, csv, PREPARED)
    assert p.returncode == 0, p.stderr
    rows = read_rows(csv)
    wrong = {}
    for (w, name), r in zip(PREPARED[:-1], rows):
        right = TTK_E2E_OUTPUTS[w.E2E_API][1]
        bad = tuple(s + 1 for s in right) if right else (0, 1)
        r["inplace_input_indexes"] = repr(bad)
        wrong[name] = "inplace_input_indexes is %s; %s writes slots %s in " \
            "place" % (_slots(bad), w.E2E_API, _slots(right))
    with open(csv, "w", newline="", encoding="utf-8") as f:
        wr = pycsv.DictWriter(f, fieldnames=list(rows[0]))
        wr.writeheader()
        wr.writerows(rows)
    rc, doc, err = sd.scan(cli, out, "--csv", csv)
    got = {c["id"]: c for c in doc["calls"]}
    for name, says in wrong.items():
        assert got[name]["verdict"] == "NOT_JUDGED"
        assert says in got[name]["reason"], got[name]["reason"]
    assert got[PREPARED[-1][1]]["verdict"] == "PASS"


def test_prepare_csv_all_or_nothing(cli, tmp_path):
    out, csv = str(tmp_path / "manual"), str(tmp_path / "cases.csv")
    with open(csv, "w") as f:
        f.write("poison\n")
    # a case prepare refuses (an operator without a torch_npu API):
    # neither the directories nor the CSV
    none = [w for w in sd.every("SAMPLE")
            if not kvgold.ops.TORCH_NPU_CALLS.get(w.OP)]
    assert none, "every operator has a torch_npu API"
    p = prepare(cli, out, csv, PREPARED[:2] + [(none[0], none[0].SAMPLE)])
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
