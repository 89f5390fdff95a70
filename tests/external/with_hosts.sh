#!/bin/sh
# tests/external/with_hosts.sh LIST PROG ARGS...: runs PROG as the
# process of rank PMI_RANK (set by gcrun) on the emulated host that is
# entry PMI_RANK of the comma-separated LIST, such as foo:00 (its
# processor name), so that any layout of cluster:node names can be given
# to any process count.
set -eu
list=$1
shift
i=$(( ${PMI_RANK:-0} + 1 ))
GENCOMM_HOSTNAME=$(echo "$list" | cut -d, -f"$i")
if [ -z "$GENCOMM_HOSTNAME" ]; then
    echo "with_hosts.sh: no host for rank ${PMI_RANK:-0} in $list" >&2
    exit 2
fi
export GENCOMM_HOSTNAME
exec "$@"
