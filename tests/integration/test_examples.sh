#!/bin/bash
# Run every example through gcrun and check its exit status and the lines
# that show it did what it claims. Exit 0 pass, 1 fail, 77 skip.
# Needs top_builddir (the harness exports it; defaults to the current dir).
set -u

# Each run gets this long; the examples take well under a second each.
limit=${GENCOMM_TEST_TIMEOUT:-60}
. "${top_srcdir:-.}/tests/lib.sh"
examples="${builddir}/examples"
need_progs "$gcrun"

# channel: pairs (0 -> 1); with 3 processes the last one idles.
launch 2 "$examples/channel"
if expect_rc 0; then
    expect_count 1 'channel: P0 received 10 messages in order from P1'
    expect_count 1 'channel: P1 sent 10 messages to P0'
fi
launch 3 "$examples/channel"
if expect_rc 0; then
    expect_count 1 'received 10 messages in order'
    expect_count 1 'channel: P2 idles'
fi

# offer: the same channel made with gcm_lco_offer / gcm_lco_accept_offer,
# and one between two threads of each process.
launch 3 "$examples/offer"
if expect_rc 0; then
    expect_count 1 'offer: P0 received 5 messages from P1 on the offered slot'
    expect_count 1 'offer: P1 sent 5 messages to P0 on send slot 0'
    expect_count 3 'offer: P[012]: a thread received 5 messages on a channel'
fi

# intracomm: every process prints its LCO in the seed's notation.
launch 3 "$examples/intracomm"
if expect_rc 0; then
    expect_line 'intracomm: P0 = {<P0[0],P1[0],P2[0]>, <+,+,+>}'
    expect_line 'intracomm: P1 = {<P0[1],P1[1],P2[1]>, <+,+,+>}'
    expect_line 'intracomm: P2 = {<P0[2],P1[2],P2[2]>, <+,+,+>}'
    expect_count 3 'received from all 3 LCOs'
fi
launch 5 "$examples/intracomm"
if expect_rc 0; then
    expect_line 'intracomm: P4 = {<P0[4],P1[4],P2[4],P3[4],P4[4]>, <+,+,+,+,+>}'
    expect_count 5 'received from all 5 LCOs'
fi

# intercomm: indexed by sender, unlike the seed's printed figure.
launch 4 "$examples/intercomm"
if expect_rc 0; then
    expect_line 'intercomm: P0 = {<P2[0],P3[0]>, <+,+>}'
    expect_line 'intercomm: P1 = {<P2[1],P3[1]>, <+,+>}'
    expect_line 'intercomm: P2 = {<P0[0],P1[0]>, <+,+>}'
    expect_line 'intercomm: P3 = {<P0[1],P1[1]>, <+,+>}'
    expect_count 4 'received from all 2 LCOs of group'
    expect_line "P3 receive slot 0 got P0's send slot 1"
fi
# An odd count cannot be split into two groups: a clean error, no hang.
launch 3 "$examples/intercomm"
if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ]; then
    fail "intercomm with 3 processes: exit status $rc, expected an error"
fi

# two_senders: the seed's Figure 1(e).
launch 3 "$examples/two_senders"
if expect_rc 0; then
    expect_count 1 'R received 100 messages: 50 on slot 0 from P1, 50 on slot 1'
    expect_line '50 on slot 1 from P2, in order per slot'
    expect_count 2 'two_senders: P[12] sent 50 messages'
fi

# master_children: children talk directly once introduced.
launch 4 "$examples/master_children"
if expect_rc 0; then
    expect_count 1 'master introduced 3 children in a ring and relayed nothing'
    expect_line 'child 1 sent 25 messages to child 2 and got 25 from child 3'
    expect_line 'child 3 sent 25 messages to child 1 and got 25 from child 2'
    expect_count 3 'child [1-3] sent 25 messages'
fi

# lco_channel: Figure 2 through the MPI interface, pairs as channel.
launch 2 "$examples/lco_channel"
if expect_rc 0; then
    expect_count 1 'lco_channel: P0 received 10 messages in order from P1'
    expect_count 1 'lco_channel: P1 sent 10 messages to P0 on send slot 0'
fi
launch 4 "$examples/lco_channel"
if expect_rc 0; then
    expect_count 2 'lco_channel: P[02] received 10 messages in order'
    expect_line 'lco_channel: P3 sent 10 messages to P2'
fi

# lco_dup: Figure 3, a duplicate built from LCOs, used by point-to-point
# and collectives.
for np in 2 4; do
    launch $np "$examples/lco_dup"
    if expect_rc 0; then
        expect_count $np "lco_dup: P[0-9]+: hand-built duplicate of $np processes: ring, allreduce, bcast and barrier ok"
    fi
done

# fox: Fox's matrix product on a 2 x 2 and a 3 x 3 grid (MPI layer).
launch 4 "$examples/fox"
if expect_rc 0; then
    expect_count 1 '^fox: n=12 q=2 product matches the serial product$'
