#!/bin/bash
# xjob_pair.sh: runs mpi_xjob_bench as two separately launched jobs of one
# process each, the accepting job first, the connecting job once the
# accepting one has written its port name (so that each launcher places
# its job knowing the other is there).
#
# Usage: xjob_pair.sh [--ompi-server] DIR IMPL LAUNCHER... -- PROGRAM [ARGS]
#
#   DIR            an empty directory for the port name (and ompi-server's
#                  address)
#   IMPL           the implementation's name in the row
#   LAUNCHER...    the launcher and its options, up to "--"
#   PROGRAM ARGS   mpi_xjob_bench and its options after the mode (--quick)
#   --ompi-server  starts Open MPI's ompi-server first and gives each job
#                  --ompi-server file:DIR/uri (two mpirun jobs reach each
#                  other only through it)
#
# The connecting job's row goes to stdout; where no row came, a row that
# says the figure is missing and why.
set -u

ompi_server=0
if [[ ${1:-} == --ompi-server ]]; then
    ompi_server=1
    shift
fi
[[ $# -ge 4 ]] || { echo "usage: $0 [--ompi-server] DIR IMPL LAUNCHER... -- PROGRAM [ARGS]" >&2; exit 2; }
dir=$1
impl=$2
shift 2
launcher=()
while [[ $# -gt 0 && $1 != -- ]]; do
    launcher+=("$1")
    shift
done
[[ ${1:-} == -- ]] || { echo "$0: no -- before the program" >&2; exit 2; }
shift
prog=$1
shift

pids=()
cleanup() {
    local p
    for p in "${pids[@]}"; do
        kill "$p" 2>/dev/null
    done
    wait 2>/dev/null
}
trap cleanup EXIT

missing() {
    echo "comm_connect_xjob,0,$impl,,missing ($1)"
    exit 0
}

# wait_for FILE PID: until FILE exists (1) or PID ended or 60 s passed (0).
wait_for() {
    local i
    for ((i = 0; i < 600; i++)); do
        [[ -s $1 ]] && return 0
        kill -0 "$2" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

if [[ $ompi_server -eq 1 ]]; then
    command -v ompi-server >/dev/null 2>&1 ||
        missing "Open MPI's ompi-server is not installed; two mpirun jobs cannot connect without it"
    ompi-server --no-daemonize -r "$dir/uri" >"$dir/server.out" 2>&1 &
    pids+=($!)
    wait_for "$dir/uri" "${pids[0]}" ||
        missing "ompi-server did not start: $(tail -n 1 "$dir/server.out" | tr ',' ';')"
    launcher+=(--ompi-server "file:$dir/uri")
fi

"${launcher[@]}" "$prog" "$impl" accept "$dir/port" "$@" \
    >"$dir/accept.out" 2>&1 &
acc=$!
pids+=("$acc")
wait_for "$dir/port" "$acc" ||
    missing "the accepting job wrote no port name: $(tail -n 1 "$dir/accept.out" | tr ',' ';')"
"${launcher[@]}" "$prog" "$impl" connect "$dir/port" "$@" \
    >"$dir/connect.out" 2>&1
rc=$?
if grep -E '^comm_connect_xjob,' "$dir/connect.out"; then
    wait "$acc"
    exit 0
fi
missing "the connecting job failed (status $rc): $(grep -v '^$' "$dir/connect.out" | tail -n 1 | tr ',' ';')"
