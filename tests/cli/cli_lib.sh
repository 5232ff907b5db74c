# tests/cli/cli_lib.sh - what every kvgold command scenario script shares
# (tests/cli/cli_test.sh and each operator's tests/ops/<op>/cli_test.sh),
# sourced with the script's arguments:
#   KVGOLD NPY_POKE VECTORS WORKDIR SCENARIO
# It sets K, POKE, V, W and S, makes WORKDIR/SCENARIO the working
# directory, and defines the helpers below; a scenario sets fails=1 on a
# failed check, and the script ends with cli_done.
set -u
K=$1 POKE=$2 V=$3 W=$4 S=$5
rm -rf "$W/$S" && mkdir -p "$W/$S" && cd "$W/$S" || exit 99
fails=0
# expect RC CMD...: run CMD, keep stdout+stderr in out.txt, check the status
expect() {
  want=$1; shift
  "$@" > out.txt 2>&1
  got=$?
  if [ "$got" -ne "$want" ]; then
    echo "FAIL: '$*' exited $got, expected $want"; cat out.txt; fails=1
  fi
}
# has TEXT: the last command's output must contain TEXT
has() {
  if ! grep -F -q -- "$1" out.txt; then
    echo "FAIL: output lacks '$1'"; cat out.txt; fails=1
  fi
}
# lacks TEXT: the last command's output must not contain TEXT
lacks() {
  if grep -F -q -- "$1" out.txt; then
    echo "FAIL: output has '$1'"; cat out.txt; fails=1
  fi
}
# same A B: files A and B must hold the same bytes
same() {
  if ! cmp -s "$1" "$2"; then echo "FAIL: $1 differs from $2"; fails=1; fi
}
# only DIR NAME...: DIR must hold exactly these names (no stray temporaries)
only() {
  d=$1; shift
  got=$(ls -A "$d" | sort | tr '\n' ' ')
  want=$(for n in "$@"; do echo "$n"; done | sort | tr '\n' ' ')
  if [ "$got" != "$want" ]; then
    echo "FAIL: $d holds '$got', expected '$want'"; fails=1
  fi
}
# npy_header DESCR SHAPE: a 128-byte version 1.0 .npy header, by hand
npy_header() {
  printf '\223NUMPY\001\000\166\000'
  printf "%-117s\n" "{'descr': '$1', 'fortran_order': False, 'shape': $2, }"
}
# strip_npy FILE: the data of a NumPy-written .npy (header of 128 or 64
# bytes; the length is at bytes 8-9, below 256 for these files)
strip_npy() {
  hl=$(od -An -tu1 -j8 -N1 "$1" | tr -d ' ')
  tail -c +$((hl + 11)) "$1"
}
npu_of() { # npu_of CASE DIR: the golden's outputs as a stand-in NPU dump
  mkdir -p "$2" && "$K" run "$1" --out "$2" > /dev/null || exit 99
}
copy_case() { cp -r "$1" "$2" || exit 99; }
# cli_done: the verdict line and exit status of the scenario
cli_done() {
  [ "$fails" -eq 0 ] && echo "cli scenario $S: ok"
  exit $fails
}
