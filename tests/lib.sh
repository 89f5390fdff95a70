# tests/lib.sh: what the test scripts share; source it with
#   . "${top_srcdir:-.}/tests/lib.sh"
# It sets gcrun (the launcher of the build tree) and status (0), and gives:
#
#   run WHAT CMD...     runs CMD under the time limit (limit, 120 s unless
#                       set), its output in out and its exit status in rc;
#                       prints "ok: WHAT", or "FAIL: WHAT (exit RC)" with
#                       the output's last lines and sets status to 1.
#   expect WHAT RC CMD...  the same, passing when CMD exits with RC (124:
#                       it hung and the limit ended it, which always fails).
#   fail MESSAGE...     prints "FAIL: MESSAGE" and sets status to 1.
#   need_progs PROG...  exits 77 (skipped) when a program was not built.
#   finish              exits with status.
#
# Scripts run from the build directory (automake's test driver does) or
# with top_builddir and top_srcdir set. POSIX sh.

builddir=${top_builddir:-.}
gcrun=$builddir/tools/gcrun
status=0
: "${limit:=120}"
out=
rc=0

fail() {
    echo "FAIL: $*"
    status=1
}

# Prints the last 30 lines of out, for a failure.
show_out() {
    printf '%s\n' "$out" | tail -30
}

run() {
    _what=$1
    shift
    expect "$_what" 0 "$@"
}

expect() {
    _what=$1
    _want=$2
    shift 2
    out=$(timeout "$limit" "$@" 2>&1)
    rc=$?
    if [ "$rc" -eq "$_want" ] && [ "$rc" -ne 124 ]; then
        echo "ok: $_what"
        return 0
    fi
    if [ "$rc" -eq 124 ]; then
        fail "$_what (did not end within ${limit} s)"
    else
        fail "$_what (exit $rc, expected $_want)"
    fi
    show_out
    return 1
}

need_progs() {
    for _p in "$@"; do
        if [ ! -x "$_p" ]; then
            echo "SKIP: $_p has not been built"
            exit 77
        fi
    done
}

finish() {
    exit "$status"
}
