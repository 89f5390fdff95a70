#!/bin/bash
# The benchmark programs still build and run (short runs; figures are not
# judged here: make bench reports them). Each must print one CSV row per
# measurement in the format bench/run collects.
set -u
b=$(cd "${top_builddir:-.}" && pwd)
s=$(cd "${top_srcdir:-$b}" && pwd)
fail=0

# check_rows WHAT IMPL MIN OUTPUT: at least MIN well-formed rows of IMPL.
check_rows() {
    local what=$1 impl=$2 want=$3 out=$4 n
    n=$(grep -cE "^[a-z0-9_]+,[0-9]+,${impl},[0-9.]+,(us|MB/s|Mmsg/s)$" \
        <<<"$out")
    if [ "$n" -lt "$want" ]; then
        echo "FAIL: $what printed $n rows, expected $want"; echo "$out"
        fail=1
    else
        echo "ok: $what ($n rows)"
    fi
}

out=$(timeout 120 "$b/tools/gcrun" -n 2 "$b/bench/gcm_bench" --quick 2>&1)
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: gcm_bench exit $rc"; echo "$out"; fail=1; }
check_rows "gcm_bench --quick" gencomm 8 "$out"
grep -q '^chan_create,0,gencomm,' <<<"$out" ||
    { echo "FAIL: gcm_bench printed no chan_create row"; fail=1; }

out=$(timeout 120 "$b/bench/ucx_am_bench" --quick --no-bind 2>&1)
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: ucx_am_bench exit $rc"; echo "$out"; fail=1; }
check_rows "ucx_am_bench --quick" ucx 7 "$out"

# mpi_bench.c against gencomm's MPI layer, built as bench/run builds it
# (the build tree's mpicc) and started by gcrun as bench/run starts it: 7
# point-to-point rows and comm_dup_np2 with 2 processes, comm_dup_np3 alone
# with 3.
work=$(mktemp -d "${TMPDIR:-/tmp}/gencomm-bench-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
exe=$work/mpi_bench.gencomm
if ! "$b/tools/mpicc" -std=gnu11 -O2 -Wall -Werror -o "$exe" \
        "$s/bench/mpi_bench.c"; then
    echo "FAIL: mpi_bench.c does not build with tools/mpicc"
    exit 1
fi
out=$(timeout 120 "$b/tools/gcrun" -n 2 "$exe" gencomm-mpi --quick 2>&1)
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: mpi_bench (gencomm) exit $rc"; echo "$out"
                   fail=1; }
check_rows "mpi_bench gencomm-mpi --quick, 2 processes" gencomm-mpi 10 "$out"
grep -q '^comm_dup_np2,0,gencomm-mpi,' <<<"$out" ||
    { echo "FAIL: no comm_dup_np2 row"; fail=1; }
grep -q '^chan_create,0,gencomm-mpi,' <<<"$out" ||
    { echo "FAIL: no chan_create row (MPIX_ LCO calls)"; fail=1; }
grep -qE '^comm_connect,0,gencomm-mpi,[0-9.]+,us$' <<<"$out" ||
    { echo "FAIL: no comm_connect row (MPI_Open_port, connect/accept)";
      fail=1; }

out=$(timeout 120 "$b/tools/gcrun" -n 3 "$exe" gencomm-mpi --quick 2>&1)
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: mpi_bench (gencomm, 3) exit $rc"; echo "$out"
                   fail=1; }
check_rows "mpi_bench gencomm-mpi --quick, 3 processes" gencomm-mpi 1 "$out"
if grep -qE '^(latency|bandwidth|comm_dup_np2),' <<<"$out" ||
    ! grep -q '^comm_dup_np3,0,gencomm-mpi,' <<<"$out"; then
    echo "FAIL: with 3 processes only comm_dup_np3 should be printed"
    echo "$out"; fail=1
fi
# The thread benchmarks: native and MPI, thread-to-thread latency in one
# process, then the message rate with 1, 2 and 4 threads in two.
out=$(timeout 120 "$b/tools/gcrun" -n 1 --bind-to none \
      "$b/bench/gcm_thread_bench" --quick 2>&1)
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: gcm_thread_bench (1) exit $rc"; echo "$out"
                   fail=1; }
