"""kvgold.ttk, the ops-test-kit plug-in: what ops-test-kit's loaders read
from the file without running it, the rules its validator applies, and
each golden / third party called as its e2e path calls it (docs/ttk.md
cites the loader code these rules come from). Expected values are the
cases' "expected" tensors, from the NumPy generator."""
import ast
import importlib.util
import os

import pytest

import kvgold
import kvgold.ttk as kt
from conftest import VECTORS, example, expected_bits

APIS = {"torch_npu.npu_kv_rmsnorm_rope_cache",
        "torch_npu.npu_kv_rmsnorm_rope_cache_v2",
        "torch_npu.npu_qkv_rms_norm_rope_cache",
        "torch_npu._npu_reshape_and_cache",
        "torch_npu.npu_scatter_pa_kv_cache"}
# ops-test-kit passes its metadata as keywords too
META = dict(dtypes=["float16"], shapes=[(1,)], formats=["ND"],
            soc_version="Ascend910B3")


def module_literal(name):
    """The module-level `name = {...}` of kvgold/ttk.py as a literal, read
    from the source as ops-test-kit's scanners read it (ast, no exec)."""
    with open(kt.__file__, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    found = [n for n in tree.body if isinstance(n, ast.Assign)
             and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
             and n.targets[0].id == name]
    assert len(found) == 1, name
    return ast.literal_eval(found[0].value)


def exec_standalone(module_name):
    """The file executed as ops-test-kit executes a plug-in: from its
    path, outside any package, not entered in sys.modules."""
    spec = importlib.util.spec_from_file_location(module_name, kt.__file__)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_file_name_is_scanned():
    # both scanners skip files whose name starts with "_"
    assert not os.path.basename(kt.__file__).startswith("_")


def test_spec_table_names_classes_with_golden_and_third_party():
    spec = module_literal("__spec__")
    assert set(spec) == APIS
    module = exec_standalone("ttk_test_spec_ttk_1")
    for api, cls_name in spec.items():
        assert isinstance(cls_name, str)
        cls = getattr(module, cls_name)
        assert isinstance(cls, type)
        # the validator: golden / third_party are str, dict, a class or a
        # callable; nothing else is declared
        for attr in ("golden", "third_party"):
            value = getattr(cls, attr)
            assert callable(value) and not isinstance(value, type), attr
        assert not hasattr(cls, "tolerance")   # the CLI's --compare rules


def test_golden_table_is_literal_and_resolves():
    golden = module_literal("__golden__")
    assert set(golden) == {"e2e"}
    assert set(golden["e2e"]) == APIS
    module = exec_standalone("ttk")   # the scanner names it by file stem
    spec = module_literal("__spec__")
    for api, fn_name in golden["e2e"].items():
        fn = getattr(module, fn_name)
        assert callable(fn)
        assert getattr(module, spec[api]).golden is fn


def torch_inputs(c):
    return {n: kvgold.to_torch(v) for n, v in c.inputs.items()}


def bits(t, tag):
    return kvgold.tensor(t, tag).tobytes()


@pytest.mark.parametrize("attr", ["golden", "third_party"])
def test_kv_as_ttk_calls_it(attr):
    fn = getattr(exec_standalone("ttk"), "KvgoldKvRmsNormRopeCacheTestSpec")
    fn = getattr(fn, attr)
    c = kvgold.load_case(example("deepseek_mla_decode"))   # an a2a3 case
    t = torch_inputs(c)
    before = {n: bits(v, c.dtypes[n]) for n, v in t.items()}
    out = fn(t["kv"], t["gamma"], t["cos"], t["sin"], t["index"],
             t["k_cache"], t["ckv_cache"], None, t["c_kv_scale"], None, None,
             epsilon=c.attrs["epsilon"], cache_mode=c.attrs["cache_mode"],
             **META)
    assert isinstance(out, list) and len(out) == 4
    assert bits(out[0], "bf16") == expected_bits(c, "k_cache")
    assert bits(out[1], "int8") == expected_bits(c, "ckv_cache")
    assert out[2] is None and out[3] is None
    # golden and third party never write the NPU's inputs
    assert {n: bits(v, c.dtypes[n]) for n, v in t.items()} == before
    assert before["k_cache"] != expected_bits(c, "k_cache")


def test_soc_version_selects_the_profile():
    """kv_rms_norm_rope_cache's profile follows ops-test-kit's soc_version;
    a chip kvgold does not model is left to kvgold's default."""
    assert kt._profile({"soc_version": "Ascend950PR_9599"}) == "950"
    assert kt._profile({"soc_version": "Ascend910B3"}) == "a2a3"
    assert kt._profile({"soc_version": "Ascend910_9391"}) == "a2a3"
    assert kt._profile({}) is None


def test_qkv_in_torch_npu_positional_order():
    c = kvgold.load_case(example("qwen3_qkv_decode"))
    t = torch_inputs(c)
    a = c.attrs
    args = [t.get(n) for n in ("qkv", "q_gamma", "k_gamma", "cos", "sin",
                               "index", "q_out", "k_cache", "v_cache")]
    kw = dict(k_scale=t.get("k_scale"), v_scale=t.get("v_scale"),
              k_offset=t.get("k_offset"), v_offset=t.get("v_offset"),
              epsilon=a["epsilon"], cache_mode=a["cache_mode"],
              is_output_qkv=a.get("is_output_qkv", False))
    # positional qkv_size / head_nums as torch_npu takes them, and as
    # keywords (ops-test-kit's convention for attributes)
    r1 = kt.qkv_rms_norm_rope_cache_golden(
        *args, a["qkv_size"], a["head_nums"], **kw, **META)
    r2 = kt.qkv_rms_norm_rope_cache_golden(
        *args, qkv_size=a["qkv_size"], head_nums=a["head_nums"], **kw)
    for r in (r1, r2):
        assert len(r) == 6
        for i, n in enumerate(("q_out", "k_cache", "v_cache")):
            assert bits(r[3 + i], c.dtypes[n]) == expected_bits(c, n), n


def test_reshape_and_cache_goldens_are_the_caches():
    c = kvgold.load_case(VECTORS + "/reshape_and_cache/nd_int8")
    t = torch_inputs(c)
    r = kt.reshape_and_cache_golden(t["key"], t["value"], t["key_cache"],
                                    t["value_cache"], t["slot_mapping"],
                                    **META)
    assert len(r) == 2
    assert bits(r[0], c.dtypes["key_cache"]) == expected_bits(c, "key_cache")
    assert bits(r[1], c.dtypes["value_cache"]) == \
        expected_bits(c, "value_cache")


def test_kv_v2_goldens():
    c = kvgold.load_case(
        VECTORS + "/kv_rms_norm_rope_cache/v2_a2a3_pa_nz_bf16_int8_asym_n2")
    t = torch_inputs(c)
    a = c.attrs
    before = bits(t["k_cache"], c.dtypes["k_cache"])
    names = ("kv", "gamma", "cos", "sin", "index", "k_cache", "ckv_cache",
             "k_rope_scale", "c_kv_scale", "k_rope_offset", "c_kv_offset")
    out = kt.kv_rmsnorm_rope_cache_v2_golden(
        *[t.get(n) for n in names], v=t["v"], epsilon=a["epsilon"],
        cache_mode=a["cache_mode"], is_output_kv=a["is_output_kv"],
        **dict(META, soc_version="Ascend910_9391"))
    assert len(out) == 4
    for i, n in enumerate(("k_rope", "c_kv", "k_cache", "ckv_cache")):
        assert bits(out[i], c.dtypes.get(n, "bf16")) == expected_bits(c, n), n
    assert bits(t["k_cache"], c.dtypes["k_cache"]) == before   # untouched


def test_kv_v1_unwritten_outputs_are_not_judged():
    """Without is_output_kv torch_npu leaves k_rope / c_kv unwritten:
    their goldens are None, which ops-test-kit leaves uncompared."""
    c = kvgold.load_case(example("deepseek_mla_decode"))
    assert not c.attrs.get("is_output_kv")
    t = torch_inputs(c)
    out = kt.kv_rmsnorm_rope_cache_golden(
        t["kv"], t["gamma"], t["cos"], t["sin"], t["index"], t["k_cache"],
        t["ckv_cache"], c_kv_scale=t["c_kv_scale"],
        epsilon=c.attrs["epsilon"], cache_mode=c.attrs["cache_mode"])
    assert out[2] is None and out[3] is None


def test_scatter_goldens_are_the_caches():
    c = kvgold.load_case(VECTORS + "/scatter_pa_kv_cache/norm_bf16")
    t = torch_inputs(c)
    r = kt.scatter_pa_kv_cache_golden(
        t["key"], t["value"], t["key_cache"], t["value_cache"],
        t["slot_mapping"], cache_mode=c.attrs.get("cache_mode", "Norm"),
        **META)
    assert len(r) == 2
    assert bits(r[0], "bf16") == expected_bits(c, "key_cache")
    assert bits(r[1], "bf16") == expected_bits(c, "value_cache")


def test_argument_mistakes_are_refused():
    c = kvgold.load_case(VECTORS + "/reshape_and_cache/nd_int8")
    t = torch_inputs(c)
    args = (t["key"], t["value"], t["key_cache"], t["value_cache"],
            t["slot_mapping"])
    with pytest.raises(TypeError):
        kt.reshape_and_cache_golden(*args, t["key"])        # one too many
    with pytest.raises(TypeError):
        kt.reshape_and_cache_golden(*args[:4], slot_indices=args[4],
                                    key=args[0])          # given twice
    with pytest.raises(TypeError):
        kt.reshape_and_cache_golden(*args, 3)             # no such attr


def test_goldens_line_up_with_prepare(tmp_path, cli):
    """The plug-in's golden list and `kvgold prepare`'s golden_<i> files
    are the same tensors in the same order, so a replay judges the files
    it prepared with the same meaning."""
    import subprocess
    from conftest import cli_env
    case = example("deepseek_mla_decode")
    r = subprocess.run([cli, "prepare", case, "--out", str(tmp_path)],
                       capture_output=True, text=True, env=cli_env())
    assert r.returncode == 0, r.stderr
    # deepseek_mla_decode carries kvgold's profile option, which the
    # torch_npu API cannot express; prepare computes it as the case says
    c = kvgold.load_case(case)
    t = torch_inputs(c)
    out = kt.kv_rmsnorm_rope_cache_golden(
        t["kv"], t["gamma"], t["cos"], t["sin"], t["index"], t["k_cache"],
        t["ckv_cache"], c_kv_scale=t["c_kv_scale"],
        epsilon=c.attrs["epsilon"], cache_mode=c.attrs["cache_mode"],
        soc_version="Ascend910B3")
    files = sorted(os.listdir(tmp_path / "deepseek_mla_decode"))
    goldens = [f for f in files if f.startswith("golden_")]
    assert len(goldens) == len(out)
    for i, value in enumerate(out):
        name = [f for f in goldens if f.startswith("golden_%d_" % i)]
        assert len(name) == 1
        data = (tmp_path / "deepseek_mla_decode" / name[0]).read_bytes()
        if value is None:
            assert name[0].endswith("_none.bin") and data == b""
        else:
            tag = ("bf16", "int8")[i]
            assert data == bits(value, tag)


def test_doc_examples_run():
    """Every ```python block of docs/ttk.md runs from the repository root."""
    import re
    import subprocess
    import sys
    docs = os.environ.get("KVG_DOCS_DIR", os.path.join(
        os.path.dirname(__file__), "..", "..", "docs"))
    with open(os.path.join(docs, "ttk.md")) as f:
        blocks = re.findall(r"^```python\n(.*?)^```$", f.read(),
                            re.S | re.M)
    assert blocks
    for code in blocks:
        p = subprocess.run([sys.executable, "-c", code],
                           cwd=os.path.dirname(os.path.abspath(docs)),
                           capture_output=True, text=True)
        assert p.returncode == 0, p.stdout + p.stderr
