/*
 * tests/integration/shm_intruder.c: a process of the same user, outside
 * the job, that tries every way into a rank's shared memory that the
 * segment and its sockets offer (test_shm_guard.sh; the victim is
 * tests/integration/shm_guard.c):
 *
 *   shm_intruder forge|header PID PROC
 *
 * maps the segment of endpoint 0 of process PID through /proc/PID/fd,
 * then
 *
 *   forge: copies the envelope of the last message proc PROC sent there,
 *     claims a free ring in PROC's name and writes into it a message with
 *     the next sequence number ("forged"), sends a claim note for that
 *     ring and wakeup datagrams in PROC's name to the rank's sockets
 *     (found through /proc/net/unix);
 *   header: rewrites the segment's ring count and ring size;
 *   park: writes into PROC's own ring, after its last message, 4200
 *     copies of it whose sequence numbers never come due.
 *
 * None of it may reach the victim's receives or crash it.
 *
 * Exit 0 when it did all that, 77 when the rank has no shared memory to
 * attack (its segment, or a ring from PROC, not found), 1 on an error of
 * its own.
 */
#define _GNU_SOURCE
#include "config.h"

#include "slots/slot_shm.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int victim;

static void fail(const char *what)
{
    fprintf(stderr, "shm_intruder: %s: %s\n", what, strerror(errno));
    exit(1);
}

/* The victim's descriptor whose link starts with prefix; -1 if none. */
static int find_fd(const char *prefix, char *link, size_t len)
{
    char dir[64], path[320];
    struct dirent *e;
    DIR *d;
    int fd = -1;

    snprintf(dir, sizeof(dir), "/proc/%d/fd", victim);
    d = opendir(dir);
    if (d == NULL) {
        fail("opendir /proc/PID/fd");
    }
    while ((e = readdir(d)) != NULL) {
        ssize_t n;
        if (e->d_name[0] == '.') {
            continue;
        }
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        n = readlink(path, link, len - 1);
        if (n <= 0) {
            continue;
        }
        link[n] = '\0';
        if (strncmp(link, prefix, strlen(prefix)) == 0) {
            fd = atoi(e->d_name);
            break;
        }
    }
    closedir(d);
    return fd;
}

/* The abstract address of the victim's socket whose name ends in suffix
 * ("-w", "-c"): its inode among the victim's descriptors, its name in
 * /proc/net/unix, as anyone of the same user can find it. */
static socklen_t find_sock(const char *suffix, struct sockaddr_un *addr)
{
    char dir[64], path[320], link[256], line[512];
    struct dirent *e;
    FILE *f;
    DIR *d;
    socklen_t found = 0;

    snprintf(dir, sizeof(dir), "/proc/%d/fd", victim);
    d = opendir(dir);
    if (d == NULL) {
        fail("opendir /proc/PID/fd");
    }
    while ((found == 0) && ((e = readdir(d)) != NULL)) {
        unsigned long inode;
        ssize_t n;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        n = readlink(path, link, sizeof(link) - 1);
        if (n <= 0) {
            continue;
        }
        link[n] = '\0';
        if (sscanf(link, "socket:[%lu]", &inode) != 1) {
            continue;
        }
        f = fopen("/proc/net/unix", "r");
        if (f == NULL) {
            fail("/proc/net/unix");
        }
        while (fgets(line, sizeof(line), f) != NULL) {
            char name[256];
            unsigned long ino;
            size_t len;
            if ((sscanf(line, "%*s %*s %*s %*s %*s %*s %lu %255s", &ino,
                        name) != 2) || (ino != inode) ||
                (strncmp(name, "@gencomm-", 9) != 0)) {
                continue;
            }
            len = strlen(name);
            if ((len < 2) || (strcmp(name + len - 2, suffix) != 0)) {
                continue;
            }
            memset(addr, 0, sizeof(*addr));
            addr->sun_family = AF_UNIX;
            memcpy(addr->sun_path + 1, name + 1, len - 1);
            found = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len);
            break;
        }
        fclose(f);
    }
    closedir(d);
    return found;
}

/* Writes a small message of len bytes at buf with envelope env into the
 * lane line idx of ring, and marks it full. */
