/*
 * tools/python/shared_lib.c - the one source of the kvgold_shared target
 * (tools/python/CMakeLists.txt), which links the whole static core library
 * into the libkvgold.so the Python package loads. A target needs a source
 * of its own; this translation unit only has to be non-empty (ISO C).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "kvgold/api.h"

typedef int kvg_python_shared_unit;
