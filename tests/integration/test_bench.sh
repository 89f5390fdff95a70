#!/bin/bash
# The benchmark programs still build and run (short runs; figures are not
# judged here: make bench reports them). Each must print one CSV row per
# measurement in the format bench/run collects.
set -u
. "${top_srcdir:-.}/tests/lib.sh"
b=$(cd "${top_builddir:-.}" && pwd)
s=$(cd "${top_srcdir:-$b}" && pwd)
gcrun=$b/tools/gcrun

# rows WHAT IMPL MIN: at least MIN well-formed rows of IMPL in out.
rows() {
    local n
    n=$(grep -cE "^[a-z0-9_]+,[0-9]+,${2},[0-9.]+,(us|MB/s|Mmsg/s)$" \
        <<<"$out")
    if [ "$n" -lt "$3" ]; then
        fail_out "$1 printed $n rows, expected $3"
    else
        echo "ok: $1 ($n rows)"
    fi
}

# has RE WHY: some line of out matches RE; if not, fail with WHY.
has() {
    grep -qE "$1" <<<"$out" || fail_out "$2"
}

# build NAME [FLAGS...]: bench/NAME.c built with the build tree's mpicc as
# bench/run builds it, into exe; a file that does not build ends the test.
build() {
    local name=$1
    shift
    exe=$work/$name.gencomm
    if ! "$b/tools/mpicc" -std=gnu11 -O2 -Wall -Werror "$@" -o "$exe" \
            "$s/bench/$name.c"; then
        echo "FAIL: $name.c does not build with tools/mpicc"
        exit 1
    fi
}

work=$(mktemp -d "${TMPDIR:-/tmp}/gencomm-bench-test.XXXXXX")
trap 'rm -rf "$work"' EXIT

# bench/run also builds the MPI benchmarks with Open MPI's and MPICH's
# wrappers under -Werror, where gencomm's MPIX_ extensions are missing.
for cc in mpicc.openmpi mpicc.mpich; do
    command -v "$cc" >/dev/null 2>&1 || { echo "skip: no $cc"; continue; }
    built=ok
    for src in "$s"/bench/mpi_*.c; do
        "$cc" -std=gnu11 -O2 -Wall -Werror -pthread -c -o "$work/x.o" \
            "$src" >"$work/cc.log" 2>&1 ||
            { fail "$(basename "$src") does not build with $cc"
              cat "$work/cc.log"; built=; }
    done
    [ -z "$built" ] || echo "ok: bench/mpi_*.c build with $cc"
done

run "gcm_bench" "$gcrun" -n 2 "$b/bench/gcm_bench" --quick
rows "gcm_bench --quick" gencomm 8
has '^chan_create,0,gencomm,' "gcm_bench printed no chan_create row"

run "ucx_am_bench" "$b/bench/ucx_am_bench" --quick --no-bind
rows "ucx_am_bench --quick" ucx 7

# shm_floor checks each scheme's result itself and fails on a wrong one.
run "shm_floor" "$b/bench/shm_floor" --quick
rows "shm_floor --quick" "(cma_read|cma_write|staged)" 6

# mpi_bench.c against gencomm's MPI layer, started by gcrun as bench/run
# starts it: 7 point-to-point rows and comm_dup_np2 with 2 processes,
# comm_dup_np3 alone with 3.
build mpi_bench
run "mpi_bench (gencomm)" "$gcrun" -n 2 "$exe" gencomm-mpi --quick
rows "mpi_bench gencomm-mpi --quick, 2 processes" gencomm-mpi 10
has '^comm_dup_np2,0,gencomm-mpi,' "no comm_dup_np2 row"
has '^chan_create,0,gencomm-mpi,' "no chan_create row (MPIX_ LCO calls)"
has '^comm_connect,0,gencomm-mpi,[0-9.]+,us$' \
    "no comm_connect row (MPI_Open_port, connect/accept)"

run "mpi_bench (gencomm, 3)" "$gcrun" -n 3 "$exe" gencomm-mpi --quick
rows "mpi_bench gencomm-mpi --quick, 3 processes" gencomm-mpi 1
if grep -qE '^(latency|bandwidth|comm_dup_np2),' <<<"$out" ||
    ! grep -q '^comm_dup_np3,0,gencomm-mpi,' <<<"$out"; then
    fail "with 3 processes only comm_dup_np3 should be printed"
    echo "$out"
fi
# The thread benchmarks: native and MPI, thread-to-thread latency in one
# process, then the message rate with 1, 2 and 4 threads in two.
run "gcm_thread_bench (1)" "$gcrun" -n 1 --bind-to none \
    "$b/bench/gcm_thread_bench" --quick
