/*
 * src/engines/group_rules.c - the spec's named group rules as data
 * (group_rules.h).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "kvgold/format.h"
#include "src/engines/group_rules.h"

kvg_i_group_rule kvg_i_rule_base(kvg_dtype cast)
{
    kvg_i_group_rule r;

    memset(&r, 0, sizeof r);
    r.amax = KVG_I_AMAX_ALL;
    r.e8m0 = KVG_I_NO_E8M0;
    r.op = KVG_I_PAY_DIV;
    r.cast = cast;
    r.coeff = cast == KVG_FP8_E5M2 ? KVG_I_FL_1_57344 : KVG_I_FL_1_448;
    return r;
}

kvg_i_group_rule kvg_i_rule_blk128_fp32(kvg_dtype cast)
{
    kvg_i_group_rule r = kvg_i_rule_base(cast);

    r.name = "R-BLK128-FP32";
    r.amax = KVG_I_AMAX_FINITE;
    r.zero_scale_zero = 1;
    r.keep_x_nonfinite = 1;
    r.store = KVG_I_STORE_F32;
    return r;
}

kvg_i_group_rule kvg_i_rule_mx_fp8(kvg_dtype cast, int e8m0,
                                   int round_scale)
{
    kvg_i_group_rule r = kvg_i_rule_base(cast);

    r.name = !round_scale ? "R-TRUNC"
             : e8m0 == KVG_E8M0_CEIL ? "R-CEIL" : "R-EBUMP";
    r.floor_1e4 = 1;
    r.e8m0 = round_scale ? e8m0 : KVG_E8M0_TRUNC;
    r.store = KVG_I_STORE_E8M0;
    r.clamp = 1;
    return r;
}

kvg_i_group_rule kvg_i_rule_ceil_v(kvg_dtype cast, kvg_i_scale_store store)
{
    kvg_i_group_rule r = kvg_i_rule_base(cast);

    r.name = "R-CEIL-V";
    r.coeff = 0;
    r.coeff_div = 1;
    r.s_floor = KVG_I_FL_1E_4;
    r.pow2_up = 1;
    r.store = store;
    r.clamp = 1;
    return r;
}

kvg_i_group_rule kvg_i_rule_hif8_xscale(void)
{
    kvg_i_group_rule r = kvg_i_rule_base(KVG_HIF8);

    r.name = "hif8(x * x_scale)";
    r.coeff = 0;
    r.op = KVG_I_PAY_XSCALE;
    return r;
}