check_rows "gcm_thread_bench --quick, 1 process" gencomm 2 "$out"
out=$(timeout 120 "$b/tools/gcrun" -n 2 "$b/bench/gcm_thread_bench" --quick \
      2>&1)
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: gcm_thread_bench (2) exit $rc"; echo "$out"
                   fail=1; }
check_rows "gcm_thread_bench --quick, 2 processes" gencomm 3 "$out"
for t in 1 2 4; do
    grep -qE "^msgrate_t$t,8,gencomm,[0-9.]+,Mmsg/s$" <<<"$out" ||
        { echo "FAIL: gcm_thread_bench: no msgrate_t$t row"; fail=1; }
done

exe=$work/mpi_thread_bench.gencomm
if ! "$b/tools/mpicc" -std=gnu11 -O2 -Wall -Werror -pthread -o "$exe" \
        "$s/bench/mpi_thread_bench.c"; then
    echo "FAIL: mpi_thread_bench.c does not build with tools/mpicc"
    exit 1
fi
out=$(timeout 120 "$b/tools/gcrun" -n 1 --bind-to none "$exe" gencomm-mpi \
      --quick 2>&1)
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: mpi_thread_bench (1) exit $rc"; echo "$out"
                   fail=1; }
check_rows "mpi_thread_bench gencomm-mpi --quick, 1 process" gencomm-mpi 2 \
    "$out"
out=$(timeout 120 "$b/tools/gcrun" -n 2 "$exe" gencomm-mpi --quick 2>&1)
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: mpi_thread_bench (2) exit $rc"; echo "$out"
                   fail=1; }
check_rows "mpi_thread_bench gencomm-mpi --quick, 2 processes" gencomm-mpi 3 \
    "$out"

# The collectives: all six at 3 processes; a chosen pair under a label.
exe=$work/mpi_coll_bench.gencomm
if ! "$b/tools/mpicc" -std=gnu11 -O2 -Wall -Werror -o "$exe" \
        "$s/bench/mpi_coll_bench.c"; then
    echo "FAIL: mpi_coll_bench.c does not build with tools/mpicc"
    exit 1
fi
out=$(timeout 120 "$b/tools/gcrun" -n 3 "$exe" gencomm-mpi --quick 2>&1)
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: mpi_coll_bench (3) exit $rc"; echo "$out"
                   fail=1; }
# barrier once, five operations at four sizes
check_rows "mpi_coll_bench gencomm-mpi --quick, 3 processes" gencomm-mpi 21 \
    "$out"
grep -q '^alltoall_np3,1048576,gencomm-mpi,' <<<"$out" ||
    { echo "FAIL: mpi_coll_bench: no alltoall_np3 row at 1 MiB"; fail=1; }
out=$(timeout 120 "$b/tools/gcrun" --nodes 2 -n 4 "$exe" x --quick \
      --label 2x2 --ops allreduce,bcast 2>&1)
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: mpi_coll_bench (2x2) exit $rc"; echo "$out"
                   fail=1; }
check_rows "mpi_coll_bench --label 2x2 --ops allreduce,bcast" x 8 "$out"
if grep -vqE '^(allreduce|bcast)_2x2,' <<<"$out"; then
    echo "FAIL: --ops allreduce,bcast --label 2x2 printed other rows"
    echo "$out"; fail=1
fi
# The topo group: MPIX_Graph_create's time with reorder 0 and 1 on two
# emulated hosts, and the halo exchange example's CSV rows.
exe=$work/mpi_topo_bench.gencomm
if ! "$b/tools/mpicc" -std=gnu11 -O2 -Wall -Werror -o "$exe" \
        "$s/bench/mpi_topo_bench.c"; then
    echo "FAIL: mpi_topo_bench.c does not build with tools/mpicc"
    exit 1
fi
out=$(timeout 120 "$b/tools/gcrun" -n 4 --hosts a,b,a,b --bind-to none \
      "$exe" gencomm-mpi --quick 2>&1)
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: mpi_topo_bench (4) exit $rc"; echo "$out"
                   fail=1; }
check_rows "mpi_topo_bench gencomm-mpi --quick, 4 processes" gencomm-mpi 2 \
    "$out"
