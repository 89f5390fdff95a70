#!/bin/bash
# The same example binary runs under Open MPI's mpirun (PMIx), MPICH's
# mpiexec (Hydra, PMI-1) and alone (singleton), not only under gcrun.
set -u
b=${top_builddir:-.}
fail=0
ex="$b/examples/intracomm"

run() {
    local what=$1; shift
    local out
    if ! out=$(timeout 60 "$@" 2>&1); then
        echo "FAIL: $what: exit status $?"; echo "$out"; fail=1; return
    fi
    if [ "$(grep -c 'received from all 3 LCOs' <<<"$out")" -ne 3 ]; then
        echo "FAIL: $what: expected 3 'received from all' lines"; echo "$out"
        fail=1; return
    fi
    echo "ok: $what"
}

ran=0
if command -v mpirun.openmpi >/dev/null; then
    run "Open MPI mpirun (PMIx)" mpirun.openmpi --allow-run-as-root \
        --oversubscribe -np 3 "$ex"
    ran=1
else
    echo "skip: mpirun.openmpi not installed"
fi
if command -v mpiexec.mpich >/dev/null; then
    run "MPICH mpiexec (Hydra, PMI-1)" mpiexec.mpich -n 3 "$ex"
    ran=1
else
    echo "skip: mpiexec.mpich not installed"
fi

# Singleton: started alone, the world has one process.
out=$(env -u PMI_FD -u PMIX_RANK timeout 30 "$b/examples/channel" 2>&1)
if [ $? -ne 1 ] || ! grep -q "needs at least 2 processes" <<<"$out"; then
    echo "FAIL: singleton channel should refuse with a clear message"
    echo "$out"; fail=1
else
    echo "ok: singleton start"
fi

[ $ran -eq 1 ] || exit 77
exit $fail
