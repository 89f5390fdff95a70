#!/bin/sh
# tests/external/per_rank.sh VAR LIST PROG ARGS...: runs PROG, as the
# process of rank PMI_RANK (set by gcrun), with the environment variable
# VAR set to entry PMI_RANK of the comma-separated LIST (with
# GENCOMM_EXTERNAL: a definitions file per process). An empty entry
# leaves VAR unset.
set -eu
var=$1
list=$2
shift 2
i=$(( ${PMI_RANK:-0} + 1 ))
n=$(echo "$list" | awk -F, '{ print NF }')
if [ "$i" -gt "$n" ]; then
    echo "per_rank.sh: no $var for rank ${PMI_RANK:-0} in $list" >&2
    exit 2
fi
value=$(echo "$list" | cut -d, -f"$i")
if [ -z "$value" ]; then
    unset "$var"
else
    export "$var=$value"
fi
exec "$@"
