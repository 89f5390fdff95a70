#!/bin/sh
# tests/integration/test_ucx_listen.sh: a job whose processes all share
# this host listens on loopback only (UCX's TCP transport would listen on
# every interface); a user's UCX_NET_DEVICES or UCX_TLS is left alone.
# Exit status: 0 passed, 1 failed, 77 skipped.
set -u
. "${top_srcdir:-.}/tests/lib.sh"
PROG=$builddir/tests/integration/ucx_listen
need_progs "$gcrun" "$PROG"
unset UCX_NET_DEVICES UCX_TLS GENCOMM_HOSTNAME
limit=60

# listen WHAT [VAR=VALUE...]: the job's summary lines, in out
listen() {
    _what=$1
    shift
    run "$_what" env "$@" "$gcrun" -n 2 "$PROG" &&
        printf '%s\n' "$out"
}

if listen "one host, nothing set" GENCOMM_MAX_ENDPOINTS=2; then
    if ! out_has "ucx_listen: [1-9][0-9]* listening"; then
        echo "SKIP: UCX listens on no TCP socket here (no tcp transport?)"
        exit 77
    fi
    if out_has "listening on .* \(network\)"; then
        fail "a job on one host listens beyond loopback"
    fi
fi

# The user's choice wins: with UCX_TLS set, UCX uses every device it
# finds, so a host with a network interface shows it.
if listen "one host, UCX_TLS set" GENCOMM_MAX_ENDPOINTS=2 \
        UCX_TLS=tcp,sm,self; then
    if ! ip -o addr show 2>/dev/null | grep -v " lo " |
            grep -q "inet6\? "; then
        echo "skip: no network interface besides loopback to tell"
    elif ! out_has "listening on .* \(network\)"; then
        fail "UCX_TLS set, yet UCX was kept on loopback"
    fi
fi
[ $status -eq 0 ] && echo "ok: loopback only, unless the user chose"
finish
