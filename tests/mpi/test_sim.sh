#!/bin/sh
# tests/mpi/test_sim.sh: the simulation bootstrap (GENCOMM_BOOT=sim,
# boot/boot_sim.c). tests/mpi/sim_boot runs alone as rank r of jobs of
# 1,000 and 100,000 processes (its checks: the rank, size and host, the
# hierarchy, a duplicate, messages to itself, and errors, never hangs,
# for anything that needs another process); settings out of range are
# refused with a message naming them; bench/scale_sim produces its table
# at P = 1,000, with the world and a duplicate under 1 KiB and the split's
# group as the colours make it.
set -u
. "${top_srcdir:-.}/tests/lib.sh"

prog=$builddir/tests/mpi/sim_boot
scale=$builddir/bench/scale_sim
need_progs "$prog" "$scale"
limit=60
unset GENCOMM_HOSTNAME GENCOMM_LOCAL_SIZE PMI_FD PMIX_NAMESPACE PMIX_RANK

sim() {
    # sim WHAT RC SIZE RANK PPN: sim_boot under those settings exits RC
    what=$1
    want=$2
    shift 2
    expect "$what" "$want" env GENCOMM_BOOT=sim GENCOMM_SIM_SIZE="$1" \
        GENCOMM_SIM_RANK="$2" GENCOMM_SIM_PPN="$3" "$prog" "$1" "$2" "$3"
}

sim "rank 70 of 1,000, 64 a host" 0 1000 70 64
sim "the last rank of 1,000, alone on the last host" 0 1000 999 111
sim "rank 0 of 100,000, 64 a host" 0 100000 0 64
sim "the only rank" 0 1 0 1

bad() {
    # bad WHAT PATTERN SIZE RANK PPN: refused at MPI_Init, saying PATTERN
    what=$1
    pattern=$2
    shift 2
    if sim "refused: $what" 1 "$@"; then
        printf '%s\n' "$out" | grep -q -- "$pattern" ||
            { fail "$what: no message '$pattern'"; show_out; }
    fi
}
bad "rank not below the size" \
    "GENCOMM_SIM_RANK 10 is not below GENCOMM_SIM_SIZE 10" 10 10 1
bad "no size" "GENCOMM_BOOT=sim needs GENCOMM_SIM_SIZE" 0 0 1
bad "more processes a host than the job" \
    "GENCOMM_SIM_PPN 20 is not between 1 and GENCOMM_SIM_SIZE 10" 10 0 20

run "bench/scale_sim at P = 1,000" "$scale" --sizes 1000 --dups 20 \
    --colors 100 --rank 250
row() {
    # row LABEL: the value of the table's row LABEL (its first column)
    printf '%s\n' "$out" | awk -F' [|] ' -v l="$1" \
        '$1 == "| " l { sub(/ [|]$/, "", $2); print $2 }'
}
for label in "start-up: gcm_init, bytes" "world communicator, bytes" \
    "MPI_Comm_dup of the world, bytes each" \
    "split into colours: new communicator, bytes" \
    "SMP hierarchy, MPI levels (MPIX_Comm_node), bytes" \
    "SMP hierarchy, collectives' node structure, bytes" \
    "SMP hierarchy set-up in all, s" "schedule: barrier, bytes" \
    "schedule: alltoall 8 B a rank, bytes"; do
    v=$(row "$label")
    printf '%s\n' "$v" | grep -Eq '^[0-9][0-9.e+-]*( KiB| MiB)?$' ||
        fail "scale_sim: no figure for '$label' (got '$v')"
done
for label in "world communicator, bytes" \
    "MPI_Comm_dup of the world, bytes each"; do
    v=$(row "$label")
    printf '%s\n' "$v" | grep -Eq '^[0-9]+$' && [ "$v" -lt 1024 ] ||
        fail "scale_sim: '$label' is $v, not under 1 KiB at P = 1,000"
done
v=$(row "split into colours: its members")
[ "$v" = 10 ] || fail "scale_sim: rank 250's colour of 100 has 10 members, not '$v'"
[ "$status" -eq 0 ] || show_out
finish
