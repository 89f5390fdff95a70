#!/bin/bash
# Integration tests for tools/gcrun, the local launcher and PMI-1 server.
#
# The ranks are tests/integration/gcrun_probe, a PMI-1 client that talks to
# gcrun directly on its socket, so these tests need no gencomm library.
# Run from the build directory (automake's test driver does that), or set
# top_builddir to where tools/gcrun and tests/integration/gcrun_probe are.
# Exit status: 0 all passed, 1 some failed, 77 skipped.

set -u
. "${top_srcdir:-.}/tests/lib.sh"
PROBE=$builddir/tests/integration/gcrun_probe
need_progs "$gcrun" "$PROBE"
if ! command -v timeout >/dev/null 2>&1; then
    echo "SKIP: timeout(1) is not available"
    exit 77
fi

# Settings from the calling environment must not change the timings.
unset GENCOMM_KILL_GRACE_MS MPIEXEC_TIMEOUT

make_tmp test_gcrun

# Every single gcrun run is bounded by this; the tests that check that
# something happens promptly use much tighter limits of their own.
RUN_LIMIT=30

ntests=0
nfailed=0
tname=
problems=()
rc=0
ms=0

now_ms() {
    if [ -n "${EPOCHREALTIME:-}" ]; then
        local t=${EPOCHREALTIME//[!0-9]/}
        echo $((10#$t / 1000))
    else
        echo $(($(date +%s%N) / 1000000))
    fi
}

begin() {
    tname=$1
    problems=()
    : >"$tmp/out"
    : >"$tmp/err"
}

problem() {
    problems+=("$1")
}

show_file() {
    echo "  --- $1 ---"
    if [ -s "$2" ]; then
        head -n 40 "$2" | sed 's/^/  | /'
    else
        echo "  (empty)"
    fi
}

finish() {
    ntests=$((ntests + 1))
    if [ ${#problems[@]} -eq 0 ]; then
        echo "PASS: $tname"
        return
    fi
    nfailed=$((nfailed + 1))
    echo "FAIL: $tname"
    local p
    for p in "${problems[@]}"; do
        echo "  - $p"
    done
    show_file "gcrun stdout" "$tmp/out"
    show_file "gcrun stderr" "$tmp/err"
}

# run ARGS...: runs gcrun with stdin from /dev/null; sets rc and ms.
run() {
    local t0
    t0=$(now_ms)
    timeout -k 5 "$RUN_LIMIT" "$gcrun" "$@" >"$tmp/out" 2>"$tmp/err" \
        </dev/null
    rc=$?
    ms=$(($(now_ms) - t0))
    if [ "$ms" -ge $((RUN_LIMIT * 1000)) ]; then
        problem "gcrun did not finish within $RUN_LIMIT s (killed by timeout)"
    fi
}

want_rc() {
    [ "$rc" -eq "$1" ] || problem "exit status $rc, expected $1"
}

want_out() {
    grep -qxF -- "$1" "$tmp/out" || problem "stdout lacks the line '$1'"
}

want_err_re() {
    grep -qE -- "$1" "$tmp/err" || problem "stderr lacks a line matching /$1/"
}

want_no_err() {
    [ -s "$tmp/err" ] && problem "stderr is not empty"
}

want_faster() {
    [ "$ms" -lt "$1" ] || problem "took $ms ms, the limit is $1 ms"
}

want_out_lines() {
    local n
    n=$(wc -l <"$tmp/out")
    [ "$n" -eq "$1" ] || problem "stdout has $n lines, expected $1"
}

# The ranks started with --ready print their pid; after gcrun has returned
# none of them may still be running.
want_ranks_gone() {
    local pids p
    pids=$(sed -n 's/^rank [0-9]* pid \([0-9]*\) ready$/\1/p' "$tmp/out")
    [ -n "$pids" ] || problem "no 'ready' lines with rank pids in stdout"
    for p in $pids; do
        # A pid taken over by another program since (the machine may be
        # busy starting processes) is not a rank still running.
        if kill -0 "$p" 2>/dev/null &&
            tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline" |
            grep -q gcrun_probe; then
            problem "rank process $p is still running after gcrun returned"
            kill -KILL "$p" 2>/dev/null
        fi
    done
}

# --- CPU set helpers (for the binding tests) ------------------------------

# "0-2,5" -> "0 1 2 5"
expand_cpus() {
    local part i out=()
    local -a parts
    IFS=, read -r -a parts <<<"$1"
    for part in "${parts[@]}"; do
        if [[ $part == *-* ]]; then
            for ((i = ${part%-*}; i <= ${part#*-}; i++)); do
                out+=("$i")
            done
        elif [ -n "$part" ]; then
            out+=("$part")
        fi
    done
    echo "${out[*]}"
}

# Sorted, space-separated, duplicates removed.
canon() {
    local c
    for c in $1; do echo "$c"; done | sort -n -u | tr '\n' ' ' | sed 's/ $//'
}

own_list=$(awk '/^Cpus_allowed_list/ {print $2}' /proc/self/status)
allowed=$(canon "$(expand_cpus "$own_list")")

# The PUs of the core that holds cpu $1, limited to the CPUs we may use.
# Prints nothing when sysfs does not tell.
core_pus() {
    local f=/sys/devices/system/cpu/cpu$1/topology/thread_siblings_list
    local c pus=""
    [ -r "$f" ] || return 0
    for c in $(expand_cpus "$(cat "$f")"); do
        case " $allowed " in
        *" $c "*) pus="$pus $c" ;;
        esac
    done
    canon "$pus"
}

# Number of cores among the allowed CPUs; 0 when sysfs does not tell.
count_cores() {
    local c
    for c in $allowed; do
        core_pus "$c"
        echo
    done | sort -u | grep -c .
}

is_subset() {
    local c
    [ -n "$1" ] || return 1
    for c in $1; do
        case " $allowed " in
        *" $c "*) ;;
        *) return 1 ;;
        esac
    done
    return 0
}

# Checks that cpu list $2 (from rank $1) is exactly one core's PUs.
want_one_core() {
    local cpus first want
    cpus=$(canon "$(expand_cpus "$2")")
    first=${cpus%% *}
    want=$(core_pus "$first")
    if [ -z "$want" ]; then
        # No sysfs topology: settle for a proper subset.
        is_subset "$cpus" || problem "rank $1: cpus '$2' not within '$allowed'"
        return
    fi
    [ "$cpus" = "$want" ] ||
        problem "rank $1: cpus '$2' are not the PUs of one core ('$want')"
}

# bind_of R / cpus_of R from "rank R bind=X cpus=Y" lines.
bind_of() {
    sed -n "s/^rank $1 bind=\([^ ]*\) cpus=.*/\1/p" "$tmp/out"
}

cpus_of() {
    sed -n "s/^rank $1 bind=[^ ]* cpus=\(.*\)/\1/p" "$tmp/out"
}

nproc=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)
ncores=$(count_cores)

# --- Tests ----------------------------------------------------------------

begin "PMI-1 exchange with -n 4 (put, barrier, get of every other key)"
run -n 4 "$PROBE"
want_rc 0
for r in 0 1 2 3; do
    want_out "rank $r of 4 ok"
done
want_out_lines 4
want_no_err
finish

begin "--tag-output prefixes each line with its rank"
run -n 4 --tag-output "$PROBE"
want_rc 0
for r in 0 1 2 3; do
    want_out "[$r] rank $r of 4 ok"
done
want_out_lines 4
finish

begin "stdin goes to rank 0; rank 1 sees EOF at once"
t0=$(now_ms)
echo hello | timeout -k 5 "$RUN_LIMIT" "$gcrun" -n 2 "$PROBE" --echo-stdin \
    >"$tmp/out" 2>"$tmp/err"
rc=${PIPESTATUS[1]}
ms=$(($(now_ms) - t0))
want_rc 0
want_out "rank 0 stdin: hello"
want_out "rank 0 stdin eof after 1 lines"
want_out "rank 1 stdin eof after 0 lines"
want_faster 10000
finish

begin "lines written in pieces by 4 ranks are forwarded whole"
run -n 4 --tag-output "$PROBE" --spam 300
want_rc 0
want_out_lines $((4 * 300 + 4))
bad=$(grep -Evc '^\[([0-9])\] (rank \1 of 4 ok|rank \1 line [0-9]+ x{100})$' \
    "$tmp/out")
[ "$bad" -eq 0 ] || problem "$bad lines are broken or carry the wrong tag"
finish

begin "a last line without newline is flushed at EOF"
run -n 1 "$PROBE" --tail
want_rc 0
[ "$(tail -c 11 "$tmp/out")" = "rank 0 tail" ] ||
    problem "untagged output does not end in 'rank 0 tail'"
[ "$(tail -c 1 "$tmp/out" | od -An -c | tr -d ' ')" != '\n' ] ||
    problem "untagged output got a newline added"
run -n 2 --tag-output "$PROBE" --tail
want_rc 0
want_out "[0] rank 0 tail"
want_out "[1] rank 1 tail"
finish

begin "--universe N is the universe size the ranks are told"
PROBE_UNIVERSE=9 run -n 2 --universe 9 "$PROBE"
want_rc 0
finish

begin "a rank exiting 3 makes gcrun exit 3 and end the others"
run -n 4 "$PROBE" --ready --fail-rank 1 --exit-code 3 --sleep 60
want_rc 3
want_err_re '^gcrun: rank 1 \(pid [0-9]+\) exited with status 3$'
want_faster 10000
want_ranks_gone
finish

begin "a rank that finalized and exits early while others run is no error"
run -n 3 "$PROBE" --fail-rank 1 --exit-code 0 --finalize-first --sleep 1
want_rc 0
want_no_err
for r in 0 1 2; do
    want_out "rank $r of 3 ok"
done
[ "$ms" -ge 900 ] || problem "returned after $ms ms, before the others ended"
finish

# The ranks that must see peer_died get a grace long enough for that
# however loaded the machine; they end at SIGTERM after it.
begin "a rank exiting 0 without finalizing is a failure: named, peers told"
GENCOMM_KILL_GRACE_MS=5000 run -n 3 "$PROBE" --ready --fail-rank 1 \
    --exit-code 0 --wait-peer-died --sleep 60
want_rc 1
want_err_re '^gcrun: rank 1 \(pid [0-9]+\) exited without finalizing$'
for r in 0 2; do
    want_out "rank $r saw peer_died rank=1"
done
want_faster 15000
want_ranks_gone
finish

begin "ranks aborting after a death name the dead rank; its status wins"
GENCOMM_KILL_GRACE_MS=5000 run -n 3 "$PROBE" --ready --fail-rank 1 \
    --signal 9 --abort-on-peer-died 5 --sleep 60
want_rc 137
want_err_re '^gcrun: rank 1 \(pid [0-9]+\) killed by signal 9 \(SIGKILL\)$'
want_err_re '^gcrun: rank 1 failed: rank [02] ended the job \(exit code 5\)$'
want_faster 10000
want_ranks_gone
finish

begin "an abort naming a rank not dead yet: that rank's death wins all the same"
# The grace keeps the named rank from being ended by gcrun before its own
# death, however loaded the machine.
GENCOMM_KILL_GRACE_MS=5000 run -n 3 "$PROBE" --ready --fail-rank 2 --abort 5 --abort-cause 1 \
    --die-later 1 300 --sleep 60
want_rc 137
want_err_re '^gcrun: rank 1 failed: rank 2 ended the job \(exit code 5\)$'
want_err_re '^gcrun: rank 1 \(pid [0-9]+\) killed by signal 9 \(SIGKILL\)$'
want_faster 10000
want_ranks_gone
finish

begin "a rank killed by SIGKILL: exit 137, peer_died to the others"
GENCOMM_KILL_GRACE_MS=5000 run -n 4 "$PROBE" --ready --fail-rank 1 \
    --signal 9 --wait-peer-died --sleep 60
want_rc 137
want_err_re '^gcrun: rank 1 \(pid [0-9]+\) killed by signal 9 \(SIGKILL\)$'
for r in 0 2 3; do
    want_out "rank $r saw peer_died rank=1"
done
want_faster 15000
want_ranks_gone
finish

begin "cmd=abort exitcode=7 makes gcrun exit 7"
run -n 3 "$PROBE" --ready --fail-rank 2 --abort 7 --sleep 60
want_rc 7
want_err_re '^gcrun: rank 2 called abort with exit code 7$'
want_faster 10000
want_ranks_gone
finish

begin "GENCOMM_KILL_GRACE_MS sets the grace period before SIGTERM"
GENCOMM_KILL_GRACE_MS=2500 run -n 2 "$PROBE" --ready --fail-rank 1 \
    --exit-code 3 --sleep 60
want_rc 3
[ "$ms" -ge 2400 ] || problem "ended after $ms ms, before the 2500 ms grace"
want_faster 10000
want_ranks_gone
finish

# 5 s: the ranks must have started and said so (want_ranks_gone) before
# the limit, which takes over 2 s on a machine loaded 8 times over.
begin "MPIEXEC_TIMEOUT=5 ends a job that runs longer, saying so: exit 124"
MPIEXEC_TIMEOUT=5 run -n 2 "$PROBE" --ready --sleep 60
want_rc 124
want_err_re '^gcrun: the job ran for MPIEXEC_TIMEOUT=5 seconds: ending it$'
[ "$ms" -ge 4900 ] || problem "ended after $ms ms, before the 5 s timeout"
want_faster 15000
want_ranks_gone
finish

begin "MPIEXEC_TIMEOUT: a job done in time exits 0; a bad value starts nothing"
MPIEXEC_TIMEOUT=60 run -n 2 "$PROBE"
want_rc 0
want_no_err
MPIEXEC_TIMEOUT=2x run -n 2 "$PROBE"
want_rc 2
want_err_re "^gcrun: MPIEXEC_TIMEOUT='2x' is not a whole number of seconds"
[ -s "$tmp/out" ] && problem "a rank ran: stdout is not empty"
finish

begin "a missing program gives exit 127, a non-executable one 126"
run -n 2 gcrun-no-such-program
want_rc 127
enoent="No such file or directory"
want_err_re "^gcrun: cannot execute 'gcrun-no-such-program': $enoent\$"
printf '#!/bin/sh\n' >"$tmp/noexec"
chmod 644 "$tmp/noexec"
run -n 1 "$tmp/noexec"
want_rc 126
want_err_re "^gcrun: cannot execute '.*noexec': Permission denied$"
finish

begin "bad arguments give exit 2, a 'gcrun: ' message and the usage"
for args in "" "-n 0 x" "-n abc x" "--bogus" "-n 2" "-n 1 --bind-to x y"; do
    # shellcheck disable=SC2086 # word splitting is intended
    run $args
    if [ "$rc" -ne 2 ]; then
        problem "'gcrun $args': exit status $rc, expected 2"
    fi
    if ! head -n 1 "$tmp/err" | grep -q '^gcrun: '; then
        problem "'gcrun $args': first stderr line does not start 'gcrun: '"
    fi
    if ! grep -q '^Usage: gcrun' "$tmp/err"; then
        problem "'gcrun $args': no usage on stderr"
    fi
done
finish

# start_bg ARGS...: gcrun in the background, for the signal tests.
start_bg() {
    "$gcrun" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null &
    job=$!
}

# wait_ready N: waits up to 10 s until N ranks have printed "ready".
wait_ready() {
    local i
    for ((i = 0; i < 200; i++)); do
        if [ "$(grep -c ' ready$' "$tmp/out")" -ge "$1" ]; then
            return 0
        fi
        sleep 0.05
    done
    problem "the ranks did not get ready within 10 s"
    return 1
}

# wait_bg LIMIT_MS: waits for the background gcrun; sets rc and ms (from
# the call on). Kills it if it is still there after LIMIT_MS.
wait_bg() {
    local t0 i
    t0=$(now_ms)
    while kill -0 "$job" 2>/dev/null; do
        if [ $(($(now_ms) - t0)) -ge "$1" ]; then
            problem "gcrun still running $1 ms after the signal"
            kill -KILL "$job" 2>/dev/null
            break
        fi
        sleep 0.02
    done
    wait "$job"
    rc=$?
    ms=$(($(now_ms) - t0))
    job=
}

begin "SIGTERM to gcrun ends the job promptly with exit 143"
start_bg -n 2 "$PROBE" --ready --sleep 60
if wait_ready 2; then
    kill -TERM "$job"
fi
wait_bg 5000
want_rc 143
want_err_re '^gcrun: received signal 15, ending the job$'
want_faster 5000
want_ranks_gone
finish

begin "SIGINT to gcrun: ranks ignoring SIGTERM get SIGKILL 2 s later"
start_bg -n 2 "$PROBE" --ready --ignore-term --sleep 60
if wait_ready 2; then
    kill -INT "$job"
fi
wait_bg 8000
want_rc 130
want_err_re '^gcrun: received signal 2, ending the job$'
[ "$ms" -ge 1500 ] || problem "ended after $ms ms, before the 2 s SIGKILL delay"
want_ranks_gone
finish

begin "children get PMI_*/GENCOMM_LOCAL_*, no PMIX_/OMPI_, no stray fds"
PMIX_RANK=5 PMIX_NAMESPACE=outer OMPI_COMM_WORLD_SIZE=9 PMI_FD=99 \
    PMI_RANK=7 GENCOMM_LOCAL_RANK=7 run -n 2 "$PROBE" --print-env \
    --check-fds 9</dev/null
want_rc 0
for r in 0 1; do
    want_out "rank $r env ok"
    want_out "rank $r extra fds: none"
done
want_no_err
finish

begin "-n 1 binds to one core (GENCOMM_BIND=core)"
run -n 1 "$PROBE" --print-bind
want_rc 0
[ "$(bind_of 0)" = core ] || problem "rank 0: GENCOMM_BIND='$(bind_of 0)'"
want_one_core 0 "$(cpus_of 0)"
finish

if [ "$ncores" -ge 2 ]; then
    begin "-n 2 binds the two ranks to different cores"
    run -n 2 "$PROBE" --print-bind
    want_rc 0
    for r in 0 1; do
        [ "$(bind_of $r)" = core ] ||
            problem "rank $r: GENCOMM_BIND='$(bind_of $r)'"
        want_one_core $r "$(cpus_of $r)"
    done
    [ "$(cpus_of 0)" != "$(cpus_of 1)" ] ||
        problem "both ranks are bound to cpus $(cpus_of 0)"
    finish
fi

# The count the second gcrun saw for the unit whose CPUs are $1 (its
# GENCOMM_LOG_LEVEL=debug lines "unit I, cpus L: N bound by other jobs"),
# empty if none names them.
seen_for() {
    local want line cpus
    want=$(canon "$(expand_cpus "$1")")
    while IFS= read -r line; do
        cpus=${line#*, cpus }
        cpus=${cpus%%:*}
        if [ "$(canon "$(expand_cpus "$cpus")")" = "$want" ]; then
            line=${line##*: }
            echo "${line%% *}"
            return
        fi
    done < <(grep '^gcrun: debug: unit [0-9]*, cpus ' "$tmp/err")
}

if [ "$ncores" -ge 2 ]; then
    # Two jobs started one after the other must not share a core while
    # another idles. Jobs of tests running beside this one come and go
    # while gcrun chooses, so the check is on what the second gcrun saw
    # (its debug lines): the first job's rank counted on its core, and
    # the core it took one of those with the fewest processes bound.
    begin "a second job binds beside the core of a job already bound"
    "$gcrun" -n 1 sleep 30 >/dev/null 2>&1 </dev/null &
    job=$!
    # The first job's rank, once it runs sleep (bound, its environment
    # saying so: what the second gcrun looks at).
    sleeper=
    for ((i = 0; i < 200; i++)); do
        sleeper=$(grep -l "^PPid:[[:space:]]*$job\$" \
                  /proc/[0-9]*/status 2>/dev/null | head -n 1 | cut -d/ -f3)
        [ -n "$sleeper" ] &&
            [ "$(cat "/proc/$sleeper/comm" 2>/dev/null)" = sleep ] && break
        sleeper=
        sleep 0.05
    done
    first=
    [ -n "$sleeper" ] && first=$(sed -n \
        's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$sleeper/status")
    GENCOMM_LOG_LEVEL=debug run -n 1 "$PROBE" --print-bind
    kill "$job" 2>/dev/null
    wait "$job" 2>/dev/null
    job=
    want_rc 0
    if [ -z "$first" ]; then
        problem "the first job's process never appeared"
    else
        least=$(sed -n \
                's/^gcrun: debug: unit [0-9]*, cpus [^:]*: \([0-9]*\) .*/\1/p' \
                "$tmp/err" | sort -n | head -n 1)
        seen=$(seen_for "$first")
        mine=$(seen_for "$(cpus_of 0)")
        if [ -z "$seen" ] || [ "$seen" -lt 1 ]; then
            problem "the second gcrun did not count the first job's"\
" rank on cpus $first"
        elif [ -z "$mine" ] || [ "$mine" != "$least" ]; then
            problem "the second job took cpus $(cpus_of 0) ($mine bound"\
" there) while a core had $least"
        fi
    fi
    finish
fi

over=$((nproc + 1))
begin "-n $over (more than the cores) leaves the ranks unbound"
run -n "$over" "$PROBE" --print-bind
want_rc 0
for ((r = 0; r < over; r++)); do
    [ "$(bind_of $r)" = none ] ||
        problem "rank $r: GENCOMM_BIND='$(bind_of $r)', expected none"
    [ "$(canon "$(expand_cpus "$(cpus_of $r)")")" = "$allowed" ] ||
        problem "rank $r: cpus '$(cpus_of $r)', expected all of '$allowed'"
done
finish

begin "--bind-to none never binds"
run -n 1 --bind-to none "$PROBE" --print-bind
want_rc 0
[ "$(bind_of 0)" = none ] || problem "rank 0: GENCOMM_BIND='$(bind_of 0)'"
[ "$(canon "$(expand_cpus "$(cpus_of 0)")")" = "$allowed" ] ||
    problem "rank 0: cpus '$(cpus_of 0)', expected all of '$allowed'"
finish

begin "--bind-to core -n $over binds round-robin to single cores"
run -n "$over" --bind-to core "$PROBE" --print-bind
want_rc 0
for ((r = 0; r < over; r++)); do
    [ "$(bind_of $r)" = core ] ||
        problem "rank $r: GENCOMM_BIND='$(bind_of $r)', expected core"
    want_one_core $r "$(cpus_of $r)"
done
finish

begin "--bind-to numa binds within a NUMA node"
run -n 2 --bind-to numa "$PROBE" --print-bind
want_rc 0
for r in 0 1; do
    [ "$(bind_of $r)" = numa ] ||
        problem "rank $r: GENCOMM_BIND='$(bind_of $r)', expected numa"
    is_subset "$(canon "$(expand_cpus "$(cpus_of $r)")")" ||
        problem "rank $r: cpus '$(cpus_of $r)' not within '$allowed'"
done
finish

begin "8 ranks on $nproc CPUs finish the PMI exchange within 10 s"
run -n 8 "$PROBE"
want_rc 0
for ((r = 0; r < 8; r++)); do
    want_out "rank $r of 8 ok"
done
want_faster 10000
finish

# --- emulated hosts (--hosts, --nodes) ------------------------------------

# want_hosts NAME...: rank r printed "host=NAME_r" through show_host.
want_hosts() {
    local r=0 h
    for h in "$@"; do
        want_out "[$r] host=$h"
        r=$((r + 1))
    done
    want_out_lines $#
}
# shellcheck disable=SC2016 # expanded by the ranks' shell
show_host='echo host=$GENCOMM_HOSTNAME'
me=$(hostname)

begin "--nodes 2 -n 5 gives GENCOMM_HOSTNAME block-wise (3 + 2)"
run --tag-output --nodes 2 -n 5 sh -c "$show_host"
want_rc 0
want_hosts "$me-node0" "$me-node0" "$me-node0" "$me-node1" "$me-node1"
finish

begin "--hosts a,b,a,b gives one name per rank, interleaved"
GENCOMM_HOSTNAME=outer run --tag-output --hosts a,b,a,b -n 4 sh -c \
    "$show_host"
want_rc 0
want_hosts a b a b
finish

begin "--hosts=foo:00,foo:01,bar:00,bar:01 keeps the cluster:node names"
run --tag-output --hosts=foo:00,foo:01,bar:00,bar:01 -n 4 sh -c "$show_host"
want_rc 0
want_hosts foo:00 foo:01 bar:00 bar:01
run --tag-output --hosts=a:b:c,x:y -n 4 sh -c "$show_host"
want_rc 0
want_hosts a:b:c a:b:c x:y x:y
finish

begin "--hosts a,b -n 5 (fewer names) assigns block-wise; --nodes=1"
run --tag-output -n 5 --hosts a,b sh -c "$show_host"
want_rc 0
want_hosts a a a b b
run --tag-output -n 2 --nodes=1 sh -c "$show_host"
want_rc 0
want_hosts "$me-node0" "$me-node0"
finish

begin "without --hosts/--nodes GENCOMM_HOSTNAME passes through"
GENCOMM_HOSTNAME=outer run --tag-output -n 2 sh -c "$show_host"
want_rc 0
want_hosts outer outer
finish

begin "--help documents --hosts and --nodes"
run --help
want_rc 0
grep -q -- '--hosts LIST' "$tmp/out" || problem "--help lacks --hosts LIST"
grep -q -- '--nodes M' "$tmp/out" || problem "--help lacks --nodes M"
finish

begin "bad --hosts/--nodes give exit 2 and a clear message"
for args in "-n 2 --hosts a,b,c x" "-n 3 --hosts a,,b x" "-n 2 --hosts , x" \
    "-n 2 --hosts :b x" "-n 2 --hosts a: x" "-n 2 --hosts a::b x" \
    "-n 2 --nodes 0 x" \
    "-n 2 --nodes 3 x" "-n 2 --nodes x y" "-n 2 --nodes 2 --hosts a,b x" \
    "-n 2 --hosts"; do
    # shellcheck disable=SC2086 # word splitting is intended
    run $args
    if [ "$rc" -ne 2 ]; then
        problem "'gcrun $args': exit status $rc, expected 2"
    fi
    if ! head -n 1 "$tmp/err" |
        grep -qE '^gcrun: .*(--hosts|--nodes|host name|nodes)'; then
        problem "'gcrun $args': unclear message: $(head -n 1 "$tmp/err")"
    fi
done
finish

echo "$((ntests - nfailed)) of $ntests gcrun tests passed"
[ "$nfailed" -eq 0 ] || exit 1
exit 0
