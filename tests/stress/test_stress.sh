#!/bin/sh
# tests/stress/test_stress.sh: lco_stress through gcrun, 3 processes x 3
# threads x 2 LCOs per thread, several seeds, with the same-host shared
# memory path and without it (UCX only), then a wider shape. Each run has
# its own deadline (the program fails with what it still waits for) and
# a limit above it. Exit 0 pass, 1 fail, 77 skip.
set -u
. "${top_srcdir:-.}/tests/lib.sh"
prog="$builddir/tests/stress/lco_stress"
need_progs "$gcrun" "$prog"
limit=90

# stress NPROCS SHM ARGS...: the run (GENCOMM_SHM=SHM) must exit 0 with
# one ok line per process.
stress() {
    _np=$1
    _shm=$2
    shift 2
    GENCOMM_SHM=$_shm launch "$_np" "$prog" -d 60 "$@"
    if expect_rc 0; then
        expect_count "$_np" 'no loss, duplication or reordering'
        printf '%s\n' "$out" | sed 's/^/   /'
    fi
}

for seed in 1 2 3; do
    stress 3 1 -t 3 -k 2 -m 6000 -c 12 -s $seed
done
stress 3 0 -t 3 -k 2 -m 3000 -c 12 -s 4
stress 2 1 -t 4 -k 3 -m 2000 -c 8 -s 5
finish
