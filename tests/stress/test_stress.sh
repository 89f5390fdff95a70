#!/bin/sh
# tests/stress/test_stress.sh: lco_stress through gcrun, 3 processes x 3
# threads x 2 LCOs per thread, several seeds, with the same-host shared
# memory path and without it (UCX only), then a wider shape. Each run has
# its own deadline (the program fails with what it still waits for) and
# a timeout above it. Exit 0 pass, 1 fail, 77 skip.
set -u
b="${top_builddir:-.}"
gcrun="$b/tools/gcrun"
prog="$b/tests/stress/lco_stress"
if [ ! -x "$gcrun" ]; then
    echo "SKIP: $gcrun is not built"
    exit 77
fi
status=0

# run NPROCS ENV ARGS...: the run must exit 0 with one ok line per process.
run() {
    np=$1
    shm=$2
    shift 2
    echo "== GENCOMM_SHM=$shm gcrun -n $np lco_stress $*"
    start=$(date +%s)
    out=$(GENCOMM_SHM=$shm timeout 90 "$gcrun" -n "$np" "$prog" -d 60 "$@" \
          2>&1)
    rc=$?
    echo "   exit $rc after $(( $(date +%s) - start ))s"
    ok=$(printf '%s\n' "$out" | grep -c 'no loss, duplication or reordering')
    if [ $rc -ne 0 ] || [ "$ok" -ne "$np" ]; then
        echo "FAIL: exit $rc, $ok of $np processes ok"
        printf '%s\n' "$out" | tail -40
        status=1
    else
        printf '%s\n' "$out" | sed 's/^/   /'
    fi
}

for seed in 1 2 3; do
    run 3 1 -t 3 -k 2 -m 6000 -c 12 -s $seed
done
run 3 0 -t 3 -k 2 -m 3000 -c 12 -s 4
run 2 1 -t 4 -k 3 -m 2000 -c 8 -s 5
exit $status
