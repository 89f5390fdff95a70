#!/bin/bash
# Point-to-point integration tests: each program runs through gcrun under
# `timeout`, and its exit status and output lines are checked. Exit 0 pass,
# 1 fail, 77 skip. Needs top_builddir (exported by the harness).
#
# The machine this runs on may have 2 cores: the stress runs with 4, 6 and
# 8 processes are oversubscribed, so their message counts are small enough
# to finish well within their limits.
set -u

. "${top_srcdir:-.}/tests/lib.sh"
progs="${builddir}/tests/integration"
need_progs "$gcrun"
limit=60

# Show the stress rates in the log without failing on them.
show_rates() {
    printf '%s\n' "$out" | grep -E 'p2p_stress: [0-9]+ messages ok' |
        sed 's/^/   /'
}

# --- stress: content, order, sizes, tags ---------------------------------
# About 8 s on an idle machine; at a load of 25-35 on 2 cores it once took
# 128 s. The limit only catches a hang.
launch_for 300 2 "$progs/p2p_stress" 100000
if expect_rc 0; then
    expect_count 2 'p2p_stress: 100000 messages ok'
    show_rates
fi
# Pairs mode with an odd count: the last process has no partner.
launch_for 60 3 "$progs/p2p_stress" 2000
if expect_rc 0; then
    expect_count 2 'p2p_stress: 2000 messages ok'
    expect_count 1 'p2p_stress: P2 idles'
fi
# All pairs, oversubscribed: each process receives M from each peer.
launch_for 60 4 "$progs/p2p_stress" -a 2000
if expect_rc 0; then
    expect_count 4 'p2p_stress: 6000 messages ok'
    show_rates
fi
launch_for 60 6 "$progs/p2p_stress" -a 800
if expect_rc 0; then
    expect_count 6 'p2p_stress: 4000 messages ok'
    show_rates
fi
launch_for 60 8 "$progs/p2p_stress" -a 400
if expect_rc 0; then
    expect_count 8 'p2p_stress: 2800 messages ok'
    show_rates
fi

# --- wildcards, probes, waitany/waitall ----------------------------------
for n in 2 3; do
    launch_for 60 "$n" "$progs/p2p_wildcards"
    if expect_rc 0; then
        expect_count 5 'p2p_wildcards: phase [1-5] ok'
        expect_count 1 'p2p_wildcards: all checks passed'
    fi
done

# --- truncation -----------------------------------------------------------
launch_for 60 2 "$progs/p2p_truncate"
if expect_rc 0; then
    expect_count 7 'p2p_truncate: world: .* truncated, next message intact'
    expect_count 7 'p2p_truncate: self: .* truncated, next message intact'
    expect_count 1 'p2p_truncate: all checks passed'
fi

# --- stale, forged and bad names; bad input --------------------------------
launch_for 60 2 "$progs/p2p_names"
if expect_rc 0; then
    expect_match 'p2p_names: stale name refused: '
    expect_count 1 'p2p_names: \(a\) stale name: ok'
    expect_count 1 'p2p_names: \(b\) forged LCO names: ok'
    expect_count 1 'p2p_names: \(c\) slot names: ok'
    expect_count 1 'p2p_names: \(d\) bad input: ok'
    expect_count 1 'p2p_names: all checks passed'
fi

# --- nothing forged is delivered on what the library builds ---------------
# A name made from public facts, and a send on another process's receive
# slot of the world, over shared memory and over UCX.
for shm in 1 0; do
    launch_for 60 3 env GENCOMM_SHM=$shm "$progs/p2p_forge"
    if expect_rc 0; then
        expect_count 1 'p2p_forge: \(a\) name from public facts refused: .*gcm_send'
        expect_count 1 'p2p_forge: \(b\) send on another.s slot refused'
        expect_count 1 'p2p_forge: P0 received only process 2.s message'
        expect_count 1 'p2p_forge: all checks passed'
    fi
done

# --- building LCO graphs sends nothing ------------------------------------
for n in 2 3; do
    launch_for 60 "$n" "$progs/p2p_zero_msgs"
    if expect_rc 0; then
        expect_count "$n" 'built without a message'
        expect_count 1 'p2p_zero_msgs: all checks passed'
    fi
done

# --- internal calls: synchronous sends, internal tags, matched probes -----
launch_for 60 2 "$progs/p2p_internal"
if expect_rc 0; then
    expect_count 1 'p2p_internal: sync 16 bytes: pending until matched'
    expect_count 1 'p2p_internal: sync 1048576 bytes: pending until matched'
    expect_count 1 'p2p_internal: internal tags: skipped by GCM_ANY_TAG'
    expect_count 1 'p2p_internal: matched probes: 16 B, 1 MiB and sync'
    expect_count 1 'p2p_internal: NOREQ: done at posting without a request'
    expect_count 1 'p2p_internal: early message for a token held later: kept'
    expect_count 1 'p2p_internal: all checks passed'
fi

