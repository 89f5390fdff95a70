/*
 * tools/gcrun_kvs.c: the job's key-value space: a chained hash
 * table, so that put and get stay O(1) however many keys the ranks
 * publish.
 */
#include "tools/gcrun.h"

/* ------------------------------------------------------------------------ */
/* Key-value space                                                          */
/* ------------------------------------------------------------------------ */

static uint32_t kvs_hash(const char *s)
{
    /* FNV-1a: simple and good enough for short text keys. */
    uint32_t h = 2166136261u;

    while (*s != '\0') {
        h ^= (unsigned char)*s++;
        h *= 16777619u;
    }
    return h;
}

void gcrun_kvs_init(struct kvs *kvs)
{
    kvs->nbuckets = 64;
    kvs->buckets = gcrun_xcalloc(kvs->nbuckets, sizeof(*kvs->buckets));
    kvs->count = 0;
}

static struct kvs_entry *kvs_find(const struct kvs *kvs, const char *key,
                                  uint32_t hash)
{
    struct kvs_entry *e = kvs->buckets[hash & (kvs->nbuckets - 1)];

    while (e != NULL) {
        if (e->hash == hash && strcmp(e->key, key) == 0) {
            return e;
        }
        e = e->next;
    }
    return NULL;
}

static void kvs_grow(struct kvs *kvs)
{
    size_t n = kvs->nbuckets * 2;
    struct kvs_entry **b = calloc(n, sizeof(*b));
    size_t i;

    if (b == NULL) {
        return; /* keep the old table: slower chains, still correct */
    }
    for (i = 0; i < kvs->nbuckets; i++) {
        struct kvs_entry *e = kvs->buckets[i];

        while (e != NULL) {
            struct kvs_entry *next = e->next;

            e->next = b[e->hash & (n - 1)];
            b[e->hash & (n - 1)] = e;
            e = next;
        }
    }
    free(kvs->buckets);
    kvs->buckets = b;
    kvs->nbuckets = n;
}

/* Stores or replaces key; returns -1 when out of memory. */
int gcrun_kvs_put(struct kvs *kvs, const char *key, const char *value)
{
    uint32_t hash = kvs_hash(key);
    struct kvs_entry *e = kvs_find(kvs, key, hash);
    char *v = strdup(value);

    if (v == NULL) {
        return -1;
    }
    if (e != NULL) {
        free(e->value);
        e->value = v;
        return 0;
    }
    e = malloc(sizeof(*e));
    if (e == NULL || (e->key = strdup(key)) == NULL) {
        free(e);
        free(v);
        return -1;
    }
    e->hash = hash;
    e->value = v;
    e->next = kvs->buckets[hash & (kvs->nbuckets - 1)];
    kvs->buckets[hash & (kvs->nbuckets - 1)] = e;
    kvs->count++;
    if (kvs->count > kvs->nbuckets / 4 * 3) {
        kvs_grow(kvs);
    }
    return 0;
}

const char *gcrun_kvs_get(const struct kvs *kvs, const char *key)
{
    struct kvs_entry *e = kvs_find(kvs, key, kvs_hash(key));

    return e == NULL ? NULL : e->value;
}

void gcrun_kvs_free(struct kvs *kvs)
{
    size_t i;

    for (i = 0; i < kvs->nbuckets; i++) {
        struct kvs_entry *e = kvs->buckets[i];

        while (e != NULL) {
            struct kvs_entry *next = e->next;

            free(e->key);
            free(e->value);
            free(e);
            e = next;
        }
    }
    free(kvs->buckets);
    kvs->buckets = NULL;
    kvs->nbuckets = 0;
    kvs->count = 0;
}
