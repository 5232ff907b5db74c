/*
 * tests/consumer/main.c - the embedding contract: the installed (or
 * add_subdirectory'd) headers compile in a foreign project, the library
 * links, and the header and library agree on the version.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdio.h>
#include <string.h>

#include "kvgold/kvgold.h" /* the umbrella must compile on its own */

int main(void)
{
    int bad = 0;
    size_t i;
    if (kvg_version_number() != KVG_VERSION_NUMBER) {
        fprintf(stderr, "header %d vs library %u\n", KVG_VERSION_NUMBER,
                kvg_version_number());
        bad = 1;
    }
    /* 1.0 in fp16 is 0x3C00 by the IEEE binary16 definition. */
    if (kvg_f32_to_fp16(1.0f, KVG_OVF_DEFAULT) != 0x3C00) {
        fprintf(stderr, "fp16 encode of 1.0 is wrong\n");
        bad = 1;
    }
    /* the operators link: each registered one (kvgold/op.h), called with
     * no tensors, refuses through its entry point with aclnn's code */
    if (kvg_op_count() == 0) {
        fprintf(stderr, "no operator registered\n");
        bad = 1;
    }
    for (i = 0; i < kvg_op_count(); i++) {
        kvg_op_call call;
        kvg_op_call_init(&call, kvg_op_at(i));
        if (kvg_op_run(&call, NULL) != KVG_ERR_PARAM_NULLPTR) {
            fprintf(stderr, "%s: a call without tensors not refused "
                            "with 161001\n", kvg_op_name(kvg_op_at(i)));
            bad = 1;
        }
    }
    printf("consumer: kvgold %s %s\n", kvg_version_string(),
           bad ? "FAILED" : "ok");
    return bad;
}
