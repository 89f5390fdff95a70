#!/bin/sh
# tests/check_gencomm_h.sh: include/gencomm.h keeps its thread-safety
# promise. Every exported call's comment says who may make it
# ("Thread-safe", "Main thread only" or "owner thread of ... only"), and
# every call that is not thread-safe is named in the header's opening
# "Thread safety:" paragraph.
set -u
. "${top_srcdir:-.}/tests/lib.sh"
h=${top_srcdir:-.}/include/gencomm.h

# check HEADER: prints one line per breach; exits 1 if any.
check() {
    awk '
        /^ \* Thread safety:/ { intro = 1 }
        intro && /^ \*\/$/ { intro = 0 }
        intro { promise = promise " " $0 }
        /^\/\*\*/ { com = ""; incom = 1 }
        incom { com = com " " $0 }
        /\*\// { incom = 0 }
        /^GCM_EXPORT/ {
            decl = $0
            while (decl !~ /\(/ && (getline line) > 0) decl = decl line
            name = decl; sub(/\(.*/, "", name); sub(/.*[ *]/, "", name)
            if (com ~ /Thread-safe/) { com = ""; next }
            if (com ~ /Main thread only/ || com ~ /owner thread of [a-z]+ only/) {
                special[name] = 1; com = ""; next
            }
            print "gencomm.h: " name "() does not say who may call it"
            bad = 1; com = ""
        }
        END {
            for (n in special)
                if (index(promise, n "()") == 0) {
                    print "gencomm.h: " n "() is not thread-safe, and the opening paragraph does not say so"
                    bad = 1
                }
            exit bad
        }' "$1"
}

if out=$(check "$h"); then
    echo "ok: every call of gencomm.h says who may make it, as the opening paragraph promises"
else
    fail "the thread-safety promise of gencomm.h"
    printf '%s\n' "$out"
fi

# The check catches a call that says nothing and a promise that leaves
# out an exception.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/check_gencomm_h.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
sed 's/Blocking send: gcm_isend() then gcm_wait(). Thread-safe./Blocking send./' \
    "$h" >"$tmp/silent.h"
sed 's/gcm_coll_general() by the owner/a collective by the owner/' "$h" \
    >"$tmp/promise.h"
for f in silent promise; do
    if cmp -s "$h" "$tmp/$f.h"; then
        fail "self-test: the $f case changed nothing in gencomm.h"
    elif check "$tmp/$f.h" >/dev/null; then
        fail "self-test: the $f case was not caught"
    else
        echo "ok (self-test): the $f case is caught"
    fi
done
finish
