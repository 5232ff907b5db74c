"""kvgold.npu_qkv_rms_norm_rope_cache (kvgold.ops) through kvgold.run's
call plans (kvgold/_plan.py; the plans' generic tests are
tests/python/test_plan.py): every repeated functional call of the qwen3
example gives the expected outputs and leaves the given caches as they
were, the second and third through the plan."""
import pytest

import kvgold
from conftest import example

pytest.importorskip("torch")
QWEN = kvgold.load_case(example("qwen3_qkv_decode"))


def test_the_npu_function_through_plans(hits):
    for _ in range(3):
        q = {n: kvgold.to_torch(v) for n, v in QWEN.inputs.items()}
        before = kvgold.tensor(q["k_cache"], "int8").tobytes()
        out = kvgold.npu_qkv_rms_norm_rope_cache(
            q["qkv"], q["q_gamma"], q["k_gamma"], q["cos"], q["sin"],
            q["index"], q["q_out"], q["k_cache"], q["v_cache"],
            QWEN.attrs["qkv_size"], QWEN.attrs["head_nums"],
            k_scale=q["k_scale"], v_scale=q["v_scale"],
            epsilon=QWEN.attrs["epsilon"],
            cache_mode=QWEN.attrs["cache_mode"], inplace=False)
        assert kvgold.tensor(q["k_cache"], "int8").tobytes() == before
        for n, got in zip(("q_out", "k_cache", "v_cache"), out[3:]):
            assert kvgold.tensor(got, QWEN.dtypes[n]).tobytes() == \
                QWEN.expected[n].tobytes()
    assert len(hits) == 2
