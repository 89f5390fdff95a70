#!/bin/sh
# tests/mpi/netns_ssh.sh: an ssh stand-in for MPI launchers, used by
# tests/mpi/test_netns.sh. Called as ssh would be (options, a host, the
# command words), it runs the command in the network namespace that
# GCM_NETNS_HOSTS maps the host to ("host=namespace ..."), in a new UTS
# namespace whose host name is the host's, through sh -c as sshd would.
# Like a fresh ssh session it passes on only PATH (and the sanitizers'
# settings): the launcher has to forward what the processes need.
while [ $# -gt 0 ]; do
    case $1 in
    -x|-q|-T|-n) shift ;;
    -o|-p|-l) shift 2 ;;
    *) break ;;
    esac
done
if [ $# -lt 2 ]; then
    echo "netns_ssh.sh: usage: netns_ssh.sh [-x] HOST COMMAND..." >&2
    exit 255
fi
host=$1
shift
ns=
for pair in ${GCM_NETNS_HOSTS:-}; do
    if [ "${pair%%=*}" = "$host" ]; then
        ns=${pair#*=}
    fi
done
if [ -z "$ns" ]; then
    echo "netns_ssh.sh: no namespace for host '$host' in GCM_NETNS_HOSTS" >&2
    exit 255
fi
exec ip netns exec "$ns" env -i PATH="$PATH" \
    ASAN_OPTIONS="${ASAN_OPTIONS:-}" LSAN_OPTIONS="${LSAN_OPTIONS:-}" \
    UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" \
    unshare --uts sh -c 'hostname "$1" && shift && exec sh -c "$*"' \
    sh "$host" "$@"
