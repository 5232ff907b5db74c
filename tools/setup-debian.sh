#!/bin/sh
# Install the Debian 12 packages kvgold's build and tests need, if missing.
# As root it installs them; otherwise it prints the command to run.
#
# Python: kvgold's generator and Python tests run with Debian's
# /usr/bin/python3 and Debian's python3-* packages (NumPy 1.24, pytest,
# torch 1.13 CPU, PIL, mypy for the type check), never a python3 that comes
# first on PATH (pyenv, a venv),
# which does not see them. chromium renders the HTML reports in tests.
set -eu
pkgs="cmake make gcc clang libclang-rt-14-dev libcmocka-dev pkg-config \
valgrind time python3 python3-numpy python3-pytest python3-torch python3-pil \
mypy chromium"
need=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || need="$need $p"
done
if [ -n "$need" ]; then
  if [ "$(id -u)" -eq 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq $need
  else
    echo "kvgold needs these Debian packages:$need" >&2
    echo "install them with: sudo apt-get install -y$need" >&2
    exit 1
  fi
fi

# The packages being installed is not enough if /usr/bin/python3 is not
# the interpreter they belong to (replaced, or a broken link): say so.
py=/usr/bin/python3
modules="numpy pytest torch PIL mypy"
for m in $modules; do
  if ! "$py" -c "import $m" >/dev/null 2>&1; then
    echo "kvgold: $py cannot import $m." >&2
    [ -x "$py" ] || echo "kvgold: $py does not exist or is not executable." >&2
    echo "kvgold runs Python as $py with Debian's packages; fix it with:" >&2
    echo "  sudo apt-get install -y --reinstall python3 python3-numpy" \
         "python3-pytest python3-torch python3-pil python3-mypy" >&2
    onpath=$(command -v python3 2>/dev/null || true)
    if [ -n "$onpath" ] && [ "$onpath" != "$py" ]; then
      echo "(the python3 on your PATH, $onpath, is another interpreter;" \
           "kvgold does not use it)" >&2
    fi
    exit 1
  fi
done