grep -q '^graph_create_r1_np4,0,gencomm-mpi,' <<<"$out" ||
    { echo "FAIL: mpi_topo_bench: no graph_create_r1_np4 row"; fail=1; }
out=$(timeout 120 "$b/tools/gcrun" -n 4 --hosts a,b,a,b --bind-to none \
      "$b/examples/stencil_map" --quick --block 8 --csv x --label 2h 2>&1)
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: stencil_map --csv exit $rc"; echo "$out"
                   fail=1; }
check_rows "stencil_map --quick --csv" x 2 "$out"
grep -qE '^halo_cut_2h_reorder1,0,x,[0-9]+,edges$' <<<"$out" ||
    { echo "FAIL: stencil_map: no halo_cut_2h_reorder1 row"; echo "$out"
      fail=1; }

exe=$work/mpi_coll_bench.gencomm
out=$(timeout 60 "$b/tools/gcrun" -n 2 "$exe" x --ops scan 2>&1)
rc=$?
if [ $rc -ne 2 ] || ! grep -q "unknown operation 'scan'" <<<"$out"; then
    echo "FAIL: mpi_coll_bench --ops scan: exit $rc, expected 2 and a"
    echo "message naming the operation"; echo "$out"; fail=1
else
    echo "ok: mpi_coll_bench refuses an unknown operation"
fi

# Blocking, nonblocking and persistent forms side by side: two operations
# (one a neighbour collective) at two sizes in three forms.
exe=$work/mpi_nbc_bench.gencomm
if ! "$b/tools/mpicc" -std=gnu11 -O2 -Wall -Werror -DBENCH_PERSISTENT \
        -o "$exe" "$s/bench/mpi_nbc_bench.c"; then
    echo "FAIL: mpi_nbc_bench.c does not build with tools/mpicc"
    exit 1
fi
out=$(timeout 120 "$b/tools/gcrun" -n 2 "$exe" gencomm-mpi --quick \
      --ops allreduce,neighbor_alltoallw 2>&1)
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: mpi_nbc_bench (2) exit $rc"; echo "$out"
                   fail=1; }
check_rows "mpi_nbc_bench gencomm-mpi --quick, 2 processes" gencomm-mpi 12 \
    "$out"
for f in b i p; do
    grep -q "^nbc_neighbor_alltoallw_${f}_np2,65536,gencomm-mpi," \
        <<<"$out" || { echo "FAIL: mpi_nbc_bench: no form $f row"; fail=1; }
done

# One-sided communication: put and get latency and bandwidth at two sizes
# each, fetch-and-op latency and rate, on one host and between two
# emulated hosts over TCP.
exe=$work/mpi_rma_bench.gencomm
if ! "$b/tools/mpicc" -std=gnu11 -O2 -Wall -Werror -o "$exe" \
        "$s/bench/mpi_rma_bench.c"; then
    echo "FAIL: mpi_rma_bench.c does not build with tools/mpicc"
    exit 1
fi
out=$(timeout 120 "$b/tools/gcrun" -n 2 "$exe" gencomm-mpi --quick 2>&1)
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: mpi_rma_bench exit $rc"; echo "$out"; fail=1; }
check_rows "mpi_rma_bench gencomm-mpi --quick" gencomm-mpi 10 "$out"
out=$(UCX_TLS=tcp,self UCX_WARN_UNUSED_ENV_VARS=n timeout 120 \
      "$b/tools/gcrun" --nodes 2 -n 2 "$exe" gencomm-mpi-tcp --quick 2>&1)
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: mpi_rma_bench (2 hosts) exit $rc"
                   echo "$out"; fail=1; }
check_rows "mpi_rma_bench gencomm-mpi-tcp --quick, 2 hosts" \
    gencomm-mpi-tcp 10 "$out"
# The datatype benchmark, one process: builds (time and memory) and packs.
exe=$work/mpi_type_bench.gencomm
if ! "$b/tools/mpicc" -std=gnu11 -O2 -Wall -Werror -o "$exe" \
        "$s/bench/mpi_type_bench.c"; then
    echo "FAIL: mpi_type_bench.c does not build with tools/mpicc"
    exit 1
fi
out=$(timeout 120 "$b/tools/gcrun" -n 1 "$exe" gencomm-mpi --quick 2>&1)
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: mpi_type_bench exit $rc"; echo "$out"
                   fail=1; }
