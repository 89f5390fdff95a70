#!/bin/sh
# examples/two_jobs.sh [BUILDDIR]: two separately launched gcrun jobs find
# each other (examples/two_jobs.c): an LCO name through a file (native),
# then a port through MPI_Publish_name / MPI_Lookup_name (MPI).
builddir=${1:-$(dirname "$0")/..}
gcrun="$builddir/tools/gcrun"
prog="$builddir/examples/two_jobs"
dir=$(mktemp -d "${TMPDIR:-/tmp}/two_jobs.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
service="two-jobs-$$"

"$gcrun" -n 2 --tag-output "$prog" serve "$dir/name" "$service" &
server=$!
"$gcrun" -n 3 --tag-output "$prog" ask "$dir/name" "$service"
rc=$?
wait "$server" || rc=1
exit $rc
