#!/bin/sh
# Install the Debian 12 packages kvgold's build and tests need, if missing.
# As root it installs them; otherwise it prints the command to run.
set -eu
pkgs="cmake make gcc clang libclang-rt-14-dev libcmocka-dev \
python3-numpy python3-pytest python3-torch pkg-config valgrind chromium \
python3-pil time"
need=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || need="$need $p"
done
[ -z "$need" ] && exit 0
if [ "$(id -u)" -eq 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq $need
else
  echo "kvgold needs these Debian packages:$need" >&2
  echo "install them with: sudo apt-get install -y$need" >&2
  exit 1
fi
