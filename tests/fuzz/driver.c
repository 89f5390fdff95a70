/*
 * tests/fuzz/driver.c: runs a fuzz harness (LLVMFuzzerTestOneInput) over
 * files and directories of files without libFuzzer, so that make check
 * runs every harness over its corpus with the ordinary compiler (and,
 * in a sanitizer build, sanitized). The files of a directory run in the
 * order of their names. A file named "ok-*" must be accepted by the
 * decoder, "bad-*" refused (fuzz_verdict); any other is only run.
 *
 *     tests/fuzz/fuzz_shm tests/fuzz/corpus/shm [more files or dirs]
 */
#include "tests/fuzz/fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

static int fuzz_failed;
static int fuzz_runs;

static int fuzz_read(const char *path, uint8_t **data_p, size_t *size_p)
{
    FILE *f = fopen(path, "rb");
    uint8_t *data = NULL;
    size_t size = 0, cap = 0, n;

    if (f == NULL) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return -1;
    }
    for (;;) {
        if (size == cap) {
            uint8_t *more;

            cap = (cap == 0) ? 4096 : 2 * cap;
            more = realloc(data, cap);
            if (more == NULL) {
                free(data);
                fclose(f);
                fprintf(stderr, "%s: out of memory\n", path);
                return -1;
            }
            data = more;
        }
        n = fread(data + size, 1, cap - size, f);
        size += n;
        if (n == 0) {
            break;
        }
    }
    if (ferror(f)) {
        fprintf(stderr, "%s: read error\n", path);
        free(data);
        fclose(f);
        return -1;
    }
    fclose(f);
    *data_p = data;
    *size_p = size;
    return 0;
}

static void fuzz_run_file(const char *path)
{
    const char *base = strrchr(path, '/');
    uint8_t *data, *copy;
    size_t size;

    base = (base == NULL) ? path : base + 1;
    if (fuzz_read(path, &data, &size) != 0) {
        fuzz_failed++;
        return;
    }
    /* Exactly size bytes, so that a read past the input is seen. */
    copy = malloc(size ? size : 1);
    if (copy == NULL) {
        free(data);
        fuzz_failed++;
        return;
    }
    if (size > 0) {
        memcpy(copy, data, size);
    }
    free(data);
    fuzz_verdict = FUZZ_NONE;
    (void)LLVMFuzzerTestOneInput(copy, size);
    free(copy);
    fuzz_runs++;
    if ((strncmp(base, "ok-", 3) == 0) && (fuzz_verdict != FUZZ_ACCEPTED)) {
        fprintf(stderr, "%s: a valid input was refused\n", path);
        fuzz_failed++;
    } else if ((strncmp(base, "bad-", 4) == 0) &&
               (fuzz_verdict != FUZZ_REFUSED)) {
        fprintf(stderr, "%s: a malformed input was %s\n", path,
                (fuzz_verdict == FUZZ_ACCEPTED) ? "accepted" :
                                                  "not judged");
        fuzz_failed++;
    }
}

static int fuzz_name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void fuzz_run_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **names = NULL;
    size_t n = 0, cap = 0, i;

    if (d == NULL) {
        fprintf(stderr, "%s: %s\n", dir, strerror(errno));
        fuzz_failed++;
        return;
    }
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') {
            continue;
        }
        if (n == cap) {
            char **more;

            cap = (cap == 0) ? 64 : 2 * cap;
            more = realloc(names, cap * sizeof(*names));
            if (more == NULL) {
                abort();
            }
            names = more;
        }
        names[n] = malloc(strlen(dir) + strlen(e->d_name) + 2);
        if (names[n] == NULL) {
            abort();
        }
        sprintf(names[n], "%s/%s", dir, e->d_name);
        n++;
    }
    closedir(d);
    qsort(names, n, sizeof(*names), fuzz_name_cmp);
    for (i = 0; i < n; i++) {
        fuzz_run_file(names[i]);
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv)
{
    struct stat st;
    int i;

    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE_OR_DIR...\n", argv[0]);
        return 2;
    }
    for (i = 1; i < argc; i++) {
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
            fuzz_failed++;
        } else if (S_ISDIR(st.st_mode)) {
            fuzz_run_dir(argv[i]);
        } else {
            fuzz_run_file(argv[i]);
        }
    }
    printf("%s: %d inputs, %d failed\n", argv[0], fuzz_runs, fuzz_failed);
    return ((fuzz_failed == 0) && (fuzz_runs > 0)) ? 0 : 1;
}
