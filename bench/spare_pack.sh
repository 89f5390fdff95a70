#!/usr/bin/env bash
# bench/spare_pack.sh BUILDDIR BUNDLE.tar.xz: packs what bench/spare_run.sh
# needs to run gencomm, Open MPI and MPICH side by side on a bare x86-64
# machine with more cores (one that has neither UCX nor an MPI installed):
# gcrun, libgencomm and the benchmark programs of BUILDDIR (built by
# `bench/run --only p2p,threads,coll,nbc` there first), Open MPI's and MPICH's
# launchers and components as Debian installs them, and every shared library
# all of these load except the C library's own. About 25 MB.
set -euo pipefail

[[ $# -eq 2 ]] || { echo "usage: $0 BUILDDIR BUNDLE.tar.xz" >&2; exit 2; }
tree=$(cd "$1" && pwd)
bundle=$2
lib=/usr/lib/x86_64-linux-gnu
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

mkdir -p "$out"/{bin,lib/ucx,ompi/etc,ompi/share,pmix}
cp "$tree"/tools/gcrun "$tree"/bench/.libs/gcm_thread_bench "$out"/bin/
for p in mpi_thread_bench mpi_coll_bench mpi_nbc_bench mpi_bench; do
    for impl in gencomm openmpi mpich; do
        [[ -x $tree/bench/$p.$impl ]] ||
            { echo "$0: no $tree/bench/$p.$impl (run bench/run)" >&2;
              exit 1; }
        cp "$tree/bench/$p.$impl" "$out"/bin/
    done
done
cp -L "$tree"/.libs/libgencomm.so.0 "$out"/lib/
cp /usr/bin/orterun "$out"/bin/mpirun.openmpi
cp /usr/bin/mpiexec.hydra "$out"/bin/mpirun.mpich
cp /usr/bin/hydra_pmi_proxy "$out"/bin/
# UCX finds its transports in ucx/ beside libucs.
cp "$lib"/ucx/*.so* "$out"/lib/ucx/
cp -r "$lib"/openmpi/lib/openmpi3 "$out"/ompi/
cp -r /usr/share/openmpi "$out"/ompi/share/
cp /etc/openmpi/openmpi-mca-params.conf "$out"/ompi/etc/ 2>/dev/null || true
cp "$lib"/pmix2/lib/pmix/*.so "$out"/pmix/

elves=$(find "$out" -type f -exec sh -c \
        'head -c 4 "$1" | grep -q ELF && echo "$1"' _ {} \;)
for e in $elves; do
    LD_LIBRARY_PATH=$out/lib ldd "$e" 2>/dev/null
done | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u |
while read -r l; do
    case ${l##*/} in
        libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*|\
        libresolv.so*) continue ;;
    esac
    [[ -e $out/lib/${l##*/} ]] || cp -L "$l" "$out"/lib/
done
tar -C "$out" -cf - . | xz -T2 -4 >"$bundle"
echo "$bundle: $(du -h "$bundle" | cut -f1)"
