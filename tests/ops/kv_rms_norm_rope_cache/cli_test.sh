#!/bin/sh
# tests/ops/kv_rms_norm_rope_cache/cli_test.sh - the kvgold command's exit
# codes, reports and data safety, on KvRmsNormRopeCache's cases.
#   cli_test.sh KVGOLD NPY_POKE VECTORS WORKDIR SCENARIO
# Each scenario runs the real command and asserts its exit status and the
# lines its report must contain. Cases come from the committed vectors; the
# "NPU outputs" are the golden's own (kvgold run), then corrupted with
# npy_poke where a scenario needs a failure. The helpers are
# tests/cli/cli_lib.sh; the registration tests/CMakeLists.txt's.
. "$(dirname "$0")/../../cli/cli_lib.sh"
KV=$V/kv_rms_norm_rope_cache

case $S in
check_pass)
  expect 0 "$K" check "$KV/ds_950_pa_nz_bf16_ckv_e4m3_out"
  has "k_cache"; has "PASS: 4 of 4 tensors bit-exact"
  expect 0 "$K" check "$KV/err_pa_duplicate_slot"; has "PASS"
  ;;
check_mismatch)
  copy_case "$KV/ds_950_pa_nz_bf16_ckv_e4m3_out" c
  "$POKE" c/expected_c_kv.npy 10 0001 || exit 99
  expect 1 "$K" check c; has "c_kv"; has "FAIL (first at element 10)"
  ;;
compare_pass)
  C=$KV/ds_950_pa_nz_bf16_ckv_e4m3_out
  npu_of "$C" npu
  expect 0 "$K" compare "$C" npu
  has "PASS: 4 tensors, 4 passed, 0 failed, 0 untouched elements changed"
  has "ckv_cache  fp8_e4m3fn  float_re   PASS"   # the default, mixed_ttk@3675093: fp8 as floats
  expect 0 "$K" compare "$C" npu --json; has '"verdict":"PASS"'
  ;;
compare_corrupt)
  C=$KV/ds_950_pa_nz_bf16_ckv_e4m3_out
  npu_of "$C" npu
  "$POKE" npu/c_kv.npy 0 4000 || exit 99    # flips an exponent bit
  expect 1 "$K" compare "$C" npu
  has "c_kv       bf16        float_re   FAIL"; has "worst written elements"
  has "FAIL: 4 tensors, 3 passed, 1 failed"
  expect 1 "$K" compare "$C" npu --json; has '"verdict":"FAIL"'
  ;;
compare_untouched)
  # every index is negative: the op writes no cache element at all, so any
  # change to a cache is a write where the kernel must not write
  C=$KV/index_all_negative_pa_nz
  npu_of "$C" npu
  "$POKE" npu/k_cache.npy 0 01 || exit 99
  expect 1 "$K" compare "$C" npu
  has "1 untouched element changed"; has "untouched elements that changed"
  has "block=0 slot=0 head=0 channel=0"
  ;;
malformed)
  C=$KV/ds_950_pa_nz_bf16_ckv_e4m3_out
  copy_case "$C" unknown_key
  sed -i 's/"op":/"colour": "blue", "op":/' unknown_key/case.json
  expect 2 "$K" check unknown_key; has 'unknown key "colour"'
  copy_case "$C" missing_file; rm missing_file/gamma.npy
  expect 2 "$K" run missing_file --out .; has "gamma.npy"; has "cannot open"
  copy_case "$C" bad_dtype
  sed -i '0,/"dtype": "bf16"/s//"dtype": "bf17"/' bad_dtype/case.json
  expect 2 "$K" check bad_dtype; has 'unknown dtype tag "bf17"'
  copy_case "$C" bad_attr
  sed -i 's/"cache_mode": "PA_NZ"/"cache_mode": "PA_ZN"/' bad_attr/case.json
  expect 2 "$K" check bad_attr; has "PA_ZN"
  npu_of "$C" npu; cp npu/c_kv.npy npu/k_rope.npy   # wrong shape for k_rope
  expect 2 "$K" compare "$C" npu; has "k_rope"
  mkdir -p empty
  expect 2 "$K" compare "$C" empty; has "holds none of the outputs"
  expect 2 "$K" compare "$KV/err_pa_duplicate_slot" empty; has "must refuse"
  ;;
out_case_dir)
  # the case directory itself, as --out or as the default "." inside it
  C=$KV/ds_950_pa_nz_bf16_ckv_e4m3_out
  copy_case "$C" c
  expect 2 "$K" run c --out c;  has "is the case directory"; has "nothing written"
  (cd c && "$K" run . > ../out.txt 2>&1; echo $? > ../rc.txt)
  [ "$(cat rc.txt)" = 2 ] || { echo "FAIL: run . inside the case: rc $(cat rc.txt)"; fails=1; }
  has "is the case directory"
  for f in "$C"/*; do same "$f" "c/${f##*/}"; done
  only c $(ls -A "$C")
  # a hard-linked copy of the case (cp -al): its files are the case's own
  cp -al c linked || exit 99
  expect 2 "$K" run c --out linked; has "is the case's file"
  for f in "$C"/*; do same "$f" "c/${f##*/}"; done
  ;;
out_empty)
  expect 2 "$K" run "$KV/ds_950_pa_nz_bf16_ckv_e4m3_out" --out ""
  has "--out is an empty path"
  ;;
out_created)
  expect 0 "$K" run "$KV/ds_950_pa_nz_bf16_ckv_e4m3_out" --out new/deep/dir
  has "wrote new/deep/dir/k_cache.npy"
  only new/deep/dir c_kv.npy ckv_cache.npy k_cache.npy k_rope.npy
  same new/deep/dir/c_kv.npy "$KV/ds_950_pa_nz_bf16_ckv_e4m3_out/expected_c_kv.npy"
  touch afile
  expect 2 "$K" run "$KV/ds_950_pa_nz_bf16_ckv_e4m3_out" --out afile
  has "is a regular file, not a directory"
  ;;
long_path)
  # 15 x 200 characters: more than any fixed path buffer kvgold once had
  C=$KV/ds_950_pa_nz_bf16_ckv_e4m3_out
  seg=$(printf '%0200d' 0); L=.
  for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do L=$L/$seg; done
  expect 0 "$K" run "$C" --out "$L"
  for n in c_kv ckv_cache k_cache k_rope; do
    same "$L/$n.npy" "$C/expected_$n.npy"
  done
  # a long NPU_DIR: every dump is found, the corrupt one fails
  "$POKE" "$L/ckv_cache.npy" 0 40 || exit 99
  expect 1 "$K" compare "$C" "$L"
  has "ckv_cache  fp8_e4m3fn  float_re   FAIL"; lacks "skipped"
  # a case directory that long is refused in so many words, not cut
  copy_case "$C" "$L/case"
  expect 2 "$K" check "$L/case"; has "case directory path too long: 3021 characters"
  ;;