# --- the same-host shared-memory path ---------------------------------------
# A long poll timeout, so that a lost wakeup shows as a slow phase (e) or
# a hang rather than a 100 ms delay. Debug logging shows the rings in use.
# Then the same program and a stress run with shared memory off (UCX).
export GENCOMM_WAIT_TIMEOUT_MS=5000
for n in 2 5; do
    out=""
    launch_for 60 "$n" env GENCOMM_SHM=1 GENCOMM_LOG_LEVEL=debug "$progs/p2p_shm"
    if expect_rc 0; then
        for phase in a b c d e f g; do
            expect_count 2 "p2p_shm: P[01] \\($phase\\) .* ok"
        done
        expect_match 'shm: endpoint 0 attached to proc 1 endpoint 0'
        expect_match 'shm: .*, publish with(out)? a fence'
    fi
done
# Producers that fence each publish (the form without membarrier), and a
# job whose processes differ in it: every wakeup must still come.
for mb in 00 01; do
    out=""
    launch_for 60 2 env GENCOMM_SHM=1 GENCOMM_LOG_LEVEL=debug \
        GENCOMM_SPIN_COUNT=20 GENCOMM_SPIN_US=0 sh -c \
        'if [ "$GENCOMM_LOCAL_RANK" = 0 ]; then m=$1; else m=$2; fi
         GENCOMM_SHM_MEMBARRIER=$m exec "$0"' \
        "$progs/p2p_shm" "${mb%?}" "${mb#?}"
    if expect_rc 0; then
        for phase in a b c d e f g; do
            expect_count 2 "p2p_shm: P[01] \\($phase\\) .* ok"
        done
        expect_match 'shm: .*, publish with a fence'
    fi
done
# Sleep races: a waiter that sleeps after 20 rounds, so that most of
# phase (g)'s messages arrive around its sleep (it reports how many).
out=""
launch_for 60 2 env GENCOMM_SPIN_COUNT=20 GENCOMM_SPIN_US=0 "$progs/p2p_shm"
if expect_rc 0; then
    expect_count 2 'p2p_shm: P[01] \(g\) sleep races ok'
    expect_match 'p2p_shm: P1 \(g\) [0-9]+ of 2000 messages took over 50 us'
fi
launch_for 60 2 env GENCOMM_SHM=0 GENCOMM_LOG_LEVEL=debug "$progs/p2p_shm"
if expect_rc 0; then
    expect_count 2 'p2p_shm: P[01] \(e\) wakeups ok'
    expect_count 0 'shm: attached'
fi
# Threads of one process waiting on the same endpoint, both transports;
# a lost wakeup would cost 5 s here.
for shm in 1 0; do
    launch_for 60 2 env GENCOMM_SHM=$shm "$progs/p2p_threads" 3000
    if expect_rc 0; then
        expect_count 2 'p2p_threads: P[01] ok'
    fi
done
# Threads that outnumber their process's core: the spinning ones progress
# the endpoint of one that waits without running (shared memory, then UCX).
for shm in 1 0; do
    launch_for 60 2 env GENCOMM_SHM=$shm "$progs/p2p_crowd"
    if expect_rc 0; then
        expect_count 1 'p2p_crowd: a receive whose waiter did not run was completed'
        expect_count 1 'p2p_crowd: all checks passed'
    fi
done
# GENCOMM_SPIN_US: a waiter whose process has a core for each endpoint in
# use spins on after its rounds; beside two more endpoints in use on one
# core it sleeps after them.
launch_for 60 2 "$progs/p2p_spin"
if expect_rc 0; then
    expect_count 1 'p2p_spin: (a lone waiter spun on|more processes than cores)'
    expect_count 1 'p2p_spin: a crowded waiter slept'
    expect_count 1 'p2p_spin: all checks passed'
fi
# An LCO gains receive slots while another thread receives on it.
launch_for 120 2 "$progs/p2p_grow" 200
if expect_rc 0; then
    expect_count 1 'p2p_grow: all checks passed'
fi
# Two processes on one core: polls between pieces of work, and a loop of
# polls for a message the other process sends, give the core away; with
# GENCOMM_POLL_YIELD_US longer than the test, none does.
launch_for 60 2 --bind-to none "$progs/p2p_poll"
if expect_rc 0; then
    expect_count 1 'p2p_poll: all checks passed'
fi
launch_for 60 2 --bind-to none env GENCOMM_POLL_YIELD_US=100000000 \
    "$progs/p2p_poll" keep
if expect_rc 0; then
    expect_count 1 'p2p_poll: all checks passed'
fi
# Threads on endpoints of their own: each thread's LCO has its own
# endpoint, with its own rings (debug logging shows endpoints other than
# 0 attaching) or its own UCX worker; oversubscribed at 4 processes.
for shm in 1 0; do
    for n in 2 4; do
        launch_for 60 "$n" env GENCOMM_SHM=$shm GENCOMM_LOG_LEVEL=debug \
            "$progs/p2p_endpoints" 40
        if expect_rc 0; then
            expect_count 1 'p2p_endpoints: all checks passed'
            if [ "$shm" = 1 ]; then
                expect_match 'shm: endpoint [1-9] attached to proc [0-9]+ endpoint [1-9]'
            else
                expect_count 0 'shm: endpoint .* attached'
            fi
        fi
    done
