# tests/mpi/netns_hosts.sh: two emulated hosts in network namespaces, for
# test_netns.sh and test_slurm.sh (sourced; POSIX sh).
#
# netns_hosts_make HEAD NS0 NS1 NET UNSHARE_FLAGS: namespace HEAD holds a
# bridge br0 (NET.254/24) with veths h0 and h1 whose other ends are gcm0 in
# NS0 (NET.1) and NS1 (NET.2); every link up. Last it checks that
# `unshare UNSHARE_FLAGS` works. Returns non-zero at the first step that
# fails (set -e does not hold inside an if's condition: every step checks).
netns_hosts_make() {
    _h=$1 _n0=$2 _n1=$3 _net=$4
    shift 4
    ip netns add "$_h" &&
    ip netns add "$_n0" &&
    ip netns add "$_n1" &&
    ip -n "$_h" link add br0 type bridge &&
    ip -n "$_h" link add h0 type veth peer name gcm0 netns "$_n0" &&
    ip -n "$_h" link add h1 type veth peer name gcm0 netns "$_n1" &&
    ip -n "$_h" link set h0 master br0 &&
    ip -n "$_h" link set h1 master br0 &&
    ip -n "$_h" addr add "$_net.254/24" dev br0 &&
    ip -n "$_n0" addr add "$_net.1/24" dev gcm0 &&
    ip -n "$_n1" addr add "$_net.2/24" dev gcm0 &&
    ip -n "$_h" link set lo up &&
    ip -n "$_n0" link set lo up &&
    ip -n "$_n1" link set lo up &&
    ip -n "$_h" link set br0 up &&
    ip -n "$_h" link set h0 up &&
    ip -n "$_h" link set h1 up &&
    ip -n "$_n0" link set gcm0 up &&
    ip -n "$_n1" link set gcm0 up &&
    unshare "$@" true
}

# netns_hosts_remove NS...: kill what runs inside each namespace (only
# processes in this test's namespaces), then delete it.
netns_hosts_remove() {
    for _ns in "$@"; do
        if [ -e "/run/netns/$_ns" ]; then
            _pids=$(ip netns pids "$_ns" 2>/dev/null)
            if [ -n "$_pids" ]; then
                # shellcheck disable=SC2086 # one pid per word
                kill -KILL $_pids 2>/dev/null
            fi
            ip netns del "$_ns"
        fi
    done
}