second_output_fails)
  # k_cache.npy is written first, ckv_cache.npy second: when the second
  # cannot be written, nothing new may be left and the old k_cache kept
  C=$KV/ds_950_pa_nz_bf16_ckv_e4m3_out
  mkdir -p o && echo OLD > o/k_cache.npy && cp o/k_cache.npy old_k
  mkdir o/ckv_cache.npy
  expect 2 "$K" run "$C" --out o; has "ckv_cache.npy: is a directory"
  same o/k_cache.npy old_k; only o ckv_cache.npy k_cache.npy
  rmdir o/ckv_cache.npy && echo RO > o/ckv_cache.npy && chmod 444 o/ckv_cache.npy
  expect 2 "$K" run "$C" --out o; has "ckv_cache.npy: is read-only"
  same o/k_cache.npy old_k; only o ckv_cache.npy k_cache.npy
  rm -f o/ckv_cache.npy
  # a file size limit (as a full disk) stops the second file mid-write
  ( trap '' XFSZ; ulimit -f 10; exec "$K" run "$C" --out o ) > out.txt 2>&1
  [ $? -eq 2 ] || { echo "FAIL: run under ulimit -f"; cat out.txt; fails=1; }
  has "write error: File too large"
  same o/k_cache.npy old_k; only o k_cache.npy
  # killed mid-write (SIGXFSZ): no output appears, complete or truncated
  ( ulimit -f 10; exec "$K" run "$C" --out killed ) > out.txt 2>&1
  [ $? -gt 128 ] || { echo "FAIL: run was not killed"; cat out.txt; fails=1; }
  for n in c_kv ckv_cache k_cache k_rope; do
    [ -e "killed/$n.npy" ] && { echo "FAIL: killed/$n.npy exists"; fails=1; }
  done
  ;;
target_links)
  # outputs replace a symlink or a hard link at the target, never write
  # through them
  C=$KV/ds_950_pa_nz_bf16_ckv_e4m3_out
  mkdir -p o && echo VICTIM > victim && cp victim victim.orig
  echo LINKED > linked && cp linked linked.orig
  ln -s ../victim o/k_cache.npy && ln linked o/ckv_cache.npy
  expect 0 "$K" run "$C" --out o
  same victim victim.orig; same linked linked.orig
  [ -L o/k_cache.npy ] && { echo "FAIL: o/k_cache.npy is still a symlink"; fails=1; }
  same o/k_cache.npy "$C/expected_k_cache.npy"
  same o/ckv_cache.npy "$C/expected_ckv_cache.npy"
  only o c_kv.npy ckv_cache.npy k_cache.npy k_rope.npy
  ;;
special_files)
  C=$KV/ds_950_pa_nz_bf16_ckv_e4m3_out
  copy_case "$C" fifo; rm fifo/gamma.npy; mkfifo fifo/gamma.npy
  expect 2 timeout 20 "$K" check fifo; has "gamma.npy: is a FIFO"
  lacks "operator refused"
  copy_case "$C" zero; rm zero/gamma.npy; ln -s /dev/zero zero/gamma.npy
  expect 2 timeout 20 "$K" check zero; has "gamma.npy: is a character device"
  copy_case "$C" dir; rm dir/gamma.npy; mkdir dir/gamma.npy
  expect 2 "$K" check dir; has "gamma.npy: is a directory"
  copy_case "$C" missing; rm missing/gamma.npy
  expect 2 "$K" check missing
  has "gamma.npy: cannot open: No such file or directory"
  ;;
trailing_junk)
  # 2 GiB of (sparse) junk after a small tensor: refused from the header
  # and the file size, without reading it (64 MiB would not hold it)
  C=$KV/ds_950_pa_nz_bf16_ckv_e4m3_out
  copy_case "$C" c; truncate -s 2G c/gamma.npy
  expect 2 "$K" --max-memory 64M check c; has "gamma.npy: npy: trailing data"
  lacks "operator refused"
  ;;
max_memory)
  C=$KV/ds_950_pa_nz_bf16_ckv_e4m3_out
  expect 2 "$K" check "$C" --max-memory 16K; has "over the limit of 16384 bytes"
  has "not enough memory"; lacks "invalid case"
  has "ckv_cache.npy needs 16384 bytes (16.0 KiB)"; has "--max-memory"
  expect 2 "$K" --max-memory 12Q check "$C"; has "--max-memory needs a positive byte count"
  expect 2 "$K" --max-memory 0 check "$C"; has "positive byte count"
  expect 0 "$K" --max-memory 64M check "$C"; has "PASS: 4 of 4"
  # compare's NPU dumps count too: 64K is enough to run the case, not to
  # compare it (no second golden run, inverted caches or masks
  # any more, and run reads no expected tensors)
  npu_of "$C" npu
  expect 0 "$K" run "$C" --out o2 --max-memory 64K
  expect 2 "$K" compare "$C" npu --max-memory 64K
  has "not enough memory: comparing (NPU dumps 23936 bytes read into memory)"
  has "limit of 65536 bytes"
  expect 0 "$K" compare "$C" npu --max-memory 1M; has "4 tensors, 4 passed"
  ;;
raw_bin)
  C=$KV/ds_950_pa_nz_bf16_ckv_e4m3_out
  copy_case "$C" c
  strip_npy c/gamma.npy > c/gamma.bin && rm c/gamma.npy
  sed -i 's/"file": "gamma.npy",/"file": "gamma.bin", "shape": [512],/' c/case.json
  expect 0 "$K" check c; has "PASS: 4 of 4"
  sed -i 's/"shape": \[512\],/"shape": [511],/' c/case.json
  expect 2 "$K" check c; has "raw file is 1024 bytes"; has "need 1022"
  sed -i 's/ "shape": \[511\],//' c/case.json
  expect 2 "$K" check c; has 'needs "shape"'
  # an NPU dump as .bin: dtype and shape from the golden
  npu_of "$C" npu
  strip_npy npu/c_kv.npy > npu/c_kv.bin && rm npu/c_kv.npy
  expect 0 "$K" compare "$C" npu; has "4 tensors, 4 passed"
  cp npu/c_kv.bin npu/c_kv.npy
  expect 2 "$K" compare "$C" npu; has "both exist"
  ;;
