#!/bin/sh
# tests/mpi/test_netns.sh: a gencomm MPI job on two hosts made of network
# namespaces, started by the launchers of a cluster: MPICH's Hydra
# (mpiexec.hydra, PMI-1) and Open MPI's mpirun (PMIx), each reaching the
# hosts through tests/mpi/netns_ssh.sh as it would through ssh.
#
#   head namespace: the launcher, bridge br0 10.77.0.254/24
#   gcns0: namespace, veth gcm0 10.77.0.1/24, UTS host name gcns0, ranks 0-1
#   gcns1: namespace, veth gcm0 10.77.0.2/24, UTS host name gcns1, ranks 2-3
#
# The launcher's proxies (hydra_pmi_proxy, orted) run inside the hosts'
# namespaces and talk to the launcher over TCP through the bridge; the
# processes get PMI from their local proxy. UCX is told to use TCP on
# gcm0 (UCX_TLS, UCX_NET_DEVICES, forwarded by the launcher as on a
# cluster), so messages between the hosts cross the veth pairs: their
# byte counters must grow by at least what the program sends across.
# Within a host, gencomm's shared memory is used (same host name).
#
# Skipped (77) where namespaces, veth pairs or a bridge cannot be made
# (not root, no ip, a container without CAP_NET_ADMIN) or no launcher is
# installed. The namespaces are removed on exit, whatever happens.
set -u
builddir=$(cd "${top_builddir:-.}" && pwd)
srcdir=$(cd "${top_srcdir:-$builddir}" && pwd)
prog="$builddir/tests/mpi/netns_check"
wrap="$srcdir/tests/mpi/netns_ssh.sh"
. "$srcdir/tests/mpi/netns_hosts.sh"
bytes=1048576          # per pair of ranks; 2 x 2 pairs cross each way

skip() {
    echo "SKIP: $*"
    exit 77
}

[ "$(id -u)" = 0 ] || skip "making network namespaces needs root"
command -v ip >/dev/null 2>&1 || skip "no ip command (iproute2)"
command -v unshare >/dev/null 2>&1 || skip "no unshare command (util-linux)"
hydra=$(command -v mpiexec.hydra || command -v mpiexec.mpich || true)
ompi=$(command -v mpirun.openmpi || true)
[ -n "$hydra$ompi" ] || skip "neither MPICH's mpiexec.hydra (or" \
    "mpiexec.mpich) nor Open MPI's mpirun.openmpi is installed"

tag="gcm$$"
head="$tag-head"
ns0="$tag-gcns0"
ns1="$tag-gcns1"

cleanup() {
    netns_hosts_remove "$ns0" "$ns1" "$head"
}
trap cleanup EXIT
trap 'exit 129' HUP INT PIPE TERM

if ! err=$(netns_hosts_make "$head" "$ns0" "$ns1" 10.77.0 --uts 2>&1); then
    skip "cannot make network namespaces, veth pairs and a bridge:" \
        "$(echo "$err" | tail -1)"
fi

# As on a cluster: the host names come from the hosts, UCX goes over TCP
# on the namespaces' interface.
unset GENCOMM_HOSTNAME
UCX_TLS=tcp,self
UCX_NET_DEVICES=gcm0
GCM_NETNS_HOSTS="gcns0=$ns0 gcns1=$ns1"
export UCX_TLS UCX_NET_DEVICES GCM_NETNS_HOSTS
status=0

counter() {
    # counter NAMESPACE tx|rx: bytes through gcm0 so far
    ip netns exec "$1" cat "/sys/class/net/gcm0/statistics/$2_bytes"
}

run_job() {
    # run_job WHAT LAUNCHER-COMMAND...: runs it in the head namespace
    what=$1
    shift
    set -- $(counter "$ns0" tx) $(counter "$ns0" rx) \
        $(counter "$ns1" tx) $(counter "$ns1" rx) "$@"
    tx0=$1 rx0=$2 tx1=$3 rx1=$4
    shift 4
    out=$(timeout -k 5 120 ip netns exec "$head" "$@" \
          "$prog" gcns0,gcns0,gcns1,gcns1 "$bytes" 2>&1)
    rc=$?
    if [ $rc -ne 0 ] || ! echo "$out" | grep -q "netns_check: OK"; then
        echo "FAIL: $what (exit $rc)"
        echo "$out" | tail -30
        status=1
        return
    fi
    # Two ranks on each host send $bytes to each of the two on the other.
    need=$((4 * bytes))
    for c in "$ns0 tx $tx0" "$ns0 rx $rx0" "$ns1 tx $tx1" "$ns1 rx $rx1"; do
        set -- $c
        now=$(counter "$1" "$2")
        if [ $((now - $3)) -lt $need ]; then
            echo "FAIL: $what: only $((now - $3)) bytes $2 on gcm0 in $1," \
                "the job sent $need across"
            status=1
            return
        fi
    done
    echo "ok: $what ($(( $(counter "$ns0" tx) - tx0 )) bytes out of gcns0)"
}

if [ -n "$hydra" ]; then
    run_job "MPICH Hydra ($hydra) across namespaces" \
        "$hydra" -launcher ssh -launcher-exec "$wrap" \
        -localhost 10.77.0.254 -hosts gcns0:2,gcns1:2 -n 4
else
    echo "skip: MPICH's mpiexec.hydra is not installed"
fi
if [ -n "$ompi" ]; then
    run_job "Open MPI mpirun ($ompi) across namespaces" \
        "$ompi" --allow-run-as-root --mca plm_rsh_agent "$wrap" \
        --host gcns0:2,gcns1:2 -np 4 -x UCX_TLS -x UCX_NET_DEVICES \
        -x GENCOMM_LOG_LEVEL -x UCX_WARN_UNUSED_ENV_VARS
else
    echo "skip: Open MPI's mpirun.openmpi is not installed"
fi
exit $status
