"""kvgold.npu_kv_rmsnorm_rope_cache_v2 (kvgold.ops) through kvgold.run's
call plans (kvgold/_plan.py; the plans' generic tests are
tests/python/test_plan.py): every repeated call of the deepseek example
gives the expected caches in place, the second and third through the
plan."""
import pytest

import kvgold
from conftest import example

torch = pytest.importorskip("torch")
DS = kvgold.load_case(example("deepseek_mla_decode"))


def test_the_npu_function_through_plans(hits):
    for _ in range(3):
        t = {n: kvgold.to_torch(v) for n, v in DS.inputs.items()}
        k_rope, c_kv = kvgold.npu_kv_rmsnorm_rope_cache_v2(
            t["kv"], t["gamma"], t["cos"], t["sin"], t["index"],
            t["k_cache"], t["ckv_cache"], c_kv_scale=t["c_kv_scale"],
            epsilon=DS.attrs["epsilon"], cache_mode=DS.attrs["cache_mode"],
            profile=DS.options["profile"])
        assert torch.isnan(k_rope.float()).all()
        for n in ("k_cache", "ckv_cache"):
            assert kvgold.tensor(t[n], DS.dtypes[n]).tobytes() == \
                DS.expected[n].tobytes()
    assert len(hits) == 2