static void put_line(gcm_slots_shm_ring_t *ring, uint64_t idx,
                     const gcm_slots_env_t *env, const char *buf, size_t len)
{
    gcm_slots_shm_line_t *line = gcm_slots_shm_line_at(ring, idx);

    gcm_slots_shm_line_encode(line, env, buf, len);
    atomic_store(&line->seq, (uint32_t)(idx + 1));
}

/* Writes up to PARK_COUNT messages into ring (the consumer's next lane
 * line is ltail) with sequence numbers past the due one, env's: none ever
 * comes due. The rank may stop reading once it failed the connection (2 s
 * without room): enough when more than its bound went in. */
#define PARK_COUNT (GCM_SLOTS_PARKED_MAX + 100)

static int park(gcm_slots_shm_ring_t *ring, const gcm_slots_env_t *env,
                uint64_t ltail)
{
    struct timespec gap = { 0, 100 * 1000 };
    uint64_t head = ltail;
    long waited = 0;
    int k;

    for (k = 0; k < PARK_COUNT; k++) {
        gcm_slots_env_t e = *env;
        while (head - atomic_load(&ring->ltail) >= GCM_SLOTS_SHM_NLINES) {
            if (++waited > 20000) {
                printf("shm_intruder: the rank stopped reading after %d "
                       "messages\n", k);
                return (k > GCM_SLOTS_PARKED_MAX) ? 0 : 1;
            }
            nanosleep(&gap, NULL);
        }
        waited = 0;
        e.seq = env->seq + 1 + (uint64_t)k;
        put_line(ring, head, &e, "parked", 7);
        head++;
    }
    printf("shm_intruder: wrote %d messages that never come due\n",
           PARK_COUNT);
    return 0;
}

