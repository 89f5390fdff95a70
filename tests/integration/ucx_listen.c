/*
 * tests/integration/ucx_listen.c: after gcm_init, which TCP addresses
 * does this process listen on? (UCX's TCP transport listens on each
 * network device it may use.) Prints one "ucx_listen: listening on ADDR
 * (loopback|network)" line per listening socket of the process, then
 * "ucx_listen: N listening, M beyond loopback"; test_ucx_listen.sh says
 * what is expected.
 */
#include <gencomm.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_INODES 1024

static unsigned long inodes[MAX_INODES];
static int ninodes;

static void collect_socket_inodes(void)
{
    char path[300], link[128];
    struct dirent *e;
    DIR *d = opendir("/proc/self/fd");

    if (d == NULL) {
        perror("ucx_listen: /proc/self/fd");
        exit(1);
    }
    while (((e = readdir(d)) != NULL) && (ninodes < MAX_INODES)) {
        unsigned long inode;
        ssize_t n;
        snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
        n = readlink(path, link, sizeof(link) - 1);
        if (n <= 0) {
            continue;
        }
        link[n] = '\0';
        if (sscanf(link, "socket:[%lu]", &inode) == 1) {
            inodes[ninodes++] = inode;
        }
    }
    closedir(d);
}

static int ours(unsigned long inode)
{
    int i;

    for (i = 0; i < ninodes; i++) {
        if (inodes[i] == inode) {
            return 1;
        }
    }
    return 0;
}

/* The address as /proc/net/tcp{,6} prints it: hex, 32-bit words in host
 * order. Loopback: 127.0.0.0/8, ::1, ::ffff:127.0.0.0/104. */
static int is_loopback(const char *hex)
{
    unsigned int w[4];

    if (strlen(hex) == 8) {
        return (sscanf(hex, "%8x", &w[0]) == 1) && ((w[0] & 0xff) == 127);
    }
    if (sscanf(hex, "%8x%8x%8x%8x", &w[0], &w[1], &w[2], &w[3]) != 4) {
        return 0;
    }
    if ((w[0] == 0) && (w[1] == 0) && (w[2] == 0) && (w[3] == 0x01000000)) {
        return 1;
    }
    return (w[0] == 0) && (w[1] == 0) && (w[2] == 0xffff0000) &&
           ((w[3] & 0xff) == 127);
}

static void scan(const char *table, int *nlisten, int *nbeyond)
{
    char line[512], local[64];
    unsigned long inode;
    unsigned int state;
    FILE *f = fopen(table, "r");

    if (f == NULL) {
        return;    /* no IPv6, say */
    }
    while (fgets(line, sizeof(line), f) != NULL) {
        char *colon;
        if ((sscanf(line, " %*s %63s %*s %x %*s %*s %*s %*s %*s %lu",
                    local, &state, &inode) != 3) ||
            (state != 0x0a) || !ours(inode)) {
            continue;
        }
        colon = strchr(local, ':');
        if (colon != NULL) {
            *colon = '\0';
        }
        (*nlisten)++;
        if (!is_loopback(local)) {
            (*nbeyond)++;
        }
        printf("ucx_listen: listening on %s (%s)\n", local,
               is_loopback(local) ? "loopback" : "network");
    }
    fclose(f);
}

int main(int argc, char **argv)
{
    int nlisten = 0, nbeyond = 0;

    if (gcm_init(&argc, &argv) != GCM_OK) {
        fprintf(stderr, "ucx_listen: gcm_init: %s\n", gcm_last_error());
        return 1;
    }
    collect_socket_inodes();
    scan("/proc/net/tcp", &nlisten, &nbeyond);
    scan("/proc/net/tcp6", &nlisten, &nbeyond);
    printf("ucx_listen: %d listening, %d beyond loopback\n", nlisten,
           nbeyond);
    fflush(stdout);
    (void)gcm_finalize();
    return 0;
}
