/*
 * compat/mpi_names.c: MPI_Publish_name, MPI_Lookup_name and
 * MPI_Unpublish_name (MPI-3.1 section 10.4.4).
 *
 * Under a PMIx launcher (Open MPI's mpirun, Slurm) the launcher's name
 * service holds the names (PMIx_Publish, PMIx_Lookup, PMIx_Unpublish).
 * Otherwise (gcrun, Hydra, a singleton) they live in a directory every
 * job of the same user on the host shares with no option given:
 * $XDG_RUNTIME_DIR/gencomm-names, else /tmp/gencomm-<uid>/names, made
 * with mode 0700 and refused if another user owns it or can read it;
 * GENCOMM_NAME_DIR names another (a directory shared between hosts gives
 * reach across them). One file per service name, holding the port name,
 * the publisher's host name and pid: a name whose publisher is gone (same
 * host, pid not running) is not found, and the next publish of that name
 * replaces it. Names a process published and did not unpublish are
 * removed by its MPI_Finalize.
 *
 * Either way the same rules hold: publishing a name that is published
 * already, or unpublishing one this process did not publish with that
 * port, is MPI_ERR_SERVICE (a PMIx server may take both silently, so this
 * process keeps what it published there too).
 */
#include "config.h"

#include "compat/mpi_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Longest service name file (escaped) and record. */
#define GCM_NAMES_FILE_MAX 200
#define GCM_NAMES_REC_MAX  (MPI_MAX_PORT_NAME + 512)

typedef struct gcm_names_pub {
    struct gcm_names_pub *next;
    char                  service[GCM_NAMES_FILE_MAX + 1];   /* escaped */
    char                  port[MPI_MAX_PORT_NAME];
    /* Published in the launcher's name service, under this name. */
    int                   launcher;
    char                  name[MPI_MAX_PORT_NAME];
} gcm_names_pub_t;

static struct {
    pthread_mutex_t  lock;
    gcm_names_pub_t *published;   /* by this process, not unpublished */
} gcm_names = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Makes dir (mode 0700) if missing and checks that it is a directory of
 * this user that nobody else can read or write. */
static int names_private_dir(const char *dir, char *why, size_t whylen)
{
    struct stat st;

    if ((mkdir(dir, 0700) != 0) && (errno != EEXIST)) {
        snprintf(why, whylen, "cannot make %.300s: %s", dir,
                 strerror(errno));
        return -1;
    }
    if (lstat(dir, &st) != 0) {
        snprintf(why, whylen, "cannot read %.300s: %s", dir,
                 strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode) || (st.st_uid != getuid()) ||
        ((st.st_mode & 077) != 0)) {
        snprintf(why, whylen, "%.300s is not a private directory of this user "
                 "(mode %03o, owner %u)", dir, (unsigned)(st.st_mode & 0777),
                 (unsigned)st.st_uid);
        return -1;
    }
    return 0;
}

/* The directory of the names (made if missing), or -1 and why. */
static int names_dir(char *dir, size_t len, char *why, size_t whylen)
{
    const char *given = gcm_mpi_config.name_dir;
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    char parent[4096];
    struct stat st;

    if ((given != NULL) && (given[0] != '\0')) {
        snprintf(dir, len, "%s", given);
        return names_private_dir(dir, why, whylen);
    }
    if ((xdg != NULL) && (xdg[0] == '/') && (stat(xdg, &st) == 0) &&
        S_ISDIR(st.st_mode) && (st.st_uid == getuid())) {
        snprintf(dir, len, "%s/gencomm-names", xdg);
        return names_private_dir(dir, why, whylen);
    }
    snprintf(parent, sizeof(parent), "/tmp/gencomm-%u", (unsigned)getuid());
    if (names_private_dir(parent, why, whylen) != 0) {
        return -1;
    }
    snprintf(dir, len, "%.200s/names", parent);
    return names_private_dir(dir, why, whylen);
}

/* The file name of a service name: letters, digits, '-' and '_' as they
 * are, every other byte as %XX (so no name is "." or ".." or holds a
 * '/'). -1 if it would be too long. */
