#!/bin/sh
# tests/mpi/test_slurm.sh: gencomm jobs started by Slurm's srun through
# its PMIx plugin, on two hosts made of network namespaces as in
# tests/mpi/test_netns.sh:
#
#   head namespace: slurmctld and srun; bridge br0 10.77.1.254/24
#   gcsl0, gcsl1:   a namespace each, veth gcm0 10.77.1.1/24 and .2, its
#                   own host name (UTS namespace) and a slurmd
#
# A minimal slurm.conf, a munge key and munged's socket are made in a
# folder of the build tree for this run. Each slurmd has a mount
# namespace of its own, with the namespace's sysfs (so that UCX finds
# gcm0) and its own TmpFS (the PMIx plugin's folders are named by job
# and step only, the same on both hosts).
#
# `srun --mpi=pmix -N 2 -n 4` runs tests/mpi/netns_check (the host name
# of every rank, MPI_COMM_TYPE_SHARED and the hierarchy's levels, data
# between all pairs) and the native tests/integration/p2p_stress (all
# pairs, checked messages); UCX is told to use TCP on gcm0, and the
# veths' byte counters must grow by what the jobs send across.
#
# Skipped (77), saying why, where Slurm or munge is not installed, srun
# has no PMIx plugin, namespaces cannot be made (not root, no
# CAP_NET_ADMIN) or the daemons do not come up. Every process this test
# started is ended and everything it made removed, whatever happens.
set -u
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/mpi/netns_hosts.sh"
builddir=$(cd "$builddir" && pwd)
mpiprog="$builddir/tests/mpi/netns_check"
natprog="$builddir/tests/integration/p2p_stress"
bytes=262144
limit=90

skip() {
    echo "SKIP: $*"
    exit 77
}

need_progs "$mpiprog" "$natprog"
[ "$(id -u)" = 0 ] || skip "making network namespaces needs root"
for p in ip nsenter unshare slurmctld slurmd srun sinfo munged; do
    command -v "$p" >/dev/null 2>&1 || skip "$p is not installed"
done

tag="gcsl$$"
hns="$tag-head"
dir=$(mktemp -d "$builddir/tests/mpi/slurm.XXXXXX") || exit 99