bf16_void)
  # bf16 stored as NumPy's void '|V2' or ml_dtypes' '<V2' / 'bfloat16'
  C=$KV/ds_950_pa_nz_bf16_ckv_e4m3_out
  copy_case "$C" c
  sed -i "s/'<u2'/'|V2'/" c/kv.npy; sed -i "s/'<u2'/'<V2'/" c/gamma.npy
  grep -q "'|V2'" c/kv.npy || exit 99
  expect 0 "$K" check c; has "PASS: 4 of 4"
  perl -0pi -e "s/'<u2'(.*?)     \n/'bfloat16'\1\n/s" c/cos.npy
  grep -q "'bfloat16'" c/cos.npy || exit 99
  expect 0 "$K" check c; has "PASS: 4 of 4"
  sed -i "s/'<u2'/'|V2'/" c/index.npy   # int64 index: descr '<i8', untouched
  sed -i "s/'<i8'/'|V8'/" c/index.npy
  expect 2 "$K" check c; has "descr '|V8' is not supported"
  ;;
compare_not_judged)
  # an output that is not judged never passes, and says why
  C=$KV/ds_950_pa_nz_bf16_ckv_e4m3_out
  npu_of "$C" npu; rm npu/k_rope.npy
  expect 1 "$K" compare "$C" npu
  has "NOT JUDGED: k_rope: missing: no npu/k_rope.npy"
  has "INCOMPLETE: 4 tensors, 3 passed, 0 failed, 1 not judged"
  expect 1 "$K" compare "$C" npu --json
  has '"verdict":"INCOMPLETE"'; has '"name":"k_rope"'; has '"verdict":"NOT JUDGED"'
  npu_of "$C" misnamed; mv misnamed/k_rope.npy misnamed/krope.npy
  expect 1 "$K" compare "$C" misnamed
  has "krope.npy, which matches no output"; has "INCOMPLETE"
  npu_of "$C" dangling; rm dangling/k_rope.npy; ln -s gone.npy dangling/k_rope.npy
  expect 1 "$K" compare "$C" dangling; has "dangling link: dangling/k_rope.npy"
  npu_of "$C" dir; rm dir/k_rope.npy; mkdir dir/k_rope.npy
  expect 1 "$K" compare "$C" dir; has "unreadable: dir/k_rope.npy is a directory"
  if [ "$(id -u)" -ne 0 ]; then   # root reads a mode-000 file anyway
    npu_of "$C" locked; chmod 000 locked/k_rope.npy
    expect 1 "$K" compare "$C" locked; has "unreadable: locked/k_rope.npy"
  fi
  expect 2 "$K" compare "$C" no_such_dir
  has "NPU_DIR no_such_dir: No such file or directory"
  expect 0 "$K" compare "$C" npu --only c_kv,ckv_cache
  has "PASS: 2 tensors, 2 passed, 0 failed"
  expect 2 "$K" compare "$C" npu --only c_kv,kcache; has "kcache is not an output"
  ;;
compare_standard)
  # --standard picks the rule for float compute outputs and the
  # report names it, its source and its thresholds per tensor
  C=$KV/ds_950_pa_nz_bf16_ckv_e4m3_out
  npu_of "$C" npu
  expect 0 "$K" compare "$C" npu
  has "standards and thresholds: mixed_ttk@3675093"
  has "c_kv: mixed_ttk, float_re: |a-g| <= 0.015625 + 0.015625*|g| for >= 99%, max |a-g| <= 1"
  has "resolve.py, mix_tolerance.py; docs/Precision_Comparison.md @3675093"; has "max_ulp"
  has "ops-test-kit would say: PASS (mix_tolerance over all 1536 elements"
  expect 0 "$K" compare "$C" npu --standard single
  has "c_kv: single, float_re: MERE < 0.0078125, MARE < 0.078125"
  has "experimental_standard.md @3e62966"; has "standards and thresholds: single@3e62966"
  expect 0 "$K" compare "$C" npu --standard mixed
  has "c_kv: mixed, float_re: |a-g| <= 0.0078125 + 0.0078125*|g| for >= 99%"
  has "mixed_tolerance_standard.md @233ee24"
  expect 0 "$K" compare "$C" npu --standard mixed_ttk
  has "c_kv: mixed_ttk, float_re: |a-g| <= 0.015625 + 0.015625*|g|"
  has "Precision_Comparison.md @3675093"
  expect 0 "$K" compare "$C" npu --standard mixed --json
  has '"standard_name":"mixed"'; has '"matched_ratio":1'; has '"ulp":{"max":0'
  has '"error_balance":{"eb":0'
  "$POKE" npu/c_kv.npy 0 4000 || exit 99      # one element, far off
  expect 1 "$K" compare "$C" npu --standard mixed
  has "> cap 0.25 = max(limit, 32 eps): 1 element beyond it (first at index 0)"
  expect 1 "$K" compare "$C" npu --standard commercial
  has "NOT JUDGED: c_kv: the commercial standard needs a third-party result"
  has "INCOMPLETE"
  expect 2 "$K" compare "$C" npu --standard double; has "--standard needs"
  expect 2 "$K" compare "$C" npu --level L3; has "--level needs"
  ;;
compare_third_party)
  # the commercial standard's dual benchmark against another
  # implementation's outputs
  C=$KV/ds_950_pa_nz_bf16_ckv_e4m3_out
  npu_of "$C" npu; npu_of "$C" tp
  "$POKE" tp/c_kv.npy 5 0001 || exit 99       # the third party is 1 ULP off
  expect 0 "$K" compare "$C" npu --standard commercial --third-party tp
  has "dual benchmark: MARE ratio 0, MERE ratio 0, RMSE ratio 0 over 1536"
  has "commercial_standard.md @3e62966 (4.5)"; has "L1: MARE/MERE/RMSE ratio <= 5/1.5/1.5"
  expect 0 "$K" compare "$C" npu --standard commercial --third-party tp --level L2 --json
  has '"mare_ratio_max":2'; has '"level":"L2"'; has '"third_party_mare":'
  "$POKE" npu/c_kv.npy 0 4000 || exit 99
  expect 1 "$K" compare "$C" npu --standard commercial --third-party tp
  has "MARE ratio"; has "> 5 (L1)"
  expect 2 "$K" compare "$C" npu --third-party no_such_dir
  has "--third-party no_such_dir: No such file or directory"
  ;;