static int names_escape(const char *service, char *out)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = 0;
    const unsigned char *p;

    for (p = (const unsigned char *)service; *p != '\0'; p++) {
        int plain = ((*p >= 'a') && (*p <= 'z')) ||
                    ((*p >= 'A') && (*p <= 'Z')) ||
                    ((*p >= '0') && (*p <= '9')) || (*p == '-') ||
                    (*p == '_');
        if (n + (plain ? 1 : 3) > GCM_NAMES_FILE_MAX) {
            return -1;
        }
        if (plain) {
            out[n++] = (char)*p;
        } else {
            out[n++] = '%';
            out[n++] = hex[*p >> 4];
            out[n++] = hex[*p & 0xf];
        }
    }
    out[n] = '\0';
    return (n > 0) ? 0 : -1;
}

/* Reads a record: its port name, host and pid. -1 if missing or not a
 * record. */
static int names_read(const char *path, char *port, char *host, long *pid)
{
    char buf[GCM_NAMES_REC_MAX];
    char *nl, *sp;
    ssize_t n;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

    if (fd < 0) {
        return -1;
    }
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0) {
        return -1;
    }
    buf[n] = '\0';
    nl = strchr(buf, '\n');
    if ((nl == NULL) || (nl - buf >= MPI_MAX_PORT_NAME) || (nl == buf)) {
        return -1;
    }
    *nl = '\0';
    snprintf(port, MPI_MAX_PORT_NAME, "%.*s", MPI_MAX_PORT_NAME - 1, buf);
    sp = strchr(nl + 1, ' ');
    if (sp == NULL) {
        return -1;
    }
    *sp = '\0';
    snprintf(host, 256, "%.255s", nl + 1);
    *pid = strtol(sp + 1, NULL, 10);
    return 0;
}

/* Whether the publisher of a record is known to be gone. */
static int names_stale(const char *host, long pid)
{
    return (strcmp(host, gcm_lco_hostname()) == 0) && (pid > 0) &&
           (kill((pid_t)pid, 0) != 0) && (errno == ESRCH);
}

/* The arguments every name call takes: port_name must not be NULL, and
 * where it is the call's input (port_in) it must be a port name. */
static int names_check(const char *call, const char *service_name,
                       const char *port_name, int port_in, MPI_Info info)
{
    int rc;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS) {
        return rc;
    }
    if ((info != MPI_INFO_NULL) && (gcm_mpi_info_check(info) != 0)) {
        return gcm_mpi_raise(NULL, MPI_ERR_INFO, call, "invalid info");
    }
    if ((service_name == NULL) || (service_name[0] == '\0')) {
        return gcm_mpi_raise(NULL, MPI_ERR_SERVICE, call,
                             "the service name is empty");
    }
    if (strnlen(service_name, MPI_MAX_PORT_NAME) >= MPI_MAX_PORT_NAME) {
        return gcm_mpi_raise(NULL, MPI_ERR_SERVICE, call, "the service "
                             "name is longer than %d bytes",
                             MPI_MAX_PORT_NAME - 1);
    }
    if (port_name == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "port_name is NULL");
    }
    if (port_in &&
        ((port_name[0] == '\0') || (strchr(port_name, '\n') != NULL) ||
         (strnlen(port_name, MPI_MAX_PORT_NAME) >= MPI_MAX_PORT_NAME))) {
        return gcm_mpi_raise(NULL, MPI_ERR_PORT, call, "the port name is "
                             "empty, too long or spans lines");
    }
    return MPI_SUCCESS;
}

static void names_record(gcm_names_pub_t *pub)
{
    pthread_mutex_lock(&gcm_names.lock);
    pub->next = gcm_names.published;
    gcm_names.published = pub;
    pthread_mutex_unlock(&gcm_names.lock);
}

/* Publishing in the launcher's name service: refused if the name is
 * there already. */
