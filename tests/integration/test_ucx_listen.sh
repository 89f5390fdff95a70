#!/bin/sh
# tests/integration/test_ucx_listen.sh: a job whose processes all share
# this host listens on loopback only (UCX's TCP transport would listen on
# every interface); a user's UCX_NET_DEVICES or UCX_TLS is left alone.
# Exit status: 0 passed, 1 failed, 77 skipped.
set -u
builddir=${top_builddir:-.}
GCRUN=$builddir/tools/gcrun
PROG=$builddir/tests/integration/ucx_listen

if [ ! -x "$GCRUN" ] || [ ! -x "$PROG" ]; then
    echo "SKIP: $GCRUN or $PROG has not been built"
    exit 77
fi
unset UCX_NET_DEVICES UCX_TLS GENCOMM_HOSTNAME
status=0

# run WHAT [VAR=VALUE...]: the job's summary lines, in $out
run() {
    what=$1
    shift
    out=$(env "$@" timeout -k 5 60 "$GCRUN" -n 2 "$PROG" 2>&1)
    rc=$?
    echo "== $what"
    echo "$out"
    if [ $rc -ne 0 ]; then
        echo "FAIL: $what: exit $rc"
        status=1
        return 1
    fi
    return 0
}

if run "one host, nothing set" GENCOMM_MAX_ENDPOINTS=2; then
    if ! echo "$out" | grep -q "ucx_listen: [1-9][0-9]* listening"; then
        echo "SKIP: UCX listens on no TCP socket here (no tcp transport?)"
        exit 77
    fi
    if echo "$out" | grep -q "listening on .* (network)"; then
        echo "FAIL: a job on one host listens beyond loopback"
        status=1
    fi
fi

# The user's choice wins: with UCX_TLS set, UCX uses every device it
# finds, so a host with a network interface shows it.
if run "one host, UCX_TLS set" GENCOMM_MAX_ENDPOINTS=2 \
        UCX_TLS=tcp,sm,self; then
    if ! ip -o addr show 2>/dev/null | grep -v " lo " |
            grep -q "inet6\? "; then
        echo "skip: no network interface besides loopback to tell"
    elif ! echo "$out" | grep -q "listening on .* (network)"; then
        echo "FAIL: UCX_TLS set, yet UCX was kept on loopback"
        status=1
    fi
fi
[ $status -eq 0 ] && echo "ok: loopback only, unless the user chose"
exit $status
