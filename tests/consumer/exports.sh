#!/bin/sh
# tests/consumer/exports.sh NM LIB_SO INCLUDE_DIR|- [HEADER...]
#
# A shared library exports exactly its declared API: every defined dynamic
# symbol is a function declared KVG_API in INCLUDE_DIR/kvgold/*.h (none
# with -) or in one of the HEADERs (libkvgold_case.so: its case functions,
# tools/python/case_api.h, and nothing of the core), none is an
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
if [ "$inc" = - ]; then
  headers=$*
else
  headers="$inc/kvgold/*.h $*"
fi
# shellcheck disable=SC2086 # the glob and the list split on purpose
declared=$(cat $headers | grep -o 'KVG_API[^(;#]*(' |
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
