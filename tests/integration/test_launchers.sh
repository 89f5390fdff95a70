#!/bin/sh
# The same example binary runs under Open MPI's mpirun (PMIx), MPICH's
# mpiexec (Hydra, PMI-1) and alone (singleton), not only under gcrun.
set -u
. "${top_srcdir:-.}/tests/lib.sh"
ex="$builddir/examples/intracomm"
limit=60

# three WHAT CMD...: CMD exits 0 and each of its 3 LCOs heard from all.
three() {
    run "$@" && expect_count 3 'received from all 3 LCOs'
}

ran=0
if command -v mpirun.openmpi >/dev/null; then
    three "Open MPI mpirun (PMIx)" mpirun.openmpi --allow-run-as-root \
        --oversubscribe -np 3 "$ex"
    ran=1
else
    echo "skip: mpirun.openmpi not installed"
fi
if command -v mpiexec.mpich >/dev/null; then
    three "MPICH mpiexec (Hydra, PMI-1)" mpiexec.mpich -n 3 "$ex"
    ran=1
else
    echo "skip: mpiexec.mpich not installed"
fi

# Singleton: started alone, the world has one process.
limit=30
expect "singleton channel refuses" 1 \
    env -u PMI_FD -u PMIX_RANK "$builddir/examples/channel" &&
    expect_match "needs at least 2 processes"

[ $ran -eq 1 ] || exit 77
finish