static int names_launcher_publish(const char *call, const char *service,
                                  const char *file, const char *port_name)
{
    char found[MPI_MAX_PORT_NAME];
    gcm_names_pub_t *pub;

    if (gcm_lco_name_lookup(service, found, sizeof(found)) == GCM_OK) {
        return gcm_mpi_raise(NULL, MPI_ERR_SERVICE, call, "'%.64s' is "
                             "published already", service);
    }
    pub = calloc(1, sizeof(*pub));
    if (pub == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_NO_MEM, call, "out of memory");
    }
    if (gcm_lco_name_publish(service, port_name) != GCM_OK) {
        free(pub);
        return gcm_mpi_raise(NULL, MPI_ERR_SERVICE, call, "the launcher "
                             "did not publish '%.64s': %s", service,
                             gcm_last_error());
    }
    snprintf(pub->service, sizeof(pub->service), "%s", file);
    snprintf(pub->port, sizeof(pub->port), "%s", port_name);
    snprintf(pub->name, sizeof(pub->name), "%s", service);
    pub->launcher = 1;
    names_record(pub);
    return MPI_SUCCESS;
}

static int names_remove(const char *file, const char *port_name);

/* Withdraws what pub recorded; 0 on success. */
static int names_withdraw(const gcm_names_pub_t *pub)
{
    if (pub->launcher) {
        return (gcm_lco_name_unpublish(pub->name) == GCM_OK) ? 0 : -1;
    }
    return names_remove(pub->service, pub->port);
}

int PMPI_Publish_name(const char *service_name, MPI_Info info,
                      const char *port_name)
{
    static const char *call = "MPI_Publish_name";
    char dir[4096], path[4400], tmp[4400], file[GCM_NAMES_FILE_MAX + 1];
    char rec[GCM_NAMES_REC_MAX], oport[MPI_MAX_PORT_NAME], ohost[256];
    char why[512] = "";
    gcm_names_pub_t *pub;
    long opid;
    int rc, fd, len, tries;

    if ((rc = names_check(call, service_name, port_name, 1, info)) !=
        MPI_SUCCESS) {
        return rc;
    }
    if (names_escape(service_name, file) != 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_SERVICE, call, "service name "
                             "'%.64s' is too long to publish", service_name);
    }
    if (gcm_lco_launcher_names()) {
        return names_launcher_publish(call, service_name, file, port_name);
    }
    if (names_dir(dir, sizeof(dir), why, sizeof(why)) != 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_SERVICE, call, "%s", why);
    }
    pub = calloc(1, sizeof(*pub));
    if (pub == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_NO_MEM, call, "out of memory");
    }
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    snprintf(tmp, sizeof(tmp), "%s/.pub.%ld.XXXXXX", dir, (long)getpid());
    len = snprintf(rec, sizeof(rec), "%s\n%s %ld\n", port_name,
                   gcm_lco_hostname(), (long)getpid());
    fd = mkstemp(tmp);
    if ((fd < 0) || (write(fd, rec, (size_t)len) != len) ||
        (close(fd) != 0)) {
        snprintf(why, sizeof(why), "cannot write in %.300s: %s", dir,
                 strerror(errno));
        if (fd >= 0) {
            unlink(tmp);
        }
        free(pub);
        return gcm_mpi_raise(NULL, MPI_ERR_SERVICE, call, "%s", why);
    }
    /* link() is atomic and fails if the name exists: of two jobs that
     * publish one name at once, one wins. */
    for (tries = 0; tries < 2; tries++) {
        if (link(tmp, path) == 0) {
            break;
        }
        if ((errno != EEXIST) || (tries > 0) ||
            (names_read(path, oport, ohost, &opid) != 0) ||
            !names_stale(ohost, opid)) {
            snprintf(why, sizeof(why), (errno == EEXIST) ?
                     "'%.64s' is published already" :
                     "cannot publish '%.64s': %s", service_name,
                     strerror(errno));
            unlink(tmp);
            free(pub);
            return gcm_mpi_raise(NULL, MPI_ERR_SERVICE, call, "%s", why);
        }
        /* Its publisher is gone: the name is free again. */
        unlink(path);
    }
    unlink(tmp);
    snprintf(pub->service, sizeof(pub->service), "%s", file);
    snprintf(pub->port, sizeof(pub->port), "%s", port_name);
    names_record(pub);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Publish_name)

