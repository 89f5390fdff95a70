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
#   make_tmp NAME       makes a private folder, its path in tmp, removed
#                       when the script exits, together with the
#                       background process whose pid is in job (none
#                       while job is empty) if it still runs.
#   on_hosts WHAT HOSTS CMD...  run WHAT through gcrun -n N --hosts HOSTS
#                       --tag-output CMD..., one process per name in the
#                       comma-separated HOSTS (N, also in nhosts).
#   finish              exits with status.
#   timed CMD...        CMD under the time limit (timeout's exit status
#                       124 when the limit ends it); 20 s before
#                       that (at 3/4 of limits under 80 s), the stacks of
#                       every process CMD started are
#                       printed (gdb, else the kernel's wait channels), so
#                       that a hang says where it hangs.
#
# For scripts that run a program through gcrun and then look at its lines:
#
#   launch NPROCS CMD...  runs gcrun -n NPROCS CMD... under the limit,
#                       printing the command and its exit status and time;
#                       its output in out, its exit status in rc.
#   launch_for LIMIT NPROCS CMD...  the same with limit set to LIMIT.
#   fail_out MESSAGE... fail, then the whole of out between markers.
#   expect_rc RC        the last launch exited with RC (124: it hung and
#                       the limit ended it, which always fails); returns 1
#                       if not, after fail_out.
#   expect_count N RE   exactly N lines of out match RE (grep -E).
#   expect_match RE     some line of out matches RE (grep -E).
#   expect_line TEXT    some line of out contains TEXT.
#   out_has RE          true when some line of out matches RE (grep -E);
#                       prints nothing and fails nothing (for tests of
#                       their own).
#   out_has_text TEXT   the same for a line containing TEXT (grep -F).
#   expect_file FILE N RE  exactly N lines of FILE match RE (grep -E); if
#                       not, fail and show FILE.
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

# The pids of the processes below pid $1, deepest last.
_descendants() {
    for _c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
        echo "$_c"
        _descendants "$_c"
    done
}

# Prints the stacks of the processes below pid $1.
_stacks() {
    for _p in $(_descendants "$1"); do
        [ -d "/proc/$_p" ] || continue
        _cmd=$(tr '\0' ' ' 2>/dev/null <"/proc/$_p/cmdline" | cut -c1-100)
        echo "---- stacks of pid $_p: $_cmd"
        if command -v gdb >/dev/null 2>&1; then
            gdb -p "$_p" -batch -nx -ex 'thread apply all bt 30' 2>&1 |
                grep -E '^(Thread|#)' | head -n 120
        else
            for _t in /proc/"$_p"/task/*; do
                echo "thread ${_t##*/}: $(cat "$_t/wchan" 2>/dev/null)"
            done
        fi
    done
}

timed() {
    timeout "$limit" "$@" &
    _tp=$!
    (
        _at=$((limit - 20))
        [ "$limit" -lt 80 ] && _at=$((limit * 3 / 4))
        _left=$_at
        while [ "$_left" -gt 0 ] && kill -0 "$_tp" 2>/dev/null; do
            sleep 1 >/dev/null 2>&1
            _left=$((_left - 1))
        done
        if [ "$_at" -gt 0 ] && kill -0 "$_tp" 2>/dev/null; then
            echo "---- still running $_at s after the start:"
            _stacks "$_tp"
        fi
    ) &
    _wp=$!
    wait "$_tp"
    _trc=$?
    if [ "$_trc" -eq 124 ]; then
        wait "$_wp"
    else
        kill "$_wp" 2>/dev/null
        wait "$_wp" 2>/dev/null
    fi
    return "$_trc"
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
    out=$(timed "$@" 2>&1)
    rc=$?
    if [ "$rc" -eq "$_want" ] && [ "$rc" -ne 124 ]; then
        echo "ok: $_what"
        return 0
    fi
    if [ "$rc" -eq 124 ]; then
        fail "$_what (did not end within ${limit} s)"
        printf '%s\n' "$out" | sed -n '/^---- still running/,$p' |
            head -n 600
    else
        fail "$_what (exit $rc, expected $_want)"
    fi
    show_out
    return 1
}

on_hosts() {
    _oh_what=$1
    _oh_hosts=$2
    shift 2
    nhosts=$(printf '%s\n' "$_oh_hosts" | tr ',' '\n' | grep -c .)
    run "$_oh_what" "$gcrun" -n "$nhosts" --hosts "$_oh_hosts" --tag-output \
        "$@"
}

need_progs() {
    for _p in "$@"; do
        if [ ! -x "$_p" ]; then
            echo "SKIP: $_p has not been built"
            exit 77
        fi
    done
}

make_tmp() {
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX") || exit 1
    job=
    trap _tmp_cleanup EXIT
}

# shellcheck disable=SC2317 # called through the trap
_tmp_cleanup() {
    if [ -n "$job" ] && kill -0 "$job" 2>/dev/null; then
        kill -KILL "$job" 2>/dev/null
    fi
    rm -rf "$tmp"
}

finish() {
    exit "$status"
}

launch() {
    _n=$1
    shift
    echo "== gcrun -n $_n $* (limit ${limit}s)"
    _start=$(date +%s)
    out=$(timed "$gcrun" -n "$_n" "$@" 2>&1)
    rc=$?
    echo "   exit $rc after $(($(date +%s) - _start))s"
}

launch_for() {
    limit=$1
    shift
    launch "$@"
}

fail_out() {
    fail "$@"
    echo "---- output ----"
    printf '%s\n' "$out"
    echo "----------------"
}

expect_rc() {
    if [ "$rc" -eq 124 ]; then
        fail_out "timed out after ${limit}s (hang?)"
        return 1
    fi
    if [ "$rc" -ne "$1" ]; then
        fail_out "exit status $rc, expected $1"
        return 1
    fi
    return 0
}

expect_count() {
    _got=$(printf '%s\n' "$out" | grep -c -E -- "$2")
    if [ "$_got" -ne "$1" ]; then
        fail_out "$_got lines match '$2', expected $1"
    fi
}

# After a run in which rank 1 killed itself (SIGKILL) while rank 0 waited
# on it: the job ends as a failure, rank 0's exit 1 or rank 1's 137,
# whichever gcrun reaps first (never a hang, rc 124), the launcher says
# rank 1 was killed, rank 0 printed one line matching $1, none FAIL.
expect_peer_killed() {
    case $rc in
        1 | 137) ;;
        *) expect_rc 137 ;;
    esac
    if [ "$rc" -eq 1 ] || [ "$rc" -eq 137 ]; then
        expect_match 'rank 1.*killed by signal 9'
        expect_count 1 "$1"
        expect_count 0 'FAIL'
    fi
}

expect_match() {
    if ! printf '%s\n' "$out" | grep -q -E -- "$1"; then
        fail_out "no line matches '$1'"
    fi
}

expect_file() {
    _got=$(grep -c -E -- "$3" "$1")
    if [ "$_got" -ne "$2" ]; then
        fail "$_got lines of $(basename "$1") match '$3', expected $2"
        sed 's/^/   | /' "$1"
    fi
}

out_has() {
    printf '%s\n' "$out" | grep -q -E -- "$1"
}

out_has_text() {
    printf '%s\n' "$out" | grep -q -F -- "$1"
}

expect_line() {
    if ! printf '%s\n' "$out" | grep -q -F -- "$1"; then
        fail_out "no line contains '$1'"
    fi
}