compare_repeat)
  # repeated runs are judged each and must be bit-identical
  C=$KV/ds_950_pa_nz_bf16_ckv_e4m3_out
  npu_of "$C" run1; npu_of "$C" run2; npu_of "$C" run3
  expect 0 "$K" compare "$C" run1 run2 run3
  has "run 3 of 3: run3"; has "c_kv: run 3 is bit-identical to run 1 (1536 elements)"
  has "PASS: the runs are bit-identical"
  "$POKE" run3/c_kv.npy 10 0001 || exit 99    # passes alone, differs
  expect 1 "$K" compare "$C" run1 run2 run3
  has "c_kv: run 3 differs from run 1 in 1 of 1536 elements (first at index 10"
  has "FAIL: the runs are not bit-identical"
  expect 1 "$K" compare "$C" run1 run3 --json
  has '"identical":false'; has '"differ":1'; has '"npu_dir":"run3"'
  rm run2/k_rope.npy
  expect 1 "$K" compare "$C" run1 run2; has "k_rope: not checked (missing from a run)"
  ;;
run_needs_no_expected)
  # run and compare never read the expected tensors (a
  # multi-GiB expected cache is not loaded); check still does, and says so
  copy_case "$KV/ds_950_pa_nz_bf16_ckv_e4m3_out" c
  npu_of c npu
  rm c/expected_k_cache.npy
  printf 'not an npy' > c/expected_c_kv.npy
  expect 0 "$K" run c --out o; has "o/k_cache.npy"
  same o/c_kv.npy npu/c_kv.npy
  expect 0 "$K" compare c npu; has "PASS: 4 tensors, 4 passed"
  expect 2 "$K" check c; has "expected.k_cache"; has "expected_k_cache.npy"
  expect 2 "$K" run c --out c; has "is the case directory"
  ;;
compare_reduce_hint)
  # the reduce-order hint reruns the golden and compares the written runs;
  # an untouched element changed still rules every order out
  copy_case "$KV/order_double_ds_pa_fp16" c
  npu_of c npu
  sed -i 's/"reduce_order": "double"/"reduce_order": "sequential"/' c/case.json
  expect 0 "$K" compare c npu
  has 'hint: with options.reduce_order = "double" the golden reproduces all 4 NPU outputs bit for bit'
  lacks 'reduce_order = "sequential"'
  "$POKE" npu/ckv_cache.npy 0 0001 || exit 99   # element 0: untouched
  expect 1 "$K" compare c npu; has "1 untouched element changed"; lacks "hint:"
  ;;
# Trust, round two: compare's reports, runs and third parties carry no
# false PASS and replace no file of the user's (docs/reliability.md,
# "compare: reports, runs and third parties").
compare_reports_runs)
  # several NPU_DIRs: every report carries every run and the run-to-run
  # check, so a faulty or incomplete second run is a failure in each file
  C=$KV/ds_950_pa_nz_bf16_ckv_e4m3_out
  npu_of "$C" run1; npu_of "$C" run2
  "$POKE" run2/c_kv.npy 0 4000 || exit 99     # run 2 alone fails
  expect 1 "$K" compare "$C" run1 run2 --junit j.xml --csv c.csv --html h.html
  cp j.xml out.txt
  has '<testsuites name="kvgold compare" tests="9" failures="2"'
  has 'run 2 of 2: run2" tests="4" failures="1"'
  has '<testcase name="c_kv" classname="kvgold.compare.kv_rms_norm_rope_cache.run2" time="0">'
  has '<testcase name="determinism"'; has 'message="FAIL: the runs are not bit-identical"'
  cp c.csv out.txt
  has 'run,npu_dir,tensor,dtype'; has '1,"run1","c_kv",bf16,compute,float_re,PASS,'
  has '2,"run2","c_kv",bf16,compute,float_re,FAIL,'
  has 'all,"","determinism",,,bitwise,FAIL,'
  cp h.html out.txt
  has '<span class="badge FAIL">FAIL</span></h1>'
  has 'Run 2 of 2: <code>run2</code> <span class="badge FAIL">FAIL</span>'
  has '<h2 id="r2-t3">run 2: c_kv <span class="badge FAIL">'
  # run 2 misses a tensor: NOT JUDGED in every file, never a pass
  npu_of "$C" run3; rm run3/k_rope.npy
  expect 1 "$K" compare "$C" run1 run3 --junit j.xml --csv c.csv --html h.html
  cp j.xml out.txt
  has 'failures="2"'; has '<failure type="NOT JUDGED"'
  has 'message="NOT JUDGED: 1 output is missing from a run: determinism was not shown"'
  cp c.csv out.txt; has '2,"run3","k_rope",,,,NOT JUDGED,'
  has 'all,"","determinism",,,bitwise,NOT JUDGED,'
  cp h.html out.txt; has '<span class="badge SKIPPED">INCOMPLETE</span></h1>'
  has 'Run 2 of 2: <code>run3</code> <span class="badge SKIPPED">INCOMPLETE</span>'
  ;;
compare_runs_same_files)
  # one directory twice, a hard-linked copy (cp -al): one run, not two;
  # the determinism check is NOT JUDGED (exit 1), never PASS
  C=$KV/ds_950_pa_nz_bf16_ckv_e4m3_out
  npu_of "$C" run1
  expect 1 "$K" compare "$C" run1 run1
  has "c_kv: runs 1 and 2 are the same files (run1/c_kv.npy and run1/c_kv.npy: same device and inode)"
  has "NOT JUDGED: runs 1 and 2 are the same files, not separate runs (4 outputs)"
  lacks "PASS: the runs are bit-identical"; lacks "is bit-identical to run 1"
  has "INCOMPLETE: 2 runs and the run-to-run check"
  cp -al run1 linked || exit 99
  expect 1 "$K" compare "$C" run1 linked --json
  has '"same_files":[{"name":"k_cache","runs":[1,2]}'; has '"identical":false'
  has '"verdict":"NOT JUDGED"'; has '"verdict":"INCOMPLETE"}'
  # only one output hard-linked: that one is not a check, so neither is
  # the whole
  npu_of "$C" run2; rm run2/c_kv.npy; ln run1/c_kv.npy run2/c_kv.npy
  expect 1 "$K" compare "$C" run1 run2 --junit j.xml
  has "k_rope: run 2 is bit-identical to run 1 (192 elements)"
  has "c_kv: runs 1 and 2 are the same files"; has "NOT JUDGED: runs 1 and 2"
  cp j.xml out.txt; has 'tests="9" failures="1"'
  # separate files with the same bytes are what a deterministic operator
  # gives: that is the check, and it passes
  cp -r run1 copy || exit 99
  expect 0 "$K" compare "$C" run1 copy; has "PASS: the runs are bit-identical"
  ;;
