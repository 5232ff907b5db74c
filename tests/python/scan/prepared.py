"""`kvgold prepare --csv` for the scan tests: the ops-test-kit directories
and testcase CSV it writes for some vector cases, each row checked against
the case (tests/python/scan/test_scan_ttk_csv.py, and each operator's
prepared cases in tests/ops/<op>/)."""
import ast
import csv as pycsv
import os
import subprocess

import scan_dumps as sd
from ttk_support import TTK_E2E_OUTPUTS


def prepare(cli, out, csv, cases):
    """Run kvgold prepare on `cases`, (writer module, case name) pairs."""
    return subprocess.run(
        [cli, "prepare"] + [os.path.join(sd.VECTORS, m.OP, c)
                            for m, c in cases] + ["--out", out, "--csv", csv],
        capture_output=True, text=True, env=sd.cli_env())


def read_rows(csv):
    with open(csv, newline="", encoding="utf-8") as f:
        return list(pycsv.DictReader(f))


def check_prepared(cli, tmp_path, cases):
    """Prepare `cases` and check each row of the CSV against its case:
    the API, every tensor argument in signature order (None where the
    case has none), the in-place slots, the goldens, the attributes; then
    scan reads them back and every call passes. Returns (out, csv,
    rows)."""
    out, csv = str(tmp_path / "manual"), str(tmp_path / "cases.csv")
    p = prepare(cli, out, csv, cases)
    assert p.returncode == 0, p.stderr
    rows = read_rows(csv)
    assert [r["testcase_name"] for r in rows] == [c for _, c in cases]
    for (mod, name), r in zip(cases, rows):
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
        values = getattr(mod, "E2E_VALUES", {})  # the API's spellings
        for k, v in call.attrs.items():
            if k in mod.E2E_ATTRS:
                want = values[k].get(v, v) if k in values else v
                assert attrs[k] == want, (name, k)
    # and scan reads them back: kvgold against itself passes
    rc, doc, err = sd.scan(cli, out, "--csv", csv)
    assert rc == 0, err
    assert [c["verdict"] for c in doc["calls"]] == ["PASS"] * len(cases)
    return out, csv, rows
