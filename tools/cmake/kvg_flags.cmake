# Compiler flags of kvgold's own targets (never of a project that embeds it).
#
# The arithmetic order is part of the contract: C99 proper, no FMA
# contraction, no fast-math. The flags below are understood by gcc and
# clang; flags only GCC has are added for GCC only.

set(KVG_C_FLAGS -std=c99 -Wall -Wextra -Wpedantic -ffp-contract=off)
if(KVG_WERROR)
  list(APPEND KVG_C_FLAGS -Werror)
endif()

# kvg_apply_flags(target): the library's flags.
function(kvg_apply_flags target)
  target_compile_options(${target} PRIVATE ${KVG_C_FLAGS})
endfunction()

# kvg_apply_tool_flags(target): tools and tests build messages from file
# paths into fixed buffers and truncate on purpose; gcc's
# -Wformat-truncation flags every such call (clang has no such warning).
function(kvg_apply_tool_flags target)
  kvg_apply_flags(${target})
  if(CMAKE_C_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -Wno-format-truncation)
  endif()
endfunction()

# Row-kernel dispatch (GCC target_clones + ifunc) exists for GCC on x86-64
# only; src/kernels/dispatch.h also checks ELF and glibc. With any other
# compiler KVG_DISPATCH is not defined and the kernels are built once.
set(KVG_DISPATCH_CLONES OFF)
if(KVG_DISPATCH AND CMAKE_C_COMPILER_ID STREQUAL "GNU"
   AND CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  set(KVG_DISPATCH_CLONES ON)
endif()

# kvg_apply_exports_map(target): a shared libkvgold exports kvg_ names
# only, never kvg_i_ (ELF; src/exports.map says why visibility is not enough).
function(kvg_apply_exports_map target)
  if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang" AND NOT APPLE AND NOT WIN32)
    set(_map ${PROJECT_SOURCE_DIR}/src/exports.map)
    target_link_options(${target} PRIVATE "LINKER:--version-script=${_map}")
    set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${_map})
  endif()
endfunction()

if(KVG_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()

if(KVG_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "kvgold: KVG_FUZZ needs clang (libFuzzer); "
      "configure with -DCMAKE_C_COMPILER=clang or -DKVG_FUZZ=OFF")
  endif()
  # Coverage instrumentation everywhere, so libFuzzer sees the library too.
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