compare_third_party_same)
  # a third party is another implementation's outputs: the NPU dump under
  # another name, or the case's own files, is refused (exit 2)
  C=$KV/ds_950_pa_nz_bf16_ckv_e4m3_out
  copy_case "$C" c; npu_of c npu
  "$POKE" npu/c_kv.npy 0 4000 || exit 99      # q_out-like output far off
  expect 2 "$K" compare c npu --standard commercial --third-party npu
  has "--third-party npu is NPU_DIR npu (the same directory)"
  cp -al npu linked || exit 99
  expect 2 "$K" compare c npu --standard commercial --third-party linked
  has "third party linked/"; has "is the NPU dump being judged, npu/"
  has "(same device and inode)"
  cp -r npu copy || exit 99
  expect 2 "$K" compare c npu --standard commercial --third-party copy
  has "third party copy/c_kv.npy is byte-identical to the NPU dump being judged, npu/c_kv.npy"
  expect 2 "$K" compare c npu --standard commercial --third-party c
  has "--third-party c is the case directory c"
  cp -al c caselink || exit 99
  expect 2 "$K" compare c npu --standard commercial --third-party caselink
  has "third party caselink/k_cache.npy is the case's file c/k_cache.npy (same device and inode)"
  lacks "dual benchmark"
  # a plain copy of the case: its k_cache.npy is the cache before the
  # call, every written element wrong, so any NPU would beat it
  copy_case c casecopy
  "$POKE" npu/k_cache.npy 0 0001 || exit 99
  expect 2 "$K" compare c npu --standard commercial --third-party casecopy
  has "third party casecopy/k_cache.npy is byte-identical to the case's input k_cache (the cache before the call)"
  ;;
compare_report_targets)
  # a report never replaces a case file, a dump or anything but a regular
  # file, and two reports never share a file: refused before computing
  C=$KV/ds_950_pa_nz_bf16_ckv_e4m3_out
  copy_case "$C" c; npu_of c npu; npu_of c tp
  "$POKE" tp/c_kv.npy 5 0001 || exit 99
  cp -r c c.orig; cp -r npu npu.orig
  expect 2 "$K" compare c npu --csv c/case.json
  has "--csv c/case.json: is the case's file c/case.json"; lacks "kvgold compare: case"
  expect 2 "$K" compare c npu --html c/kv.npy; has "--html c/kv.npy: is the case's file"
  expect 2 "$K" compare c npu --junit c/expected_c_kv.npy
  has "--junit c/expected_c_kv.npy: is the case's file"
  ln -s c/case.json c.json
  expect 2 "$K" compare c npu --csv c.json; has "--csv c.json: is the case's file"
  rm c.json; cp -al c caselink || exit 99
  expect 2 "$K" compare c npu --csv caselink/gamma.npy; has "is the case's file c/gamma.npy"
  expect 2 "$K" compare c npu --csv npu/c_kv.npy
  has "--csv npu/c_kv.npy: is in NPU_DIR npu, the directory being judged"
  expect 2 "$K" compare c npu --html npu/report.html; has "is in NPU_DIR npu"
  expect 2 "$K" compare c npu --standard commercial --third-party tp --junit tp/j.xml
  has "--junit tp/j.xml: is in --third-party tp"
  ln npu/k_rope.npy elsewhere.npy
  expect 2 "$K" compare c npu --csv elsewhere.npy
  has "--csv elsewhere.npy: is the same file as npu/k_rope.npy in NPU_DIR npu"
  expect 2 "$K" compare c npu --csv /dev/null
  has "--csv /dev/null: is a character device"
  [ -c /dev/null ] || { echo "FAIL: /dev/null is no longer a device"; fails=1; }
  ln -s /dev/null devlink
  expect 2 "$K" compare c npu --junit devlink
  has "--junit devlink: is a symbolic link to a character device"
  [ -L devlink ] || { echo "FAIL: devlink was replaced"; fails=1; }
  mkfifo fifo
  expect 2 timeout 20 "$K" compare c npu --html fifo; has "--html fifo: is a FIFO"
  [ -p fifo ] || { echo "FAIL: the FIFO was replaced"; fails=1; }
  mkdir adir
  expect 2 "$K" compare c npu --csv adir; has "--csv adir: is a directory"
  expect 2 "$K" compare c npu --csv adir/; has "--csv adir/: names a directory"
  expect 2 "$K" compare c npu --csv no/such/r.csv
  has "--csv no/such/r.csv: its directory no/such: No such file or directory"
  expect 2 "$K" compare c npu --html r.out --csv r.out
  has "--csv r.out: is the same file as --html r.out"
  expect 2 "$K" compare c npu --html r.out --csv ./r.out
  has "--csv ./r.out: is the same file as --html r.out"
  for f in c.orig/*; do same "$f" "c/${f##*/}"; done
  for f in npu.orig/*; do same "$f" "npu/${f##*/}"; done
  only npu $(ls -A npu.orig); only c $(ls -A c.orig)
  [ -e r.out ] && { echo "FAIL: r.out was written"; fails=1; }
  # all or nothing: the HTML cannot be written (file size limit), so the
  # CSV and JUnit targets keep their old bytes and no temporary is left
  mkdir -p rep sub && echo OLD > rep/r.csv && echo OLD > sub/r.xml
  echo OLD > rep/r.html && cp rep/r.csv old
  ( trap '' XFSZ; ulimit -f 8; exec "$K" compare c npu --csv rep/r.csv \
      --junit sub/r.xml --html rep/r.html ) > out.txt 2>&1
  [ $? -eq 2 ] || { echo "FAIL: compare under ulimit -f"; cat out.txt; fails=1; }
  has "rep/r.html"; has "File too large"
  same rep/r.csv old; same sub/r.xml old; same rep/r.html old
  only rep r.csv r.html; only sub r.xml
  # and when every file can be written, all are, in both directories
  expect 0 "$K" compare c npu --csv rep/r.csv --junit sub/r.xml --html rep/r.html
  cp sub/r.xml out.txt; has 'failures="0"'
  cp rep/r.csv out.txt; has '"c_kv",bf16,compute,float_re,PASS,'
  only rep r.csv r.html; only sub r.xml
  ;;
