#!/bin/bash
# Names across separately launched jobs (tests/integration/jobs_names.c):
# two gcrun jobs at once, one serving on LCOs whose names it writes to
# files, the other asking through those names; a forged token refused; a
# message to a pattern LCO never made refused after the receiver's
# GENCOMM_CONNECT_TIMEOUT (2 s here); a
# name of a job that has ended refused at once, and one whose contact
# address another program took refused with an error that says what that
# program did; two jobs started in the same second have different
# identities. Exit 0 pass, 1 fail, 77 skip.
set -u

top_builddir=${top_builddir:-.}
. "${top_srcdir:-.}/tests/lib.sh"
prog="${top_builddir}/tests/integration/jobs_names"

need_progs "$gcrun" "$prog"

make_tmp gcm-jobs

# --- one job asks another, through names in files --------------------------
GENCOMM_CONNECT_TIMEOUT=2 timeout 60 "$gcrun" -n 2 "$prog" serve "$tmp/a" 1 \
    >"$tmp/serve.out" 2>&1 &
server=$!
timeout 60 "$gcrun" -n 2 "$prog" ask "$tmp/a" 2 >"$tmp/ask.out" 2>&1
rc=$?
wait "$server"
src=$?
echo "== serve exit $src, ask exit $rc"
[ "$src" -eq 0 ] || fail "serving job exited $src"
[ "$rc" -eq 0 ] || fail "asking job exited $rc"
expect_file "$tmp/serve.out" 2 \
    'jobs_names: P[01] served 1 requests from another job'
expect_file "$tmp/ask.out" 2 \
    'jobs_names: P[01] asked another job and got its answer'
expect_file "$tmp/ask.out" 2 'jobs_names: P[01] forged name refused: .*token'
expect_file "$tmp/ask.out" 2 \
    'jobs_names: P[01] message to a pattern never made refused after'
grep -E 'never made' "$tmp/ask.out" | sed 's/^/   /'
grep -E 'asked another job' "$tmp/ask.out" | sed 's/^/   /'

# --- the serving job has ended: its name is refused at once ---------------
timeout 60 "$gcrun" -n 1 "$prog" stale "$tmp/a" >"$tmp/stale.out" 2>&1
rc=$?
echo "== stale exit $rc"
[ "$rc" -eq 0 ] || fail "stale-name job exited $rc"
expect_file "$tmp/stale.out" 1 \
    'jobs_names: P0 stale name refused in .*peer process failed'

# --- another program listens where the ended process's contact was: the
# error says what it did (closed at once, said nothing within the 1 s
# GENCOMM_CONNECT_TIMEOUT, answered garbage) ---------------------------------
# The connection's error is in the debug log; only the silent one may
# speak of a time.
for how in close silent garbage; do
    GENCOMM_LOG_LEVEL=debug GENCOMM_CONNECT_TIMEOUT=1 timeout 60 \
        "$gcrun" -n 1 "$prog" impostor "$tmp/a" "$how" \
        >"$tmp/impostor.$how" 2>&1
    rc=$?
    echo "== impostor ($how) exit $rc"
    [ "$rc" -eq 0 ] || fail "impostor-contact job ($how) exited $rc"
    expect_file "$tmp/impostor.$how" 1 \
        "jobs_names: P0 $how contact refused in .*peer process failed"
    case $how in
        close) said='closed the connection before its reply' ;;
        silent) said='did not send its reply within 1 s' ;;
        garbage) said='answered something that is not a contact reply' ;;
    esac
    pat="connect: the contact of rank 0 of job [0-9a-f]+ at [0-9.]+:[0-9]+ $said"
    if grep -E "$pat" "$tmp/impostor.$how" | head -n 1 | sed 's/^/   /' |
        grep -q .; then
        grep -E "$pat" "$tmp/impostor.$how" | head -n 1 | sed 's/^/   /'
    else
        fail "impostor ($how): no error says '$said'"
        sed 's/^/   | /' "$tmp/impostor.$how"
    fi
    if [ "$how" != silent ] &&
        grep -E 'connect: the contact .*within' "$tmp/impostor.$how"; then
        fail "impostor ($how): the error speaks of a time that did not pass"
    fi
done

# --- two jobs started in the same second: different identities -------------
timeout 60 "$gcrun" -n 1 "$prog" serve "$tmp/b" 0 >/dev/null 2>&1 &
first=$!
timeout 60 "$gcrun" -n 1 "$prog" serve "$tmp/c" 0 >/dev/null 2>&1
wait "$first"
# A name's job identity: bytes 32..39 (lco/lco_name.c).
idb=$(od -A n -t x1 -j 32 -N 8 "$tmp/b.0" 2>/dev/null | tr -d ' ')
idc=$(od -A n -t x1 -j 32 -N 8 "$tmp/c.0" 2>/dev/null | tr -d ' ')
echo "== job identities: $idb $idc"
if [ -z "$idb" ] || [ -z "$idc" ] || [ "$idb" = "$idc" ]; then
    fail "two jobs started together share an identity ('$idb', '$idc')"
fi

[ "$status" -eq 0 ] && echo "all checks passed"
finish
