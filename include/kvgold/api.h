/*
 * kvgold/api.h - symbol visibility and version.
 *
 * The library is compiled with hidden visibility; only declarations marked
 * KVG_API are exported from the shared build. Internal helpers use the
 * prefix kvg_i_ and never appear in an installed header.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef KVGOLD_API_H
#define KVGOLD_API_H

#if defined(_WIN32) && defined(KVG_SHARED_BUILD)
#define KVG_API __declspec(dllexport)
#elif defined(_WIN32) && defined(KVG_SHARED)
#define KVG_API __declspec(dllimport)
#elif defined(__GNUC__) && __GNUC__ >= 4
#define KVG_API __attribute__((visibility("default")))
#else
#define KVG_API
#endif

#define KVG_VERSION_MAJOR 0
#define KVG_VERSION_MINOR 1
#define KVG_VERSION_PATCH 0
#define KVG_VERSION_NUMBER \
    (KVG_VERSION_MAJOR * 10000 + KVG_VERSION_MINOR * 100 + KVG_VERSION_PATCH)
#define KVG_VERSION_STRING "0.1.0"

#ifdef __cplusplus
extern "C" {
#endif

/* The library's own version, to check a header against the linked build. */
KVG_API unsigned kvg_version_number(void);
KVG_API const char *kvg_version_string(void);

#ifdef __cplusplus
}
#endif

#endif /* KVGOLD_API_H */
