/*
 * util/util_config.c: the settings engine. Layers register their tables
 * (GCM_CONFIG_REGISTER, util.h); gcm_config_load reads them all from the
 * environment, warns about values it cannot use and prints everything
 * under GENCOMM_PRINT_CONFIG=1. util/'s own settings are here too.
 */
#include "config.h"

#include "util/util.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

gcm_util_config_t gcm_util_config;

static const gcm_config_entry_t gcm_util_config_entries[] = {
    GCM_CFG("GENCOMM_LOG_LEVEL", "warn", GCM_CFG_LEVEL,
            gcm_util_config.log_level, "error, warn, info, debug or trace"),
    GCM_CFG_TEXT("GENCOMM_LOG_FILE", gcm_util_config.log_file,
                 "append log lines to this file instead of stderr"),
    GCM_CFG("GENCOMM_PRINT_CONFIG", "0", GCM_CFG_INT,
            gcm_util_config.print_config, "print every setting at init when 1"),
};
GCM_CONFIG_REGISTER(util, gcm_util_config_entries)

/* The tables, in the order of the layers (printing follows it). */
static gcm_config_table_t *gcm_config_tables;

static int gcm_config_layer_rank(const char *layer)
{
    static const char *const order[] = {
        "util", "boot", "threads", "slots", "lco", "coll", "compat"
    };
    size_t i;

    for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
        if (strcmp(order[i], layer) == 0) {
            return (int)i;
        }
    }
    return (int)i;
}

void gcm_config_register(gcm_config_table_t *table)
{
    gcm_config_table_t **p = &gcm_config_tables;
    int rank = gcm_config_layer_rank(table->layer);

    while ((*p != NULL) && (*p != table) &&
           (gcm_config_layer_rank((*p)->layer) <= rank)) {
        p = &(*p)->next;
    }
    if (*p == table) {
        return;
    }
    table->next = *p;
    *p = table;
}

/* A count with an optional k, m or g suffix. Refused (*ok_p = 0): no
 * digits, anything after the suffix, a sign (strtoull would take "-1" as
 * the largest value), and values past SIZE_MAX, the suffix included. */
static size_t gcm_config_parse_size(const char *text, int *ok_p)
{
    char *end;
    unsigned long long value;
    int shift = 0;

    text += strspn(text, " \t");
    errno = 0;
    value = strtoull(text, &end, 0);
    *ok_p = (end != text) && (*text != '-') && (*text != '+') &&
            (errno == 0);
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: break;
    }
    if ((*end != '\0') || (value > (unsigned long long)SIZE_MAX >> shift)) {
        *ok_p = 0;
        return 0;
    }
    return (size_t)(value << shift);
}

/* The index of word in the '|'-separated list words, or -1. */
static int gcm_config_parse_word(const char *words, const char *word)
{
    size_t n = strlen(word);
    const char *p = words;
    int i = 0;

    while (p != NULL) {
        const char *bar = strchr(p, '|');
        size_t len = (bar != NULL) ? (size_t)(bar - p) : strlen(p);

        if ((len == n) && (strncasecmp(p, word, n) == 0)) {
            return i;
        }
        p = (bar != NULL) ? bar + 1 : NULL;
        i++;
    }
    return -1;
}

/* The default text of an entry (a choice's first word; "" for text). */
static const char *gcm_config_default(const gcm_config_entry_t *e,
                                      char *buf, size_t len)
{
    size_t n;

    if (e->kind == GCM_CFG_CHOICE) {
        n = strcspn(e->words, "|");
        snprintf(buf, len, "%.*s", (int)n, e->words);
        return buf;
    }
    return (e->dflt != NULL) ? e->dflt : "";
}