done
unset GENCOMM_WAIT_TIMEOUT_MS
launch_for 60 4 env GENCOMM_SHM=0 "$progs/p2p_stress" -a 1000
if expect_rc 0; then
    expect_count 4 'p2p_stress: 3000 messages ok'
fi

# --- receive-slot handlers: a remote counter and a remote queue ------------
# Small, large (rendezvous or shared-memory read) and mixed sizes, with and
# without shared memory; every process also sends a synchronous message to
# a handler slot, which must complete.
for shm in 1 0; do
    for n in 2 4; do
        for args in "16 200" "65536 30" "65536 30 mixed"; do
            launch_for 60 "$n" env GENCOMM_SHM=$shm "$progs/p2p_handlers" $args
            if expect_rc 0; then
                expect_count 1 \
                    'p2p_handlers: counter [0-9]+ and queue of [0-9]+ in order'
                expect_count "$n" \
                    'p2p_handlers: P[0-9]+ sync send to a handler slot completed'
                expect_count 1 'p2p_handlers: all checks passed'
            fi
        done
    done
done

# --- several receivers on one slot: the one that posted first gets it -----
for shm in 1 0; do
    for n in 2 3; do
        launch_for 60 "$n" env GENCOMM_SHM=$shm "$progs/p2p_first_posted" 200
        if expect_rc 0; then
            expect_count 2 \
                'p2p_first_posted: 200 rounds with .*: first posted first served'
            expect_count 1 'p2p_first_posted: all checks passed'
        fi
    done
done
# Four and six receivers on a user LCO's slot, exact and wildcard receives
# interleaved; the sender in the same process, then in another.
for shm in 1 0; do
    launch_for 60 2 env GENCOMM_SHM=$shm "$progs/p2p_receivers" 4 50
    if expect_rc 0; then
        expect_count 1 'same process: 4 receivers, 50 rounds: first posted'
        expect_count 1 'other process: 4 receivers, 50 rounds: first posted'
        expect_count 1 'p2p_receivers: all checks passed'
    fi
done
launch_for 60 1 "$progs/p2p_receivers" 6 30
if expect_rc 0; then
    expect_count 1 'same process: 6 receivers, 30 rounds: first posted'
fi

# --- a malformed worker address in the key-value store -----------------------
# Proc 1 replaces what it published for its endpoint 1: proc 0's send there
# must fail with an error naming the address, not abort inside UCX.
for mode in garbage truncated empty huge; do
    launch_for 60 2 env GENCOMM_SHM=0 GENCOMM_MAX_ENDPOINTS=2 \
        "$progs/p2p_bad_addr" "$mode"
    if expect_rc 0; then
        expect_count 1 'p2p_bad_addr: OK'
        expect_match 'error: the worker address proc 1 published for its endpoint 1 .* is malformed'
    fi
done

# --- a peer dies ------------------------------------------------------------
# A peer reported gone (what UCX's error handler calls) while its last
# message has arrived and waits unhandled: the message is received, then
# the peer fails (tests/integration/p2p_lost.c: the order is made with
# files and the endpoint's lock, not waited for).
make_tmp gcm-p2p-lost
launch_for 120 2 env GENCOMM_SHM=0 "$progs/p2p_lost" "$tmp"
if expect_rc 0; then
    expect_count 1 'p2p_lost: the message sent before the report was received'
    expect_count 1 'p2p_lost: a later receive failed after'
    expect_count 1 'p2p_lost: P1 checks passed'
fi

# Rank 1 kills itself with SIGKILL: gcrun must report it and exit with
# 128 + 9, and rank 0 must have seen its requests fail instead of hanging.
export GENCOMM_KILL_GRACE_MS=5000
# A known race, kept visible: under heavy load the operations on the
# second endpoint sometimes go to UCX instead of shared memory when the
# peer dies, and then hang or fail with another error than "peer failed".
# A run whose process 0 did not pass is retried once, saying so in the
# log; a second failure counts.
for n in 2 3; do
    launch_for 30 "$n" "$progs/p2p_peer_death"
    if [ "$rc" -ne 124 ] &&
       ! printf '%s\n' "$out" | grep -q 'p2p_peer_death: P0 checks passed'; then
        echo "   process 0 did not pass (known race): retrying once"
        printf '%s\n' "$out" | sed 's/^/   | /'
        launch_for 30 "$n" "$progs/p2p_peer_death"
    fi
    if expect_rc 137; then
        expect_match 'rank 1.*killed by signal 9'
        expect_count 1 'peer failure detected: '
        expect_count 1 'peer failure detected on endpoint [1-9] too'
        expect_count 1 'p2p_peer_death: P0 checks passed'
        if [ "$n" -gt 2 ]; then
            expect_count 1 'P0 still talks to the 1 other survivors'
        fi
    fi
done
unset GENCOMM_KILL_GRACE_MS

if [ "$status" -eq 0 ]; then
    echo "all p2p checks passed"
fi
finish
