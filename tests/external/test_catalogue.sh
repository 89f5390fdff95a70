#!/bin/sh
# tests/external/test_catalogue.sh: the catalogue of broken definitions
# files (tests/external/broken/, expectations in catalogue.txt), each on
# 4 emulated hosts: the expected file:line message where it belongs and
# no hang anywhere; then the files a job cannot run with at all (one
# missing, different files on different processes, a file on some
# processes only), which fail MPI_Init on every process.
set -u
. "${top_srcdir:-.}/tests/lib.sh"
srcdir=${top_srcdir:-.}
prog="$builddir/tests/external/ext_catalogue"
wrap="$srcdir/tests/external/per_rank.sh"
broken="$srcdir/tests/external/broken"
hosts=a:00,a:01,b:00,b:01
unset GENCOMM_HOSTNAME GENCOMM_EXTERNAL
limit=60
tab=$(printf '\t')

# run_init WHAT TEXT FILES [ALT]: MPI_Init must fail (exit not 0, within
# the timeout) and say TEXT (or ALT: whichever process ends the job
# first speaks); FILES gives each rank its GENCOMM_EXTERNAL.
run_init() {
    launch 4 --tag-output --hosts "$hosts" "$wrap" GENCOMM_EXTERNAL "$3" \
        "$prog" </dev/null
    if [ $rc -eq 0 ] || [ $rc -eq 124 ]; then
        fail_out "$1: exit $rc, expected MPI_Init to fail"
    elif ! out_has_text "$2" &&
         { [ -z "${4:-}" ] || ! out_has_text "$4"; }; then
        fail_out "$1: the output lacks \"$2\""
    else
        echo "ok: $1: MPI_Init fails (exit $rc)"
    fi
}

checked=0
while IFS="$tab" read -r file first rest; do
    case "$file" in ''|'#'*) continue ;; esac
    checked=$((checked + 1))
    path="$broken/$file"
    if [ "$first" = init ]; then
        run_init "$file" "$file:$rest" "$path,$path,$path,$path"
        continue
    fi
    # The specs, with @ standing for the file's path and a colon.
    set -- "$first"
    if [ -n "$rest" ]; then
        old_ifs=$IFS
        IFS="$tab"
        # shellcheck disable=SC2086 # split at the tabs
        set -- "$first" $rest
        IFS=$old_ifs
    fi
    n=$#
    i=0
    while [ $i -lt $n ]; do
        spec=$(printf '%s' "$1" | sed "s|@|$path:|")
        shift
        set -- "$@" "$spec"
        i=$((i + 1))
    done
    GENCOMM_EXTERNAL="$path" on_hosts "$file" "$hosts" "$prog" "$@" \
        </dev/null
done < "$srcdir/tests/external/catalogue.txt"
nfiles=$(ls "$broken" | grep -c '\.xml$')
if [ "$checked" -ne "$nfiles" ]; then
    fail "catalogue.txt checks $checked files, broken/ has $nfiles"
fi

good="$srcdir/tests/external/listings/listing1.xml"
missing="$broken/no-such-file.xml"
run_init "a file that does not exist" \
    "GENCOMM_EXTERNAL: $missing: cannot open it" \
    "$missing,$missing,$missing,$missing"
run_init "a file that some processes cannot read" \
    "GENCOMM_EXTERNAL: $missing: cannot open it" \
    "$missing,$missing,$good,$good" \
    "could not read or parse its file (it says why)"
run_init "different files on different processes" \
    "read different definitions" \
    "$good,$good,$good,$srcdir/tests/external/listings/listing3.xml"
run_init "a file on some processes only" "read different definitions" \
    "$good,$good,$good,"
finish
