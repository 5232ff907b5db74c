/*
 * tests/json_check.h - reading a JSON report in a test: parsed by the
 * strict reader (tools/lib/json), each accessor fails the test when the key is
 * missing or of another type. Shared by the comparison tests.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_TESTS_JSON_CHECK_H
#define KVGOLD_TESTS_JSON_CHECK_H

#include "json.h"

/* The document in `buf` (NUL-terminated); an invalid one fails the test. */
kvg_json *kvgt_json_parse(const char *buf);
/* obj[key] as a string / a number; anything else fails the test. */
const char *kvgt_json_str(const kvg_json *obj, const char *key);
double kvgt_json_num(const kvg_json *obj, const char *key);
/* obj[key] must be null. */
void kvgt_json_assert_null(const kvg_json *obj, const char *key);

#endif /* KVGOLD_TESTS_JSON_CHECK_H */