int PMPI_Lookup_name(const char *service_name, MPI_Info info,
                     char *port_name)
{
    static const char *call = "MPI_Lookup_name";
    char dir[4096], path[4400], file[GCM_NAMES_FILE_MAX + 1];
    char port[MPI_MAX_PORT_NAME], host[256], why[512] = "";
    gcm_status_t status;
    long pid;
    int rc;

    if ((rc = names_check(call, service_name, port_name, 0, info)) !=
        MPI_SUCCESS) {
        return rc;
    }
    if (gcm_lco_launcher_names()) {
        status = gcm_lco_name_lookup(service_name, port_name,
                                     MPI_MAX_PORT_NAME);
        return (status == GCM_OK) ? MPI_SUCCESS :
               gcm_mpi_raise(NULL, MPI_ERR_NAME, call, "no port is "
                             "published as '%.64s' (%s)", service_name,
                             gcm_last_error());
    }
    if (names_escape(service_name, file) != 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_NAME, call, "no port is "
                             "published as '%.64s'", service_name);
    }
    if (names_dir(dir, sizeof(dir), why, sizeof(why)) != 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_NAME, call, "%s", why);
    }
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    if (names_read(path, port, host, &pid) != 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_NAME, call, "no port is "
                             "published as '%.64s'", service_name);
    }
    if (names_stale(host, pid)) {
        /* Left for the next publisher of the name to replace: removing
         * it here could remove that publisher's record instead, written
         * between our read and the removal. */
        return gcm_mpi_raise(NULL, MPI_ERR_NAME, call, "'%.64s' was "
                             "published by process %ld, which is gone",
                             service_name, pid);
    }
    snprintf(port_name, MPI_MAX_PORT_NAME, "%s", port);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Lookup_name)

/* Removes file (an escaped service name) if it holds port; under the
 * lock. */
static int names_remove(const char *file, const char *port_name)
{
    char dir[4096], path[4400], why[512];
    char port[MPI_MAX_PORT_NAME], host[256];
    long pid;

    if (names_dir(dir, sizeof(dir), why, sizeof(why)) != 0) {
        return -1;
    }
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    if ((names_read(path, port, host, &pid) != 0) ||
        (strcmp(port, port_name) != 0)) {
        return -1;
    }
    return unlink(path);
}

int PMPI_Unpublish_name(const char *service_name, MPI_Info info,
                        const char *port_name)
{
    static const char *call = "MPI_Unpublish_name";
    char file[GCM_NAMES_FILE_MAX + 1];
    gcm_names_pub_t **link, *pub = NULL;
    int rc;

    if ((rc = names_check(call, service_name, port_name, 1, info)) !=
        MPI_SUCCESS) {
        return rc;
    }
    if (names_escape(service_name, file) != 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_SERVICE, call, "'%.64s' is not "
                             "published", service_name);
    }
    pthread_mutex_lock(&gcm_names.lock);
    for (link = &gcm_names.published; *link != NULL;
         link = &(*link)->next) {
        if ((strcmp((*link)->service, file) == 0) &&
            (strcmp((*link)->port, port_name) == 0)) {
            pub   = *link;
            *link = pub->next;
            break;
        }
    }
    rc = (pub != NULL) ? names_withdraw(pub) : -1;
    pthread_mutex_unlock(&gcm_names.lock);
    if ((pub != NULL) && (rc != 0) && pub->launcher) {
        free(pub);
        return gcm_mpi_raise(NULL, MPI_ERR_SERVICE, call, "the launcher "
                             "did not unpublish '%.64s': %s", service_name,
                             gcm_last_error());
    }
    free(pub);
    if (rc != 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_SERVICE, call, "this process "
                             "did not publish '%.64s' with that port",
                             service_name);
    }
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Unpublish_name)

void gcm_mpi_names_finalize(void)
{
    gcm_names_pub_t *pub;

    pthread_mutex_lock(&gcm_names.lock);
    while ((pub = gcm_names.published) != NULL) {
        gcm_names.published = pub->next;
        (void)names_withdraw(pub);
        free(pub);
    }
    pthread_mutex_unlock(&gcm_names.lock);
}