static void gcm_config_set(const gcm_config_entry_t *e, const char *text,
                           int from_env)
{
    char dflt[64];
    int ok = 1;
    int level;
    size_t value;

    switch (e->kind) {
    case GCM_CFG_CHOICE:
        level = gcm_config_parse_word(e->words, text);
        if (level < 0) {
            ok    = 0;
            level = 0;
        }
        *(int *)e->field = level;
        break;
    case GCM_CFG_LEVEL:
        level = gcm_log_level_parse(text);
        if (level < 0) {
            ok    = 0;
            level = GCM_LOG_WARN;
        }
        *(int *)e->field = level;
        break;
    case GCM_CFG_SIZE:
        value = gcm_config_parse_size(text, &ok);
        *(size_t *)e->field = value;
        break;
    case GCM_CFG_INT:
        value = gcm_config_parse_size(text, &ok);
        if (value > UINT_MAX) {
            ok = 0;
        }
        if (ok && (e->max > 0) && ((value < e->min) || (value > e->max))) {
            size_t clamped = (value < e->min) ? e->min : e->max;
            fprintf(stderr, "gencomm: warning: %s='%s' is outside %u..%u, "
                    "using %zu\n", e->name, text, e->min, e->max, clamped);
            value = clamped;
        }
        *(unsigned *)e->field = (unsigned)value;
        break;
    case GCM_CFG_TEXT:
        *(const char **)e->field = from_env ? text : e->dflt;
        break;
    }
    if (!ok && from_env) {
        const char *d = gcm_config_default(e, dflt, sizeof(dflt));

        if (e->kind == GCM_CFG_CHOICE) {
            fprintf(stderr, "gencomm: warning: %s='%s' is not one of %s, "
                    "using %s\n", e->name, text, e->words, d);
        } else {
            fprintf(stderr, "gencomm: warning: %s='%s' is not valid, "
                    "using %s\n", e->name, text, d);
        }
        gcm_config_set(e, d, 0);
    }
}

/* The value in force of an entry, as text. */
static const char *gcm_config_format(const gcm_config_entry_t *e,
                                     char *buf, size_t len)
{
    const char *text;
    size_t n;
    int k;

    switch (e->kind) {
    case GCM_CFG_CHOICE:
        /* The word at the field's index. */
        text = e->words;
        for (k = *(const int *)e->field; (k > 0) && (text != NULL); k--) {
            text = strchr(text, '|');
            text = (text != NULL) ? text + 1 : NULL;
        }
        if (text == NULL) {
            return "?";
        }
        n = strcspn(text, "|");
        snprintf(buf, len, "%.*s", (int)n, text);
        return buf;
    case GCM_CFG_LEVEL:
        return gcm_log_level_name(*(const int *)e->field);
    case GCM_CFG_SIZE:
        snprintf(buf, len, "%zu", *(const size_t *)e->field);
        return buf;
    case GCM_CFG_INT:
        snprintf(buf, len, "%u", *(const unsigned *)e->field);
        return buf;
    case GCM_CFG_TEXT:
        text = *(const char *const *)e->field;
        return (text != NULL) ? text : "";
    }
    return "?";
}

void gcm_config_load(void)
{
    const gcm_config_table_t *t;
    size_t i;

    for (t = gcm_config_tables; t != NULL; t = t->next) {
        for (i = 0; i < t->count; i++) {
            const gcm_config_entry_t *e = &t->entries[i];
            const char *env = getenv(e->name);
            char dflt[64];

            gcm_config_set(e, gcm_config_default(e, dflt, sizeof(dflt)), 0);
            if (env != NULL) {
                gcm_config_set(e, env, 1);
            }
        }
    }
    gcm_log_level_current = gcm_util_config.log_level;
    gcm_log_open(gcm_util_config.log_file);

    if (gcm_util_config.print_config) {
        gcm_config_print(stdout);
    }
}

void gcm_config_print(FILE *fp)
{
    const gcm_config_table_t *t;
    size_t i;

    for (t = gcm_config_tables; t != NULL; t = t->next) {
        fprintf(fp, "# ---- %s/\n", t->layer);
        for (i = 0; i < t->count; i++) {
            const gcm_config_entry_t *e = &t->entries[i];
            char value[256];

            if (e->kind == GCM_CFG_CHOICE) {
                fprintf(fp, "# %s (%s)\n", e->doc, e->words);
            } else {
                fprintf(fp, "# %s\n", e->doc);
            }
            fprintf(fp, "%s=%s\n", e->name,
                    gcm_config_format(e, value, sizeof(value)));
        }
    }
}