rows "gcm_thread_bench --quick, 1 process" gencomm 2
run "gcm_thread_bench (2)" "$gcrun" -n 2 "$b/bench/gcm_thread_bench" --quick
rows "gcm_thread_bench --quick, 2 processes" gencomm 3
for t in 1 2 4; do
    has "^msgrate_t$t,8,gencomm,[0-9.]+,Mmsg/s$" \
        "gcm_thread_bench: no msgrate_t$t row"
done

build mpi_thread_bench -pthread
run "mpi_thread_bench (1)" "$gcrun" -n 1 --bind-to none "$exe" gencomm-mpi \
    --quick
rows "mpi_thread_bench gencomm-mpi --quick, 1 process" gencomm-mpi 2
run "mpi_thread_bench (2)" "$gcrun" -n 2 "$exe" gencomm-mpi --quick
rows "mpi_thread_bench gencomm-mpi --quick, 2 processes" gencomm-mpi 3
# One thread count, a fixed number of windows: the rate and the count of
# messages an instruction count divides by ((20 warm-up + 3) x 64).
run "mpi_thread_bench --windows" "$gcrun" -n 2 "$exe" gencomm-mpi \
    --threads 1 --windows 3
rows "mpi_thread_bench --threads 1 --windows 3" gencomm-mpi 1
has '^msgrate_t1_msgs,8,gencomm-mpi,1472\.000,messages$' \
    "mpi_thread_bench --windows 3: no msgrate_t1_msgs row of 1472"

# The collectives: all six at 3 processes; a chosen pair under a label.
build mpi_coll_bench
run "mpi_coll_bench (3)" "$gcrun" -n 3 "$exe" gencomm-mpi --quick
# barrier once, five operations at four sizes
rows "mpi_coll_bench gencomm-mpi --quick, 3 processes" gencomm-mpi 21
has '^alltoall_np3,1048576,gencomm-mpi,' \
    "mpi_coll_bench: no alltoall_np3 row at 1 MiB"
run "mpi_coll_bench (2x2)" "$gcrun" --nodes 2 -n 4 "$exe" x --quick \
    --label 2x2 --ops allreduce,bcast
rows "mpi_coll_bench --label 2x2 --ops allreduce,bcast" x 8
if grep -vqE '^(allreduce|bcast)_2x2,' <<<"$out"; then
    fail "--ops allreduce,bcast --label 2x2 printed other rows"
    echo "$out"
fi
expect "mpi_coll_bench --ops scan exits 2" 2 "$gcrun" -n 2 "$exe" x \
    --ops scan
has "unknown operation 'scan'" \
    "mpi_coll_bench --ops scan: no message naming the operation"

# The topo group: MPIX_Graph_create's time with reorder 0 and 1 on two
# emulated hosts, and the halo exchange example's CSV rows.
build mpi_topo_bench
run "mpi_topo_bench (4)" "$gcrun" -n 4 --hosts a,b,a,b --bind-to none \
    "$exe" gencomm-mpi --quick
rows "mpi_topo_bench gencomm-mpi --quick, 4 processes" gencomm-mpi 2
has '^graph_create_r1_np4,0,gencomm-mpi,' \
    "mpi_topo_bench: no graph_create_r1_np4 row"
run "stencil_map --csv" "$gcrun" -n 4 --hosts a,b,a,b --bind-to none \
    "$b/examples/stencil_map" --quick --block 8 --csv x --label 2h
rows "stencil_map --quick --csv" x 2
has '^halo_cut_2h_reorder1,0,x,[0-9]+,edges$' \
    "stencil_map: no halo_cut_2h_reorder1 row"

# Blocking, nonblocking and persistent forms side by side: two operations
# (one a neighbour collective) at two sizes in three forms.
build mpi_nbc_bench -DBENCH_PERSISTENT
run "mpi_nbc_bench (2)" "$gcrun" -n 2 "$exe" gencomm-mpi --quick \
    --ops allreduce,neighbor_alltoallw
rows "mpi_nbc_bench gencomm-mpi --quick, 2 processes" gencomm-mpi 12
for f in b i p; do
    has "^nbc_neighbor_alltoallw_${f}_np2,65536,gencomm-mpi," \
        "mpi_nbc_bench: no form $f row"
done

# One-sided communication: put and get latency and bandwidth at two sizes
# each, fetch-and-op latency and rate, on one host and between two
# emulated hosts over TCP.
build mpi_rma_bench
run "mpi_rma_bench" "$gcrun" -n 2 "$exe" gencomm-mpi --quick
rows "mpi_rma_bench gencomm-mpi --quick" gencomm-mpi 10
run "mpi_rma_bench (2 hosts)" env UCX_TLS=tcp,self \
    UCX_WARN_UNUSED_ENV_VARS=n "$gcrun" --nodes 2 -n 2 "$exe" \
    gencomm-mpi-tcp --quick
