/* dht.c: a distributed hash table in one-sided communication, as in the
 * textbook examples of MPI-3 RMA (a counting table of keys).
 *
 * Each rank owns SLOTS slots of the table in a window (MPI_Win_allocate):
 * a key and a count per slot. Every rank inserts its keys (some of them
 * shared with other ranks) under one MPI_Win_lock_all epoch: a key's home
 * slot is key mod (size * SLOTS); MPI_Compare_and_swap claims an empty
 * slot (0) for the key or finds it there, probing the next slots
 * otherwise; MPI_Fetch_and_op then adds one to its count, and the count
 * fetched before the add is kept: the first inserter of a key sees 0.
 * Lookups read keys back with MPI_Get and MPI_Fetch_and_op(MPI_NO_OP).
 * Rank 0 prints what does not depend on the order of the inserts: the
 * table's contents sorted by key, how many inserts were first, and the
 * lookups. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define SLOTS 64
#define KEYS 40

typedef struct { long key; long count; } entry_t;

static long key_of(int rank, int i)
{
    /* Half of each rank's keys are shared by all ranks. */
    if (i % 2 == 0) {
        return 1 + (long)(i / 2) * 131;
    }
    return 100000 + (long)rank * 1000 + i * 17;
}

static int cmp_entry(const void *a, const void *b)
{
    const entry_t *x = a, *y = b;

    return (x->key > y->key) - (x->key < y->key);
}

int main(int argc, char **argv)
{
    int rank, size, i, probes, firsts = 0, total_firsts, nlocal, n;
    long key, old, zero = 0, one = 1, fetched, got;
    entry_t *table, *all = NULL, local[SLOTS];
    long checksum = 0;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win_allocate(SLOTS * sizeof(entry_t), sizeof(long), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &table, &win);
    for (i = 0; i < SLOTS; i++) {
        table[i].key = 0;
        table[i].count = 0;
    }
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Win_lock_all(0, win);
    for (i = 0; i < KEYS; i++) {
        long slot;

        key = key_of(rank, i);
        slot = key % (size * SLOTS);
        for (probes = 0; probes < size * SLOTS; probes++) {
            int owner = (int)(slot / SLOTS);
            MPI_Aint disp = (MPI_Aint)(slot % SLOTS) * 2;

            MPI_Compare_and_swap(&key, &zero, &old, MPI_LONG, owner, disp,
                                 win);
            MPI_Win_flush(owner, win);
            if (old == 0 || old == key) {
                MPI_Fetch_and_op(&one, &fetched, MPI_LONG, owner, disp + 1,
                                 MPI_SUM, win);
                MPI_Win_flush(owner, win);
                firsts += (fetched == 0);
                break;
            }
            slot = (slot + 1) % (size * SLOTS);
        }
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);

    /* Lookups: rank 0 reads one shared and one unshared key's count. */
    if (rank == 0) {
        long want[2];

        want[0] = key_of(0, 4);
        want[1] = key_of(size - 1, 3);
        MPI_Win_lock_all(0, win);
        for (i = 0; i < 2; i++) {
            long slot = want[i] % (size * SLOTS);

            for (probes = 0; probes < size * SLOTS; probes++) {
                int owner = (int)(slot / SLOTS);
                MPI_Aint disp = (MPI_Aint)(slot % SLOTS) * 2;

                MPI_Get(&got, 1, MPI_LONG, owner, disp, 1, MPI_LONG, win);
                MPI_Win_flush(owner, win);
                if (got == want[i]) {
                    MPI_Fetch_and_op(NULL, &fetched, MPI_LONG, owner,
                                     disp + 1, MPI_NO_OP, win);
                    MPI_Win_flush(owner, win);
                    printf("lookup %ld: count %ld\n", want[i], fetched);
                    break;
                }
                slot = (slot + 1) % (size * SLOTS);
            }
        }
        MPI_Win_unlock_all(win);
    }

    /* The contents, gathered and sorted. */
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    nlocal = 0;
    for (i = 0; i < SLOTS; i++) {
        local[i] = table[i];
        nlocal += (table[i].key != 0);
    }
    MPI_Win_unlock(rank, win);
    if (rank == 0) {
        all = malloc((size_t)size * SLOTS * sizeof(entry_t));
    }
    MPI_Gather(local, SLOTS * 2, MPI_LONG, all, SLOTS * 2, MPI_LONG, 0,
               MPI_COMM_WORLD);
    MPI_Reduce(&firsts, &total_firsts, 1, MPI_INT, MPI_SUM, 0,
               MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &nlocal, 1, MPI_INT, MPI_SUM,
                  MPI_COMM_WORLD);
    if (rank == 0) {
        long inserts = 0;

        qsort(all, (size_t)size * SLOTS, sizeof(entry_t), cmp_entry);
        n = 0;
        for (i = 0; i < size * SLOTS; i++) {
            if (all[i].key == 0) {
                continue;
            }
            n++;
            inserts += all[i].count;
            checksum = (checksum * 31 + all[i].key * 7 + all[i].count) %
                       1000000007L;
            if (n <= 3 || all[i].count > 1) {
                if (n <= 8) {
                    printf("key %ld count %ld\n", all[i].key, all[i].count);
                }
            }
        }
        printf("%d ranks: %d distinct keys (%d slots used), %ld inserts, "
               "%d first inserts, checksum %ld\n", size, n, nlocal, inserts,
               total_firsts, checksum);
        free(all);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
