#!/bin/sh
# Installs the Debian 12 packages that building, testing and benchmarking
# gencomm need, if any is missing. Runs apt-get non-interactively; uses sudo
# when not root. Pass --bench to add Open MPI and MPICH (side-by-side runs).
set -e

pkgs="build-essential autoconf automake libtool pkg-config libucx-dev
ucx-utils libhwloc-dev hwloc check libpmix-dev libxml2-dev libscotch-dev
iproute2 procps clang libclang-rt-14-dev
libopenmpi-dev openmpi-bin libmpich-dev mpich slurm-wlm munge"
if [ "${1:-}" = "--bench" ]; then
    pkgs="$pkgs gnuplot-nox"
fi

missing=""
for p in $pkgs; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
            grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
if [ -z "$missing" ]; then
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    sudo=""
else
    sudo="sudo"
fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
# shellcheck disable=SC2086
$sudo apt-get install -y -q --no-install-recommends $missing