cleanup() {
    netns_hosts_remove "$tag-gcsl0" "$tag-gcsl1" "$hns"
    if [ -s "$dir/munged.pid" ]; then
        # It writes its seed file as it exits: wait for that.
        mpid=$(cat "$dir/munged.pid")
        kill "$mpid" 2>/dev/null
        for _i in $(seq 1 50); do
            kill -0 "$mpid" 2>/dev/null || break
            sleep 0.1
        done
    fi
    rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 129' HUP INT PIPE TERM

if ! err=$(netns_hosts_make "$hns" "$tag-gcsl0" "$tag-gcsl1" 10.77.1 \
        --uts --mount 2>&1); then
    skip "cannot make network namespaces, veth pairs and a bridge:" \
        "$(echo "$err" | tail -1)"
fi

mkdir -p "$dir/state" "$dir/spool/gcsl0" "$dir/spool/gcsl1" \
    "$dir/tmp" "$dir/tmp-gcsl0" "$dir/tmp-gcsl1" "$dir/cg-gcsl0" \
    "$dir/cg-gcsl1" || exit 99
cat >"$dir/slurm.conf" <<EOF
ClusterName=gencomm
SlurmctldHost=head(10.77.1.254)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge.sock
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/linear
ReturnToService=2
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
TmpFS=$dir/tmp
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd-%n.log
PlugStackConfig=$dir/plugstack.conf
NodeName=gcsl0 NodeAddr=10.77.1.1 CPUs=2 State=UNKNOWN
NodeName=gcsl1 NodeAddr=10.77.1.2 CPUs=2 State=UNKNOWN
PartitionName=all Nodes=gcsl0,gcsl1 Default=YES MaxTime=5 State=UP OverSubscribe=YES
EOF
: >"$dir/plugstack.conf"
SLURM_CONF="$dir/slurm.conf"
export SLURM_CONF
srun --mpi=list 2>&1 | grep -q pmix ||
    skip "srun has no PMIx plugin (slurm-wlm's mpi_pmix)"

# munge, with a key of this run's own.
head -c 1024 /dev/urandom >"$dir/munge.key" && chmod 400 "$dir/munge.key" ||
    exit 99
if ! err=$(munged --force --socket="$dir/munge.sock" \
           --key-file="$dir/munge.key" --pid-file="$dir/munged.pid" \
           --log-file="$dir/munged.log" --seed-file="$dir/munged.seed" 2>&1)
then
    skip "munged does not start: $(echo "$err" | tail -1)"
fi

# slurmctld in the head namespace, a slurmd on each host.
ip netns exec "$hns" unshare --uts sh -c 'hostname head &&
    exec slurmctld -D -i' >"$dir/slurmctld.out" 2>&1 &
for h in gcsl0 gcsl1; do
    # shellcheck disable=SC2016 # expanded by the inner shell
    nsenter --net="/run/netns/$tag-$h" unshare --uts --mount sh -c '
        d=$1 h=$2
        mount --make-rprivate / &&
        mount --bind "$d/tmp-$h" "$d/tmp" &&
        mount --rbind /sys/fs/cgroup "$d/cg-$h" &&
        mount -t sysfs sysfs /sys &&
        mount --rbind "$d/cg-$h" /sys/fs/cgroup &&
        hostname "$h" &&
        exec slurmd -D' sh "$dir" "$h" >"$dir/slurmd-$h.out" 2>&1 &
done
up=0
for _i in $(seq 1 60); do
    if [ "$(ip netns exec "$hns" sinfo -h -o %t 2>/dev/null)" = idle ]; then
        up=1
        break
    fi
    sleep 0.5
done
if [ $up = 0 ]; then
    for f in "$dir"/*.out; do
        echo "---- $f"
        tail -n 5 "$f"
    done
    skip "slurmctld and the two slurmd did not come up within 30 s"
fi
echo "ok: slurmctld, slurmd on gcsl0 and gcsl1 ($(slurmd -V))"

# As on a cluster: host names from the hosts, UCX over TCP on gcm0.
unset GENCOMM_HOSTNAME
UCX_TLS=tcp,self
UCX_NET_DEVICES=gcm0
UCX_WARN_UNUSED_ENV_VARS=n
export UCX_TLS UCX_NET_DEVICES UCX_WARN_UNUSED_ENV_VARS

counter() {
    # counter HOST tx|rx: bytes through the host's gcm0 so far
    ip netns exec "$tag-$1" cat "/sys/class/net/gcm0/statistics/$2_bytes"
}

# srun_job WHAT MIN-BYTES-ACROSS PASS-RE COUNT PROGRAM ARGS...
srun_job() {
    _what=$1 _need=$2 _re=$3 _count=$4
    shift 4
    _tx0=$(counter gcsl0 tx) _rx0=$(counter gcsl0 rx)
    _tx1=$(counter gcsl1 tx) _rx1=$(counter gcsl1 rx)
    run "$_what" ip netns exec "$hns" srun --mpi=pmix -N 2 -n 4 "$@" ||
        return
    _got=$(printf '%s\n' "$out" | grep -c -E -- "$_re")
    if [ "$_got" -ne "$_count" ]; then
        fail "$_what: $_got lines match '$_re', expected $_count"
        show_out
        return
    fi
    for _c in "gcsl0 tx $_tx0" "gcsl0 rx $_rx0" "gcsl1 tx $_tx1" \
              "gcsl1 rx $_rx1"; do
        # shellcheck disable=SC2086 # three words
        set -- $_c
        _now=$(counter "$1" "$2")
        if [ $((_now - $3)) -lt "$_need" ]; then
            fail "$_what: only $((_now - $3)) bytes $2 on gcm0 of $1," \
                "the job sent at least $_need across"
            return
        fi
    done
    echo "   $(( $(counter gcsl0 tx) - _tx0 )) bytes out of gcsl0"
}

# Two ranks on each host send $bytes to each of the two on the other.
srun_job "MPI: srun --mpi=pmix -N 2 -n 4 netns_check" $((4 * bytes)) \
    '^netns_check: OK' 1 "$mpiprog" gcsl0,gcsl0,gcsl1,gcsl1 "$bytes"
# Every pair exchanges 300 messages each way, a few MiB across.
srun_job "native: srun --mpi=pmix -N 2 -n 4 p2p_stress -a 300" 1048576 \
    '^p2p_stress: 900 messages ok' 4 "$natprog" -a 300
finish