rows "mpi_rma_bench gencomm-mpi-tcp --quick, 2 hosts" gencomm-mpi-tcp 10
# The datatype benchmark, one process: builds (time and memory) and packs.
build mpi_type_bench
run "mpi_type_bench" "$gcrun" -n 1 "$exe" gencomm-mpi --quick
rows "mpi_type_bench gencomm-mpi --quick" gencomm-mpi 6
has '^type_vector_mem,1024,gencomm-mpi,[0-9]+,KiB$' \
    "mpi_type_bench printed no memory row"
# The polling benchmark: one row, at 4 processes as bench/run runs it.
build mpi_poll_bench
run "mpi_poll_bench (4)" "$gcrun" -n 4 "$exe" gencomm-mpi --quick
rows "mpi_poll_bench gencomm-mpi --quick, 4 processes" gencomm-mpi 1
has '^poll_bcast_np4,262144,gencomm-mpi,' \
    "mpi_poll_bench: no poll_bcast_np4 row"
# Its --empty mode: what a test and a probe that find nothing cost.
run "mpi_poll_bench --empty" "$gcrun" -n 2 "$exe" gencomm-mpi --empty 100
for what in test iprobe iprobe_any; do
    has "^poll_empty_${what}_np2,0,gencomm-mpi,[0-9.]+,ns$" \
        "mpi_poll_bench --empty: no poll_empty_${what}_np2 row"
done

# Dynamic processes: one process spawning copies of itself (spawn of 1 and
# 4, a channel to another job's LCO and one within a job), as bench/run
# starts it.
build mpi_dpm_bench
run "mpi_dpm_bench" "$gcrun" --bind-to none -n 1 "$exe" gencomm-mpi --quick
rows "mpi_dpm_bench gencomm-mpi --quick, 1 process" gencomm-mpi 4
for r in spawn_1 spawn_4 chan_create_xjob chan_create_sjob; do
    has "^$r,0,gencomm-mpi,[0-9.]+,us$" "mpi_dpm_bench: no $r row"
done

# Connect/accept between two jobs launched separately, as bench/run starts
# them (bench/xjob_pair.sh): a comm_connect_xjob row, and a row saying why
# where the pair cannot run (here: a program that does not exist).
build mpi_xjob_bench
mkdir "$work/xjob" "$work/xjob-missing"
run "xjob_pair.sh" "$s/bench/xjob_pair.sh" "$work/xjob" gencomm-mpi \
    "$gcrun" -n 1 -- "$exe" --quick
rows "mpi_xjob_bench gencomm-mpi --quick, 2 jobs" gencomm-mpi 1
has "^comm_connect_xjob,0,gencomm-mpi,[0-9.]+,us$" \
    "mpi_xjob_bench: no comm_connect_xjob row"
out=$(timeout 120 "$s/bench/xjob_pair.sh" "$work/xjob-missing" gencomm-mpi \
      "$gcrun" -n 1 -- "$work/no-such-program" --quick 2>&1)
has '^comm_connect_xjob,0,gencomm-mpi,,missing \(the accepting job wrote no port name: .+\)$' \
    "xjob_pair.sh: no missing row for a pair that cannot run"
# The phases of the 2-process 8-byte rows: a floor, allreduce and
# allgather line of one figure per window; other than 2 processes exits 2.
build mpi_phase_bench
run "mpi_phase_bench (2)" "$gcrun" -n 2 "$exe" 2 50
for k in floor allreduce allgather; do
    has "^$k [0-9.]+ [0-9.]+$" "mpi_phase_bench: no $k line of 2 figures"
done
expect "mpi_phase_bench at 3 processes exits 2" 2 "$gcrun" -n 3 "$exe"
has "usage: mpirun -np 2 mpi_phase_bench" \
    "mpi_phase_bench at 3 processes: no usage message"

# The machine's phase before and after each launch of bench/run: one
# figure (us) on two CPUs; on one CPU nothing printed and exit 1; a bad
# round count exits 2.
if [ "$(nproc)" -ge 2 ]; then
    run "phase_probe" "$b/bench/phase_probe" 200
    has '^[0-9]+\.[0-9]{3}$' "phase_probe: no figure"
fi
if command -v taskset >/dev/null 2>&1; then
    expect "phase_probe on one CPU exits 1" 1 taskset -c 0 \
        "$b/bench/phase_probe" 200
    has 'fewer than 2 CPUs' "phase_probe on one CPU: no reason given"
fi
expect "phase_probe 5 exits 2" 2 "$b/bench/phase_probe" 5
has 'ROUNDS must be 100 to 10\^7' "phase_probe 5: no usage message"

finish