check_rows "mpi_type_bench gencomm-mpi --quick" gencomm-mpi 6 "$out"
grep -qE '^type_vector_mem,1024,gencomm-mpi,[0-9]+,KiB$' <<<"$out" ||
    { echo "FAIL: mpi_type_bench printed no memory row"; echo "$out"
      fail=1; }
# The polling benchmark: one row, at 4 processes as bench/run runs it.
exe=$work/mpi_poll_bench.gencomm
if ! "$b/tools/mpicc" -std=gnu11 -O2 -Wall -Werror -o "$exe" \
        "$s/bench/mpi_poll_bench.c"; then
    echo "FAIL: mpi_poll_bench.c does not build with tools/mpicc"
    exit 1
fi
out=$(timeout 120 "$b/tools/gcrun" -n 4 "$exe" gencomm-mpi --quick 2>&1)
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: mpi_poll_bench (4) exit $rc"; echo "$out"
                   fail=1; }
check_rows "mpi_poll_bench gencomm-mpi --quick, 4 processes" gencomm-mpi 1 \
    "$out"
grep -q '^poll_bcast_np4,262144,gencomm-mpi,' <<<"$out" ||
    { echo "FAIL: mpi_poll_bench: no poll_bcast_np4 row"; fail=1; }

# Dynamic processes: one process spawning copies of itself (spawn of 1 and
# 4, a channel to another job's LCO and one within a job), as bench/run
# starts it.
exe=$work/mpi_dpm_bench.gencomm
if ! "$b/tools/mpicc" -std=gnu11 -O2 -Wall -Werror -o "$exe" \
        "$s/bench/mpi_dpm_bench.c"; then
    echo "FAIL: mpi_dpm_bench.c does not build with tools/mpicc"
    exit 1
fi
out=$(timeout 120 "$b/tools/gcrun" --bind-to none -n 1 "$exe" gencomm-mpi \
      --quick 2>&1)
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: mpi_dpm_bench exit $rc"; echo "$out"
                   fail=1; }
check_rows "mpi_dpm_bench gencomm-mpi --quick, 1 process" gencomm-mpi 4 \
    "$out"
for r in spawn_1 spawn_4 chan_create_xjob chan_create_sjob; do
    grep -qE "^$r,0,gencomm-mpi,[0-9.]+,us$" <<<"$out" ||
        { echo "FAIL: mpi_dpm_bench: no $r row"; fail=1; }
done

# Connect/accept between two jobs launched separately, as bench/run starts
# them (bench/xjob_pair.sh): a comm_connect_xjob row, and a row saying why
# where the pair cannot run (here: a program that does not exist).
exe=$work/mpi_xjob_bench.gencomm
if ! "$b/tools/mpicc" -std=gnu11 -O2 -Wall -Werror -o "$exe" \
        "$s/bench/mpi_xjob_bench.c"; then
    echo "FAIL: mpi_xjob_bench.c does not build with tools/mpicc"
    exit 1
fi
mkdir "$work/xjob" "$work/xjob-missing"
out=$(timeout 120 "$s/bench/xjob_pair.sh" "$work/xjob" gencomm-mpi \
      "$b/tools/gcrun" -n 1 -- "$exe" --quick 2>&1)
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: xjob_pair.sh exit $rc"; echo "$out"; fail=1; }
check_rows "mpi_xjob_bench gencomm-mpi --quick, 2 jobs" gencomm-mpi 1 "$out"
grep -qE "^comm_connect_xjob,0,gencomm-mpi,[0-9.]+,us$" <<<"$out" ||
    { echo "FAIL: mpi_xjob_bench: no comm_connect_xjob row"; fail=1; }
out=$(timeout 120 "$s/bench/xjob_pair.sh" "$work/xjob-missing" gencomm-mpi \
      "$b/tools/gcrun" -n 1 -- "$work/no-such-program" --quick 2>&1)
grep -qE '^comm_connect_xjob,0,gencomm-mpi,,missing \(the accepting job wrote no port name: .+\)$' \
    <<<"$out" ||
    { echo "FAIL: xjob_pair.sh: no missing row for a pair that cannot run"
      echo "$out"; fail=1; }
exit $fail