compare_stdout_full)
  # a report that cannot be written to stdout is an error, not a verdict
  C=$KV/ds_950_pa_nz_bf16_ckv_e4m3_out
  npu_of "$C" npu
  "$K" compare "$C" npu --json > /dev/full 2> out.txt
  [ $? -eq 2 ] || { echo "FAIL: compare --json > /dev/full"; cat out.txt; fails=1; }
  has "kvgold: cannot write the report to standard output"
  "$K" compare "$C" npu > /dev/full 2> out.txt
  [ $? -eq 2 ] || { echo "FAIL: compare > /dev/full"; cat out.txt; fails=1; }
  has "cannot write the report to standard output"
  "$K" check "$C" > /dev/full 2> out.txt
  [ $? -eq 2 ] || { echo "FAIL: check > /dev/full"; cat out.txt; fails=1; }
  has "cannot write the report to standard output"
  ;;
compare_bin_size)
  # an NPU .bin dump has no case entry: its size is judged against the
  # golden output, and the message says so
  C=$KV/ds_950_pa_nz_bf16_ckv_e4m3_out
  npu_of "$C" npu
  strip_npy npu/c_kv.npy | head -c 3070 > npu/c_kv.bin && rm npu/c_kv.npy
  expect 2 "$K" compare "$C" npu
  has "npu/c_kv.bin: raw NPU dump of c_kv is 3070 bytes (1535 bf16 elements); the golden output c_kv is bf16 of shape [3, 1, 1, 512]: 1536 elements, 3072 bytes expected"
  lacks "case.json"
  strip_npy npu/k_rope.npy | head -c 383 > npu/k_rope.bin && rm npu/k_rope.npy
  strip_npy "$C/expected_c_kv.npy" > npu/c_kv.bin
  expect 2 "$K" compare "$C" npu
  has "npu/k_rope.bin: raw NPU dump of k_rope is 383 bytes, not a whole number of bf16 elements (2 bytes each)"
  ;;
# ---- h2-files: files, memory and case-file strictness ----------------------
fifo_inputs)
  # a FIFO as case.json, as an NPU dump or as a third party's file is
  # refused at once (non-blocking open, regular files only), never waited on
  C=$KV/index_pa_last_slot
  copy_case "$C" c; rm c/case.json; mkfifo c/case.json
  expect 2 timeout 20 "$K" check c
  has "c/case.json: is a FIFO (named pipe), not a regular file"
  expect 2 timeout 20 "$K" run c --out o
  has "c/case.json: is a FIFO"
  [ -e o ] && { echo "FAIL: o was created"; fails=1; }
  npu_of "$C" npu; npu_of "$C" tp
  rm npu/k_cache.npy; mkfifo npu/k_cache.npy
  expect 2 timeout 20 "$K" compare "$C" npu
  has "npu/k_cache.npy: is a FIFO (named pipe), not a regular file"
  npu_of "$C" npu2
  rm tp/k_cache.npy; mkfifo tp/k_cache.npy
  expect 2 timeout 20 "$K" compare "$C" npu2 --third-party tp
  has "tp/k_cache.npy: is a FIFO (named pipe), not a regular file"
  ;;
expect_error_status)
  # a status that is not an error an operator returns would make check
  # judge nothing and print PASS: a case-file error instead
  copy_case "$KV/err_pa_duplicate_slot" c
  sed -i 's/"status": 161002/"status": 0/' c/case.json
  expect 2 "$K" check c; has "expect_error.status 0 is not an error status"
  has "c/case.json:"; lacks "PASS"
  sed -i 's/"status": 0/"status": 170005/' c/case.json
  expect 2 "$K" check c; has "expect_error.status 170005 is not an error status"
  sed -i 's/"status": 170005/"status": 161002/' c/case.json
  expect 0 "$K" check c; has "PASS"
  ;;
number_range)
  # a nonzero number that underflows to 0 is refused with its position,
  # like one that overflows
  copy_case "$KV/index_pa_last_slot" c
  sed -i 's/"epsilon": 1e-06/"epsilon": 1e-400/' c/case.json
  expect 2 "$K" run c --out o
  has 'c/case.json:5:16: "epsilon": 1e-400 is out of double range (it underflows to 0)'
  [ -e o ] && { echo "FAIL: o was created"; fails=1; }
  sed -i 's/"epsilon": 1e-400/"epsilon": 1e400/' c/case.json
  expect 2 "$K" check c; has '"epsilon": 1e400 is out of double range'
  ;;
max_memory_edges)
  # every 64-bit count is a valid limit, UINT64_MAX included
  C=$KV/index_pa_last_slot
  expect 0 "$K" --max-memory 18446744073709551615 check "$C"; has "PASS"
  expect 0 "$K" check "$C" --max-memory 18446744073709551615; has "PASS"
  expect 2 "$K" --max-memory 18446744073709551616 check "$C"
  has "--max-memory needs a positive byte count"
  ;;
stale_temporaries)
  # leftovers of a killed run at the very names a run of the same PID
  # would have used (exec keeps the PID) neither block the run nor change
  C=$KV/index_pa_last_slot
  npu_of "$C" ref
  mkdir o
  sh -c 'for n in 0 1 2 3 4 5 6 7; do for f in k_cache ckv_cache; do
           echo stale > "o/.$f.npy.kvgold-$$-$n.tmp"
           echo stale > "o/.$f.npy.kvgold-$$-$n.old"; done; done
         exec "$0" run "$1" --out o' "$K" "$C" > out.txt 2>&1
  rc=$?
  [ "$rc" -eq 0 ] || { echo "FAIL: run over stale temporaries exited $rc"; cat out.txt; fails=1; }
  same o/k_cache.npy ref/k_cache.npy; same o/ckv_cache.npy ref/ckv_cache.npy
  [ "$(cat o/.*.kvgold-* | grep -c stale)" -eq 32 ] || { echo "FAIL: a stale file changed"; fails=1; }
  # and again, over the first run's outputs (backups at taken names too)
  sh -c 'for n in 0 1 2 3 4 5 6 7; do for f in k_cache ckv_cache; do
           echo stale > "o/.$f.npy.kvgold-$$-$n.tmp"
           echo stale > "o/.$f.npy.kvgold-$$-$n.old"; done; done
         exec "$0" run "$1" --out o' "$K" "$C" > out.txt 2>&1
  rc=$?
  [ "$rc" -eq 0 ] || { echo "FAIL: second run exited $rc"; cat out.txt; fails=1; }
  same o/k_cache.npy ref/k_cache.npy; same o/ckv_cache.npy ref/ckv_cache.npy
  [ "$(ls -A o | wc -l)" -eq 66 ] || { echo "FAIL: o holds $(ls -A o | wc -l) names, expected 66"; fails=1; }
  ;;
