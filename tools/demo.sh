#!/bin/sh
# The main job: build kvgold and run the oracle on the bundled examples,
# printing its reports. Each example is a realistic decode step with
# stand-in NPU dumps (vectors/examples/, made by tools/gen/kvgen/
# cases_examples.py): honest kernels, which must pass, and buggy ones, which
# must fail with the reason. Exits 0 when every verdict is the expected one.
# The failing examples also get an HTML report (kvgold compare --html) in
# build/demo/reports/, a picture of where in the cache things went wrong.
set -eu
cd "$(dirname "$0")/.."
sh tools/setup-debian.sh
echo "building kvgold (build/demo) ..."
cmake -S . -B build/demo -DCMAKE_BUILD_TYPE=Release -DKVG_BUILD_TESTS=OFF \
  > build-demo.log 2>&1 || { cat build-demo.log; exit 1; }
cmake --build build/demo -j "$(nproc 2>/dev/null || echo 2)" \
  >> build-demo.log 2>&1 || { cat build-demo.log; exit 1; }
rm -f build-demo.log
K=build/demo/tools/kvgold
E=vectors/examples
R=build/demo/reports
mkdir -p "$R"
bad=0

# run WANT TITLE CASE NPU_DIR [HTML [STANDARD]]: one comparison, its
# report, its verdict; with HTML, also the HTML report to that file; with
# STANDARD, judged by that standard instead of the default
run() {
  want=$1 title=$2 case_dir=$3 npu=$4 html=${5:-} std=${6:-}
  printf '\n======================================================================\n'
  printf '%s\n$ kvgold compare %s %s%s%s\n\n' "$title" "$case_dir" "$npu" \
    "${html:+ --html $html}" "${std:+ --standard $std}"
  [ -z "$html" ] || rm -f "$html"
  set +e
  "$K" compare "$case_dir" "$npu" ${html:+--html "$html"} \
    ${std:+--standard "$std"}
  got=$?
  set -e
  if [ -n "$html" ] && [ -f "$html" ]; then
    printf '\nHTML report (open it in a browser): %s\n' "$(pwd)/$html"
  fi
  if [ "$got" -eq "$want" ]; then
    printf '\n-> exit %d, as expected\n' "$got"
  else
    printf '\n-> exit %d, but %d was expected\n' "$got" "$want"
    bad=1
  fi
}

run 0 "DeepSeek-V3 MLA decode, an honest kernel" \
  $E/deepseek_mla_decode $E/deepseek_mla_decode/npu
run 1 "DeepSeek-V3 MLA decode, a kernel that writes token 3 one slot too far" \
  $E/deepseek_mla_decode $E/deepseek_mla_decode/npu_faulty \
  $R/deepseek_mla_decode_faulty.html
run 0 "Qwen3 decode, an honest kernel" \
  $E/qwen3_qkv_decode $E/qwen3_qkv_decode/npu
run 1 "Qwen3 decode, a kernel that rounds RmsNorm's output to bf16 before RoPE
(judged by MERE/MARE, --standard single: ops-test-kit's mixed tolerance, the
default, lets it pass)" \
  $E/qwen3_qkv_decode $E/qwen3_qkv_decode/npu_bf16_intermediate \
  $R/qwen3_qkv_decode_bf16_intermediate.html single

printf '\n======================================================================\n'
if [ "$bad" -eq 0 ]; then
  echo "demo: every verdict as expected (honest kernels pass, buggy ones fail)"
else
  echo "demo: some verdict was not the expected one"
fi
exit "$bad"