int main(int argc, char **argv)
{
    struct timespec pause = { 0, 300 * 1000 * 1000 };
    gcm_slots_shm_note_t note;
    gcm_slots_shm_seg_t *seg;
    gcm_slots_shm_ring_t *legit = NULL, *mine;
    gcm_slots_shm_cell_msg_t msg;
    gcm_slots_env_t env;
    _Atomic uint32_t *owners;
    struct sockaddr_un addr;
    socklen_t addr_len;
    char link[256], path[64];
    struct stat st;
    uint32_t owner, i, free_ring = UINT32_MAX, nrings;
    uint64_t tail, ltail;
    int fd, s, proc, k, sent = 0;

    if ((argc != 4) ||
        ((strcmp(argv[1], "forge") != 0) && (strcmp(argv[1], "header") != 0) &&
         (strcmp(argv[1], "park") != 0))) {
        fprintf(stderr, "usage: shm_intruder forge|header|park PID PROC\n");
        return 2;
    }
    victim = atoi(argv[2]);
    proc   = atoi(argv[3]);
    owner  = (uint32_t)(proc + 1);    /* its endpoint 0 */

    fd = find_fd("/memfd:gencomm-shm-0", link, sizeof(link));
    if (fd < 0) {
        printf("shm_intruder: pid %d has no segment\n", victim);
        return 77;
    }
    snprintf(path, sizeof(path), "/proc/%d/fd/%d", victim, fd);
    fd = open(path, O_RDWR);
    if ((fd < 0) || (fstat(fd, &st) != 0)) {
        fail(path);
    }
    seg = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED,
               fd, 0);
    close(fd);
    if (seg == MAP_FAILED) {
        fail("mmap");
    }
    if (strcmp(argv[1], "header") == 0) {
        /* Sizes that do not fit what the victim mapped. */
        seg->nrings     = 0xffffffffu;
        seg->ring_bytes = (uint64_t)1 << 40;
        atomic_fetch_add(&seg->attach_gen, 1);
        printf("shm_intruder: rewrote the segment header\n");
        nanosleep(&pause, NULL);
        munmap(seg, (size_t)st.st_size);
        return 0;
    }
    nrings = seg->nrings;
    owners = (_Atomic uint32_t *)((char *)seg + GCM_SLOTS_SHM_OWNERS_OFF);
    for (i = 0; i < nrings; i++) {
        uint32_t o = atomic_load(&owners[i]);
        if ((o == owner) && (legit == NULL)) {
            legit = gcm_slots_shm_ring_at(seg, i);
        } else if ((o == 0) && (free_ring == UINT32_MAX)) {
            free_ring = i;
        }
    }
    if ((legit == NULL) || (free_ring == UINT32_MAX)) {
        printf("shm_intruder: no ring of proc %d (or no free ring)\n", proc);
        return 77;
    }
    ltail = atomic_load(&legit->ltail);
    tail  = atomic_load(&legit->tail);
    if ((ltail == 0) && (tail == 0)) {
        printf("shm_intruder: proc %d sent nothing yet\n", proc);
        return 77;
    }
    /* The last message proc sent: a real envelope (the world's LCO, its
     * token), and the sequence number that comes next. It is the last
     * lane line or the last cell, whichever has the later seq. */
    msg.env.seq = 0;
    if ((ltail > 0) &&
        (gcm_slots_shm_line_decode(gcm_slots_shm_line_at(legit, ltail - 1),
                                   GCM_SLOTS_SHM_LINE_SIZE, &msg) != GCM_OK)) {
        printf("shm_intruder: proc %d's last lane line is unreadable\n",
               proc);
        return 77;
    }
    if ((tail > 0) &&
        ((ltail == 0) ||
         (gcm_slots_shm_cell_at(legit, tail - 1)->env.seq > msg.env.seq))) {
        memcpy(&msg.env, &gcm_slots_shm_cell_at(legit, tail - 1)->env,
               sizeof(msg.env));
    }
    env = msg.env;
    env.seq++;
    if (strcmp(argv[1], "park") == 0) {
        return park(legit, &env, ltail);
    }

    /* A ring of its own in proc's name, and a message in it. */
    if (!atomic_compare_exchange_strong(&owners[free_ring],
                                        &(uint32_t){ 0 }, owner)) {
        fprintf(stderr, "shm_intruder: ring %u was taken meanwhile\n",
                free_ring);
        return 1;
    }
    mine = gcm_slots_shm_ring_at(seg, free_ring);
    put_line(mine, atomic_load(&mine->ltail), &env, "forged", 7);
    atomic_fetch_add(&seg->attach_gen, 1);
    printf("shm_intruder: wrote a message as proc %d (seq %llu) in ring "
           "%u\n", proc, (unsigned long long)env.seq, free_ring);

    /* Its claim, in proc's name. */
    memset(&note, 0, sizeof(note));
    note.magic = GCM_SLOTS_SHM_NOTE_MAGIC;
    note.kind  = GCM_SLOTS_SHM_CLAIM;
    note.proc  = proc;
    note.ring  = free_ring;
    addr_len = find_sock("-c", &addr);
    if (addr_len > 0) {
        s = socket(AF_UNIX, SOCK_SEQPACKET, 0);
        if ((s >= 0) &&
            (connect(s, (struct sockaddr *)&addr, addr_len) == 0) &&
            (send(s, &note, sizeof(note), MSG_NOSIGNAL) ==
             (ssize_t)sizeof(note))) {
            printf("shm_intruder: sent a claim of ring %u as proc %d\n",
                   free_ring, proc);
        }
        if (s >= 0) {
            close(s);
        }
        atomic_fetch_add(&seg->attach_gen, 1);
    }

    /* Wakeups in proc's name, and bytes that are no note at all. */
    addr_len = find_sock("-w", &addr);
    if (addr_len > 0) {
        s = socket(AF_UNIX, SOCK_DGRAM, 0);
        note.kind = GCM_SLOTS_SHM_WAKE;
        note.ring = 0;
        for (k = 0; (s >= 0) && (k < 64); k++) {
            struct timespec gap = { 0, 1000 * 1000 };
            if (sendto(s, (k % 2) ? (const void *)&note : "w",
                       (k % 2) ? sizeof(note) : 1, MSG_DONTWAIT,
                       (struct sockaddr *)&addr, addr_len) > 0) {
                sent++;
            }
            nanosleep(&gap, NULL);
        }
        if (s >= 0) {
            close(s);
        }
        printf("shm_intruder: sent %d wakeup datagrams\n", sent);
    }
    nanosleep(&pause, NULL);
    munmap(seg, (size_t)st.st_size);
    return 0;
}