concurrent_runs)
  # two runs of different cases (same output names, different bytes in
  # every output) into one --out at the same time: every result is one
  # case's whole set (the commits hold the directory's lock)
  copy_case "$KV/index_pa_last_slot" a
  copy_case "$KV/index_pa_last_slot" b
  "$POKE" b/k_cache.npy 100 0001 || exit 99
  "$POKE" b/ckv_cache.npy 100 0001 || exit 99
  npu_of a ra; npu_of b rb
  cmp -s ra/k_cache.npy rb/k_cache.npy && { echo "FAIL: k_cache same"; fails=1; }
  cmp -s ra/ckv_cache.npy rb/ckv_cache.npy && { echo "FAIL: ckv_cache same"; fails=1; }
  i=0; mixed=0
  while [ $i -lt 150 ]; do
    "$K" run a --out o > /dev/null 2>oa.txt & pa=$!
    "$K" run b --out o > /dev/null 2>ob.txt & pb=$!
    wait $pa || { echo "FAIL: run a exited non-zero"; cat oa.txt; fails=1; }
    wait $pb || { echo "FAIL: run b exited non-zero"; cat ob.txt; fails=1; }
    if cmp -s o/k_cache.npy ra/k_cache.npy; then w=ra; else w=rb; fi
    if ! cmp -s o/k_cache.npy $w/k_cache.npy || ! cmp -s o/ckv_cache.npy $w/ckv_cache.npy; then
      mixed=$((mixed + 1))
    fi
    i=$((i + 1))
  done
  [ $mixed -eq 0 ] || { echo "FAIL: $mixed of 150 concurrent pairs left a mixed set"; fails=1; }
  only o k_cache.npy ckv_cache.npy
  ;;
cow_budget)
  # caches of 1 MiB and more are mapped copy-on-write: the pages the golden
  # writes (slots 0 and 65535: the first and last page of each cache) are
  # reserved against --max-memory before the operator runs
  copy_case "$KV/index_pa_last_slot" c
  { npy_header '<f2' '(4096, 16, 1, 24)'; yes kvgold | head -c 3145728; } > c/ckv_cache.npy
  { npy_header '<f2' '(4096, 16, 1, 8)'; yes kvgold | head -c 1048576; } > c/k_cache.npy
  { npy_header '<i8' '(2,)'; printf '\000\000\000\000\000\000\000\000\377\377\000\000\000\000\000\000'; } > c/index.npy
  expect 2 "$K" run c --out o --max-memory 12K
  has "not enough memory: copy-on-write of mapped"; has "the 2 pages the golden writes"
  has "over the limit of 12288 bytes"; lacks "operator refused"
  [ -e o ] && { echo "FAIL: o was created"; fails=1; }
  expect 2 "$K" compare c c --max-memory 12K; has "copy-on-write of mapped"
  expect 0 "$K" run c --out o --max-memory 256K; has "o/ckv_cache.npy"
  # only the two written rows differ from the initial cache
  cmp -l c/ckv_cache.npy o/ckv_cache.npy | awk '$1 <= 128+48 || $1 > 3145728+128-48 {n++} END {exit !(n == NR && NR > 0)}' \
    || { echo "FAIL: bytes outside slots 0 and 65535 changed"; fails=1; }
  ;;
# ---- many cases, --jobs N (h13-jobs) ----------------------------------------
jobs_order)
  # every committed case, one worker and three: the same bytes on stdout and
  # stderr, the cases in input order (a directory's cases by path), all PASS
  # (each run of every case costs ~18 s under ASan: two, not three)
  "$K" check "$V" --jobs 1 > s1.txt 2> e1.txt || { echo "FAIL: --jobs 1 exited $?"; fails=1; }
  "$K" check "$V" --jobs 3 > s3.txt 2> e3.txt || { echo "FAIL: --jobs 3 exited $?"; fails=1; }
  same s1.txt s3.txt; same e1.txt e3.txt
  n=$(find "$V" -name case.json | wc -l)
  grep -q "^totals: $n cases: $n PASS, 0 INCOMPLETE, 0 FAIL, 0 INVALID, 0 ERROR$" s3.txt \
    || { echo "FAIL: totals of $n cases"; tail -3 s3.txt; fails=1; }
  find "$V" -name case.json | sed 's,/case.json$,,' | LC_ALL=C sort > want.txt
  sed -n 's/^  PASS       //p' s3.txt > got.txt
  same want.txt got.txt
  grep '^case ' s3.txt | sed 's/^case \([^ ]*\) .*/\1/' > reports.txt
  same want.txt reports.txt
  # several CASE arguments keep their order, not sorted
  "$K" check "$KV/index_pa_last_slot" "$KV/err_pa_duplicate_slot" "$V/examples" --jobs 3 > a3.txt 2>&1
  "$K" check "$KV/index_pa_last_slot" "$KV/err_pa_duplicate_slot" "$V/examples" --jobs 1 > a1.txt 2>&1
  same a1.txt a3.txt
  sed -n 's/^  PASS       //p' a3.txt | head -2 > got.txt
  printf '%s\n' "$KV/index_pa_last_slot" "$KV/err_pa_duplicate_slot" > want.txt
  same want.txt got.txt
  # --json: one document, identical whatever --jobs
  "$K" check "$KV" --json --jobs 1 > j1.txt; "$K" check "$KV" --json --jobs 3 > j3.txt
  same j1.txt j3.txt
  grep -q '^{"tool":"kvgold check","cases":\[$' j3.txt && tail -1 j3.txt | grep -q '"verdict":"PASS","exit":0}$' \
    || { echo "FAIL: check --json document"; head -2 j3.txt; tail -1 j3.txt; fails=1; }
  [ "$(grep -c '^{"case":' j3.txt)" -eq "$(find "$KV" -name case.json | wc -l)" ] \
    || { echo "FAIL: one JSON entry per case"; fails=1; }
  expect 2 "$K" check "$KV" --jobs 0; has "--jobs needs a count from 1 to 4096"
  expect 2 "$K" check "$KV" --jobs x; has "--jobs needs a count"
  ;;
