"""The option `overflow` (every operator's spelling) and its older
KvRmsNormRopeCache spelling `quant_overflow`: both give the same bytes in
a call, a Python keyword and a case file; giving both is refused."""
import json
import os
import shutil
import subprocess

import pytest

import kvgold
from conftest import cli_env, expected_bits

NONSAT = "%s/kv_rms_norm_rope_cache/nonsat_hif8_pa"


def _case():
    return kvgold.load_case(NONSAT % os.environ["KVG_VECTORS_DIR"])


def _bits(out, c):
    return {n: kvgold.tensor(out[n], c.dtypes.get(n)).tobytes()
            for n in ("k_cache", "ckv_cache")}


def _optional(t):
    """The case's optional inputs, as the function's keywords."""
    return {n: t[n] for n in ("k_rope_scale", "c_kv_scale", "k_rope_offset",
                              "c_kv_offset", "v") if n in t}


def _expected(c):
    return {n: expected_bits(c, n) for n in ("k_cache", "ckv_cache")}


def test_the_vector_uses_the_canonical_spelling():
    c = _case()
    assert c.options == {"overflow": "nonsat"}


@pytest.mark.parametrize("key", ["overflow", "quant_overflow"])
def test_run_either_spelling_gives_the_vector(key):
    c = _case()
    out = kvgold.run(c.op, c.inputs, c.attrs, {key: "nonsat"},
                     dtypes=c.dtypes)
    assert _bits(out, c) == _expected(c)


def test_the_option_matters_here():
    # without it (saturate) the hif8 caches differ: the spellings above are
    # really read, not ignored
    c = _case()
    out = kvgold.run(c.op, c.inputs, c.attrs, {}, dtypes=c.dtypes)
    assert _bits(out, c) != _expected(c)


def test_run_both_spellings_refused():
    c = _case()
    with pytest.raises(kvgold.Error) as e:
        kvgold.run(c.op, c.inputs, c.attrs,
                   {"overflow": "nonsat", "quant_overflow": "nonsat"},
                   dtypes=c.dtypes)
    assert e.value.status == 161002
    assert "given twice" in str(e.value)


@pytest.mark.parametrize("key", ["overflow", "quant_overflow"])
def test_keyword_either_spelling(key):
    c = _case()
    t = {n: kvgold.to_torch(v) for n, v in c.inputs.items()}
    kvgold.npu_kv_rmsnorm_rope_cache(
        t["kv"], t["gamma"], t["cos"], t["sin"], t["index"], t["k_cache"],
        t["ckv_cache"], epsilon=c.attrs["epsilon"],
        cache_mode=c.attrs["cache_mode"],
        is_output_kv=c.attrs.get("is_output_kv", False),
        dtypes=c.dtypes, **_optional(t), **{key: "nonsat"})
    got = {n: kvgold.tensor(t[n], c.dtypes.get(n)).tobytes()
           for n in ("k_cache", "ckv_cache")}
    assert got == _expected(c)


def test_keyword_both_refused():
    c = _case()
    t = {n: kvgold.to_torch(v) for n, v in c.inputs.items()}
    before = {n: t[n].numpy().tobytes() for n in ("k_cache", "ckv_cache")}
    with pytest.raises(kvgold.Error) as e:
        kvgold.npu_kv_rmsnorm_rope_cache(
            t["kv"], t["gamma"], t["cos"], t["sin"], t["index"],
            t["k_cache"], t["ckv_cache"], epsilon=c.attrs["epsilon"],
            cache_mode=c.attrs["cache_mode"], dtypes=c.dtypes,
            overflow="nonsat", quant_overflow="nonsat", **_optional(t))
    assert "given twice" in str(e.value)
    assert {n: t[n].numpy().tobytes()
            for n in ("k_cache", "ckv_cache")} == before


def _copy_with_options(tmp_path, options):
    src = NONSAT % os.environ["KVG_VECTORS_DIR"]
    dst = tmp_path / "case"
    shutil.copytree(src, dst)
    doc = json.loads((dst / "case.json").read_text())
    doc["options"] = options
    (dst / "case.json").write_text(json.dumps(doc, indent=2))
    return str(dst)


def _check(cli, d):
    return subprocess.run([cli, "check", d], capture_output=True, text=True,
                          timeout=120, env=cli_env())


def test_case_file_old_spelling_gives_the_vector(tmp_path, cli):
    # `kvgold check` runs the case through the harness's case loader and
    # requires the expected bytes, which are the nonsat ones
    p = _check(cli, _copy_with_options(tmp_path,
                                       {"quant_overflow": "nonsat"}))
    assert p.returncode == 0, p.stdout + p.stderr


def test_case_file_old_spelling_is_really_read(tmp_path, cli):
    p = _check(cli, _copy_with_options(tmp_path,
                                       {"quant_overflow": "saturate"}))
    assert p.returncode != 0 and "FAIL" in p.stdout + p.stderr, \
        p.stdout + p.stderr


def test_case_file_both_spellings_refused(tmp_path, cli):
    p = _check(cli, _copy_with_options(
        tmp_path, {"overflow": "nonsat", "quant_overflow": "nonsat"}))
    assert p.returncode == 2 and "invalid case" in p.stderr, p.stderr
    assert "options.overflow and options.quant_overflow are the same " \
        "option" in p.stderr, p.stderr
