/*
 * tests/integration/p2p_bad_addr.c: a worker address in the launcher's
 * key-value store that is no address (what a broken or hostile peer, or a
 * launcher that mangles values, could leave there) must fail the
 * connection to that process with a clear error, never reach UCX.
 *
 *   p2p_bad_addr garbage|truncated|empty|huge
 *       (2 processes, GENCOMM_SHM=0, GENCOMM_MAX_ENDPOINTS=2)
 *
 * Proc 1 replaces what it published for its endpoint 1 with such a value
 * and both fence; proc 0 then sends to proc 1 on a duplicate of the world
 * (homed as MPI_Comm_dup's: on endpoint 1), which must fail with GCM_ERR_TRANSPORT (the
 * error logged names the address), and prints "p2p_bad_addr: OK". The
 * world, on endpoint 0, still works: both finalize. Uses boot/ directly:
 * the internal library.
 */
#include "config.h"

#include "boot/boot.h"
#include "lco/lco.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    static unsigned char value[16384];
    const char *mode = (argc > 1) ? argv[1] : "";
    size_t len = sizeof(value);
    gcm_status_t status;
    gcm_lco_h dup;
    uint32_t id, gen, home;
    int i, rank;

    if (gcm_init(&argc, &argv) != GCM_OK) {
        fprintf(stderr, "p2p_bad_addr: gcm_init: %s\n", gcm_last_error());
        return 1;
    }
    rank = gcm_proc_rank();
    /* As MPI_Comm_dup makes it: on endpoint 1 of each process. */
    gcm_lco_derive_id_homed(gcm_world(), &id, &gen, &home);
    if (gcm_lco_create_pattern_homed(id, gen, home, gcm_proc_count(), NULL,
                                     rank, &dup) != GCM_OK) {
        fprintf(stderr, "p2p_bad_addr: no homed LCO: %s\n",
                gcm_last_error());
        return 1;
    }
    if (rank == 1) {
        if (gcm_boot_get(1, "gcm-a1", value, &len) != GCM_OK) {
            fprintf(stderr, "p2p_bad_addr: cannot read my own address\n");
            return 1;
        }
        if (strcmp(mode, "garbage") == 0) {
            for (i = 0; i < (int)len; i++) {
                value[i] = (unsigned char)(i * 37 + 11);
            }
        } else if (strcmp(mode, "truncated") == 0) {
            len /= 2;
        } else if (strcmp(mode, "empty") == 0) {
            len = 0;
        } else if (strcmp(mode, "huge") == 0) {
            memset(value + len, 0xa5, sizeof(value) - len);
            len = sizeof(value);
        } else {
            fprintf(stderr, "usage: p2p_bad_addr "
                    "garbage|truncated|empty|huge\n");
            return 2;
        }
        if (gcm_boot_put("gcm-a1", value, len) != GCM_OK) {
            fprintf(stderr, "p2p_bad_addr: put failed\n");
            return 1;
        }
    }
    if (gcm_boot_fence() != GCM_OK) {
        fprintf(stderr, "p2p_bad_addr: fence failed\n");
        return 1;
    }
    if (rank == 0) {
        status = gcm_send(dup, "x", 1, 1, 0);
        if (status == GCM_OK) {
            fprintf(stderr, "p2p_bad_addr: %s: the send succeeded\n", mode);
            return 1;
        }
        printf("p2p_bad_addr: send failed: %s: %s\n",
               gcm_status_string(status), gcm_last_error());
        if (status != GCM_ERR_TRANSPORT) {
            fprintf(stderr, "p2p_bad_addr: %s: not the error expected\n",
                    mode);
            return 1;
        }
        /* A second send fails the same way, at once. */
        if (gcm_send(dup, "x", 1, 1, 0) != GCM_ERR_TRANSPORT) {
            fprintf(stderr, "p2p_bad_addr: %s: the second send did not "
                    "fail\n", mode);
            return 1;
        }
        printf("p2p_bad_addr: OK\n");
    }
    (void)gcm_boot_fence();
    if ((gcm_lco_free(&dup) != GCM_OK) || (gcm_finalize() != GCM_OK)) {
        fprintf(stderr, "p2p_bad_addr: %s\n", gcm_last_error());
        return 1;
    }
    return 0;
}
