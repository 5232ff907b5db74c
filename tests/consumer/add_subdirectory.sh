#!/bin/sh
# tests/consumer/add_subdirectory.sh CMAKE CC KVGOLD_SOURCE_DIR WORK_DIR
#
# A foreign project embeds kvgold with add_subdirectory and builds with a
# warning flag of its own that kvgold's code triggers (-Wpadded, standing in
# for the new warnings of a newer compiler). Embedded, kvgold must not turn
# them into errors: KVG_WERROR defaults to PROJECT_IS_TOP_LEVEL.
#  1. the build succeeds, kvgold's sources did warn (so the flag reached
#     them), and the consumer runs (it prints "consumer: kvgold X ok");
#  2. the same build with -DKVG_WERROR=ON fails, which shows that step 1
#     tests something: with -Werror those warnings are errors.
set -u
cmake=$1 cc=$2 src=$3 work=$4
here=$(cd "$(dirname "$0")" && pwd)

configure() { # configure BUILD_DIR [cmake args...]
  dir=$1; shift
  rm -rf "$dir"
  "$cmake" -S "$here" -B "$dir" -DKVG_CONSUMER_MODE=subdirectory \
    -DKVG_SOURCE_DIR="$src" -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_C_FLAGS=-Wpadded "$@" >"$dir.log" 2>&1
}
fail() { echo "add_subdirectory consumer: $*" >&2; exit 1; }

mkdir -p "$work"
configure "$work/sub" || { cat "$work/sub.log"; fail "configure failed"; }
"$cmake" --build "$work/sub" >>"$work/sub.log" 2>&1 ||
  { cat "$work/sub.log"; fail "build failed with kvgold's warnings"; }
grep -q "src/.*warning: .*-Wpadded" "$work/sub.log" ||
  fail "kvgold's sources gave no -Wpadded warning ($work/sub.log):" \
       "the test no longer proves that warnings are not errors"

configure "$work/werror" -DKVG_WERROR=ON ||
  { cat "$work/werror.log"; fail "configure with KVG_WERROR=ON failed"; }
if "$cmake" --build "$work/werror" --target kvgold >>"$work/werror.log" 2>&1
then
  fail "with -DKVG_WERROR=ON kvgold built despite -Wpadded warnings" \
       "($work/werror.log): -Werror is not applied"
fi

"$work/sub/consumer"
