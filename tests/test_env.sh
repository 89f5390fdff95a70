#!/bin/sh
# tests/test_env.sh: docs/env.md and GENCOMM_PRINT_CONFIG agree. Every
# setting a layer registers is printed at init under
# GENCOMM_PRINT_CONFIG=1; every one printed must be a row of docs/env.md's
# table, every row must be printed, and a default the table gives in
# backticks must be the default printed (in an environment without
# GENCOMM_* settings; a text setting left unset prints nothing, and the
# table describes what it then means).
set -u
. "${top_srcdir:-.}/tests/lib.sh"

prog=$builddir/tests/integration/gcm_test_self
doc=${top_srcdir:-.}/docs/env.md
need_progs "$gcrun" "$prog"

unset_args=$(env | sed -n 's/^\(GENCOMM_[A-Z0-9_]*\)=.*/-u \1/p')
# shellcheck disable=SC2086 # one -u per word
run "GENCOMM_PRINT_CONFIG=1 prints the settings" \
    env $unset_args GENCOMM_PRINT_CONFIG=1 "$gcrun" -n 1 "$prog" || finish

printed=$(printf '%s\n' "$out" | sed -n 's/^\(GENCOMM_[A-Z0-9_]*\)=\(.*\)$/\1 \2/p')
documented=$(sed -n 's/^| `\(GENCOMM_[A-Z0-9_]*\)` | \([^|]*\) |.*/\1 \2/p' "$doc")
[ -n "$printed" ] || fail "nothing printed"
[ -n "$documented" ] || fail "no settings table in $doc"

n=0
printf '%s\n' "$printed" | {
    while read -r name value; do
        n=$((n + 1))
        row=$(printf '%s\n' "$documented" | awk -v n="$name" '$1 == n')
        if [ -z "$row" ]; then
            echo "FAIL: $name is printed but not in docs/env.md"
            exit 1
        fi
        want=$(printf '%s\n' "$row" | sed -n 's/^[^ ]* `\([^`]*\)` *$/\1/p')
        # Unset text settings print nothing: their default is described.
        if [ -n "$want" ] && [ -n "$value" ] &&
            [ "$name" != GENCOMM_PRINT_CONFIG ] && [ "$want" != "$value" ]; then
            echo "FAIL: $name: docs/env.md says the default is '$want', it is '$value'"
            exit 1
        fi
    done
    echo "ok: $n printed settings are in docs/env.md, with their defaults"
} || status=1

printf '%s\n' "$documented" | {
    while read -r name rest; do
        if ! printf '%s\n' "$printed" | awk -v n="$name" '$1 == n { f = 1 } END { exit !f }'; then
            echo "FAIL: $name is in docs/env.md's table but no layer registers it"
            exit 1
        fi
    done
    echo "ok: every setting of docs/env.md's table is registered"
} || status=1
finish