fi
launch 9 "$examples/fox" 36
if expect_rc 0; then
    expect_count 1 '^fox: n=36 q=3 product matches the serial product$'
fi
# Not a square number of processes: a clean refusal, no hang.
launch 3 "$examples/fox"
if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ]; then
    fail "fox with 3 processes: exit status $rc, expected an error"
fi

# thread_channels: Figure 2 between threads made at run time, names over
# the hub, the world and a channel made just before.
for np in 1 3; do
    launch $np "$examples/thread_channels"
    if expect_rc 0; then
        expect_count $np 'thread_channels: P[0-9]+: 3 threads made 9 channels at run time .* 180 messages checked'
    fi
done

# thread_collectives: one LCO per thread (3, and 4 on process 1), and
# collectives among all of them.
launch 3 "$examples/thread_collectives"
if expect_rc 0; then
    expect_count 3 'thread_collectives: P[0-2]: [34] threads, LCOs [0-9]+\.\.[0-9]+ of 10: allreduce, bcast, barrier, allgather and ring ok'
    expect_line 'thread_collectives: P1: 4 threads, LCOs 3..6 of 10'
fi
launch 4 "$examples/thread_collectives"
if expect_rc 0; then
    expect_count 4 'of 13: allreduce, bcast, barrier, allgather and ring ok'
fi

# spawn_children: two children spawned at run time talk directly.
launch 1 "$examples/spawn_children"
if expect_rc 0; then
    expect_count 2 'spawn_children: child [01] exchanged 20 messages with the other directly'
    expect_count 1 'the master sent 2 and received 2 messages meanwhile'
    expect_count 1 'spawn_children: ok'
fi

# two_jobs.sh: two jobs started separately find each other.
echo "== examples/two_jobs.sh"
out=$(timeout "$limit" "${top_srcdir:-.}/examples/two_jobs.sh" \
      "$top_builddir" 2>&1)
rc=$?
if expect_rc 0; then
    expect_count 1 'serving job got "what is the answer\?" through a name from a file'
    expect_count 1 'asking job got the answer 42 from the other job'
    expect_count 1 'serving job accepted; 5 processes of two jobs reduced together'
    expect_count 1 'asking job connected through the name service'
fi

# stencil_map: the 4 x 4 grid on two hosts laid out round-robin cuts 12
# of its 24 edges with reorder 0 and 4 with reorder 1; on 4 hosts 12 and
# 8; halos are checked by the program.
launch 16 --hosts a,b,a,b,a,b,a,b,a,b,a,b,a,b,a,b --bind-to none \
    "$examples/stencil_map" --rounds 5 --block 8
if expect_rc 0; then
    expect_line 'reorder 0: 4 x 4 grid, 12 of 24 grid edges between hosts'
    expect_line 'reorder 1: 4 x 4 grid, 4 of 24 grid edges between hosts'
fi
launch 16 --hosts a,b,c,d,a,b,c,d,a,b,c,d,a,b,c,d --bind-to none \
    "$examples/stencil_map" --rounds 5 --block 8
if expect_rc 0; then
    expect_line 'reorder 1: 4 x 4 grid, 8 of 24 grid edges between hosts'
fi

# ocean_atmos: the seed's coupled simulation, its communicators from
# examples/ocean_atmos.xml on two emulated clusters; without the file it
# says how to run it.
seeds="foo:00,foo:01,foo:02,foo:03,bar:00,bar:01,bar:02,bar:03"
launch 8 --hosts "$seeds" \
    env GENCOMM_EXTERNAL="${top_srcdir:-.}/examples/ocean_atmos.xml" \
    "$examples/ocean_atmos"
if expect_rc 0; then
    expect_count 4 '^process [0-3] on foo:0[0-3]: ocean rank [0-3] of 4, depth 3.8km, CPU speed 2.2, model coupled ocean-atmosphere, on a ring$'
    expect_count 4 '^process [4-7] on bar:0[0-3]: atmosphere rank [0-3] of 4, pressure 101.325kPa, CPU speed (2.0|2.2|1.8), time step 60s$'
    expect_line 'process 6 on bar:02: atmosphere rank 2 of 4, pressure 101.325kPa, CPU speed 1.8'
    # The perfect shuffle: foo:01 is ocean rank 2.
    expect_line 'process 1 on foo:01: ocean rank 2 of 4'
    expect_count 1 '^ocean: mean temperature [0-9.]+ after 20 steps, coupled with 4 remote processes$'
    expect_count 1 '^atmosphere: mean temperature [0-9.]+ after 20 steps, coupled with 4 remote processes$'
fi
launch 2 "$examples/ocean_atmos"
if expect_rc 0; then
    expect_count 2 'in neither model \(run with GENCOMM_EXTERNAL'
fi

if [ "$status" -eq 0 ]; then
    echo "all example checks passed"
fi
finish
