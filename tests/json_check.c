/*
 * tests/json_check.c - see json_check.h.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvg_test.h"

#include <string.h>

#include "json_check.h"

kvg_json *kvgt_json_parse(const char *buf)
{
    kvg_diag jd;
    kvg_json *doc = NULL;
    if (kvg_json_parse(buf, strlen(buf), "report", &doc, &jd) != KVG_OK)
        fail_msg("invalid JSON: %s", jd.message);
    return doc;
}

const char *kvgt_json_str(const kvg_json *obj, const char *key)
{
    const kvg_json *it = kvg_json_get(obj, key);
    if (!kvg_json_is(it, KVG_JSON_STRING))
        fail_msg("JSON key \"%s\" is not a string", key);
    return it->text;
}

double kvgt_json_num(const kvg_json *obj, const char *key)
{
    double d = 0;
    if (kvg_json_double(kvg_json_get(obj, key), &d, NULL) != KVG_OK)
        fail_msg("JSON key \"%s\" is not a number", key);
    return d;
}

void kvgt_json_assert_null(const kvg_json *obj, const char *key)
{
    if (!kvg_json_is(kvg_json_get(obj, key), KVG_JSON_NULL))
        fail_msg("JSON key \"%s\" should be null", key);
}
