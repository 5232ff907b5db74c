#!/bin/sh
# tests/consumer/exports.sh NM LIBKVGOLD_SO INCLUDE_DIR [HEADER...]
#
# A shared libkvgold exports exactly its public API: every defined dynamic
# symbol is a function declared KVG_API in include/kvgold/*.h (or in one
# of the extra HEADERs: the Python package's library adds its case
# functions, tools/python/case_api.h), none is an
# internal kvg_i_ helper or a .resolver, and kvg_version_number (or the
# symbol KVG_EXPORTS_MUST names) is there (so an empty or unreadable symbol
# table cannot pass).
set -u
nm=$1 lib=$2 inc=$3
shift 3
fail() { echo "exports: $*" >&2; exit 1; }

exported=$("$nm" -D --defined-only "$lib" | awk '{print $NF}' | sort -u) ||
  fail "cannot list the dynamic symbols of $lib"
# The name before "(" on every line that declares a KVG_API function.
declared=$(cat "$inc"/kvgold/*.h "$@" 2>/dev/null |
           grep -o 'KVG_API[^(;#]*(' |
           sed 's/[[:space:]]*($//; s/.*[[:space:]*]//' | sort -u)

must=${KVG_EXPORTS_MUST:-kvg_version_number}
echo "$exported" | grep -qx "$must" || fail "$lib does not export $must"
bad=0
for s in $exported; do
  if ! echo "$declared" | grep -qx "$s"; then
    echo "exports: $lib exports $s, which no include/kvgold header" \
         "declares KVG_API" >&2
    bad=1
  fi
done
[ "$bad" -eq 0 ] || exit 1
echo "exports: $(echo "$exported" | wc -l) symbols, all declared KVG_API"