jobs_bad_case)
  # a mismatching case and an invalid one among good ones: each is named in
  # its verdict line, the others pass, the exit status is the worst
  mkdir -p d/b_nested
  copy_case "$KV/ds_950_pa_nz_bf16_ckv_e4m3_out" d/b_mismatch
  "$POKE" d/b_mismatch/expected_c_kv.npy 10 0001 || exit 99
  copy_case "$KV/index_pa_last_slot" d/a_good
  copy_case "$KV/index_pa_last_slot" d/c_good
  expect 1 "$K" check d --jobs 3
  has "  FAIL       d/b_mismatch"; has "  PASS       d/a_good"; has "  PASS       d/c_good"
  has "totals: 3 cases: 2 PASS, 0 INCOMPLETE, 1 FAIL, 0 INVALID, 0 ERROR"
  has "FAIL (first at element 10)"
  copy_case "$KV/index_pa_last_slot" d/b_nested/invalid
  sed -i 's/"op":/"colour": "blue", "op":/' d/b_nested/invalid/case.json
  expect 2 "$K" check d --jobs 2 --junit j.xml
  has '  INVALID    d/b_nested/invalid  (invalid case d/b_nested/invalid: d/b_nested/invalid/case.json'
  has 'unknown key "colour"'; has "  FAIL       d/b_mismatch"
  has "totals: 4 cases: 2 PASS, 0 INCOMPLETE, 1 FAIL, 1 INVALID, 0 ERROR"
  grep -q 'tests="4" failures="1" errors="1"' j.xml || { echo "FAIL: junit counts"; cat j.xml; fails=1; }
  grep -q '<error type="INVALID" message="invalid case d/b_nested/invalid' j.xml || { echo "FAIL: junit error"; fails=1; }
  grep -q '<failure type="FAIL" message="FAIL">case d/b_mismatch' j.xml || { echo "FAIL: junit failure"; fails=1; }
  [ "$(grep -c '<testcase ' j.xml)" -eq 4 ] || { echo "FAIL: 4 testcases"; fails=1; }
  # the order of the summary is the input order: the bad case in the middle
  sed -n 's/^  [A-Z]* *\(d\/[^ ]*\).*/\1/p' out.txt | tr '\n' ' ' > got.txt
  printf 'd/a_good d/b_mismatch d/b_nested/invalid d/c_good ' > want.txt
  same want.txt got.txt
  # a report file that cannot be written: nothing is run, exit 2
  expect 2 "$K" check d --junit nodir/j.xml; has "--junit nodir/j.xml: its directory nodir"
  lacks "totals:"
  ;;
jobs_killed_worker)
  # a worker killed by SIGKILL (the OOM killer, a timeout) is an ERROR for
  # its case, never a PASS, and the other cases still run
  A=$KV/index_pa_last_slot B=$KV/err_pa_duplicate_slot
  KVGOLD_TEST_KILL_WORKER=$B expect 2 "$K" check "$A" "$B" "$V/examples" --jobs 2
  has "  ERROR      $B  (the worker was killed by signal 9"
  has "the case was not judged"; has "  PASS       $A"
  has "1 ERROR"; lacks "  PASS       $B"
  KVGOLD_TEST_KILL_WORKER=$B expect 2 "$K" check "$A" "$B" --json --junit j.xml
  has '"verdict":"ERROR","report":"","messages":"","error":"the worker was killed by signal 9'
  has '"verdict":"ERROR","exit":2}'
  grep -q '<error type="ERROR" message="the worker was killed by signal 9' j.xml \
    || { echo "FAIL: junit lacks the killed worker"; cat j.xml; fails=1; }
  # compare: the same for a killed worker judging an NPU dump
  npu_of "$A" npu_a
  printf '%s npu_a\n' "$A" > list.txt
  KVGOLD_TEST_KILL_WORKER=$A expect 2 "$K" compare --cases list.txt --json
  has '"verdict":"ERROR","report":null'; lacks '"verdict":"PASS"'
  ;;
jobs_compare)
  # compare --cases LIST: "CASE NPU_DIR" lines, paths relative to the list
  mkdir -p suite
  C=ds_950_pa_nz_bf16_ckv_e4m3_out
  copy_case "$KV/$C" suite/$C
  npu_of suite/$C suite/npu_pass
  npu_of suite/$C suite/npu_fail; "$POKE" suite/npu_fail/c_kv.npy 0 4000 || exit 99
  npu_of suite/$C suite/npu_missing; rm suite/npu_missing/k_rope.npy
  printf '# case  npu dump\n%s npu_pass\n\n%s npu_fail\n%s\tnpu_missing\n%s npu_pass npu_pass2\n' \
    $C $C $C $C > suite/list.txt
  cp -r suite/npu_pass suite/npu_pass2
  expect 1 "$K" compare --cases suite/list.txt --jobs 3
  has "  PASS       suite/$C suite/npu_pass"
  has "  FAIL       suite/$C suite/npu_fail"
  has "  INCOMPLETE suite/$C suite/npu_missing"
  has "  PASS       suite/$C suite/npu_pass suite/npu_pass2"
  has "totals: 4 cases: 2 PASS, 1 INCOMPLETE, 1 FAIL, 0 INVALID, 0 ERROR"
  has "c_kv       bf16        float_re   FAIL"
  "$K" compare --cases suite/list.txt --jobs 1 > c1.txt 2>&1
  "$K" compare --cases suite/list.txt --jobs 3 > c3.txt 2>&1
  same c1.txt c3.txt
  expect 1 "$K" compare --cases suite/list.txt --json --junit j.xml
  has '"report":{'; has '"totals":{"cases":4,"PASS":2,"INCOMPLETE":1,"FAIL":1,"INVALID":0,"ERROR":0},"verdict":"FAIL","exit":1}'
  grep -q '<failure type="INCOMPLETE"' j.xml && grep -q '<failure type="FAIL"' j.xml \
    || { echo "FAIL: junit of compare --cases"; cat j.xml; fails=1; }
  # a bad list or an option that needs a file per case: exit 2, named
  printf '%s\n' $C > bad.txt
  expect 2 "$K" compare --cases bad.txt; has 'bad.txt:1: expected "CASE NPU_DIR"'
  printf '%s %s\n' $C "$(seq -s' ' 1 17)" > many.txt     # 17 NPU_DIRs: one too many
  expect 2 "$K" compare --cases many.txt; has 'many.txt:1: expected "CASE NPU_DIR" (up to 16 NPU_DIRs'
  expect 2 "$K" compare --cases suite/list.txt --html r.html; has "--html is not available with --cases"
  expect 2 "$K" compare --jobs 2 "$KV/$C" npu; has "--jobs needs --cases LIST_FILE"
  expect 2 "$K" compare --cases nosuch.txt; has "nosuch.txt: No such file or directory"
  ;;
*) echo "unknown scenario $S"; exit 99 ;;
esac
cli_done
