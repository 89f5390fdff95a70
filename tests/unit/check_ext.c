/*
 * tests/unit/check_ext.c: the external communicators' parser, expression
 * evaluator and evaluation in one process, without MPI: the grammar and
 * its errors, the seed's listings parsed from their files and evaluated
 * for given processor names, and prefixes of a good file, none of which
 * may crash the parser.
 */
#include "config.h"

#include "lco/lco_ext.h"
#include "check_main.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char why[GCM_EXT_ERRLEN];

/* ---- expressions ------------------------------------------------------- */

static int64_t eval_vars(const char *text, const int64_t vars[])
{
    gcm_lco_expr_t *e = gcm_lco_expr_compile(text, why, sizeof(why));
    int64_t v = 0;

    ck_assert_msg(e != NULL, "%s: %s", text, why);
    ck_assert_msg(gcm_lco_expr_eval(e, vars, &v, why, sizeof(why)) == 0,
                  "%s: %s", text, why);
    gcm_lco_expr_free(e);
    return v;
}

static int64_t eval(const char *text)
{
    static const int64_t none[GCM_EXT_NVARS];

    return eval_vars(text, none);
}

/* The compile error of text, which must not compile. */
static const char *compile_error(const char *text)
{
    gcm_lco_expr_t *e = gcm_lco_expr_compile(text, why, sizeof(why));

    ck_assert_msg(e == NULL, "\"%s\" compiled", text);
    return why;
}

/* The evaluation error of text, which compiles. */
static const char *eval_error(const char *text)
{
    static const int64_t none[GCM_EXT_NVARS];
    gcm_lco_expr_t *e = gcm_lco_expr_compile(text, why, sizeof(why));
    int64_t v;
    int rc;

    ck_assert_msg(e != NULL, "%s: %s", text, why);
    rc = gcm_lco_expr_eval(e, none, &v, why, sizeof(why));
    gcm_lco_expr_free(e);
    ck_assert_msg(rc != 0, "\"%s\" gave %lld", text, (long long)v);
    return why;
}

START_TEST(test_ext_expr_values)
{
    int64_t vars[GCM_EXT_NVARS] = { 0 };

    ck_assert_int_eq(eval("1+2*3"), 7);
    ck_assert_int_eq(eval("(1+2)*3"), 9);
    ck_assert_int_eq(eval("10-4-3"), 3);
    ck_assert_int_eq(eval("7/2"), 3);
    ck_assert_int_eq(eval("-7/2"), -3);
    ck_assert_int_eq(eval("-7%3"), -1);
    ck_assert_int_eq(eval("--5"), 5);
    ck_assert_int_eq(eval(" + 5 "), 5);
    ck_assert_int_eq(eval("2<3"), 1);
    ck_assert_int_eq(eval("3<=2"), 0);
    ck_assert_int_eq(eval("3>2>1"), 0);    /* (3 > 2) > 1 */
    ck_assert_int_eq(eval("1+1==2"), 1);
    ck_assert_int_eq(eval("2!=2"), 0);
    ck_assert_int_eq(eval("4>=4"), 1);
    ck_assert_int_eq(eval("9223372036854775807"), INT64_MAX);
    vars[GCM_EXT_VAR_NAMERANK]   = 3;
    vars[GCM_EXT_VAR_COMMSIZE]   = 4;
    vars[GCM_EXT_VAR_COMMRANK]   = 2;
    vars[GCM_EXT_VAR_WORLDRANK]  = 6;
    vars[GCM_EXT_VAR_WORLDSIZE]  = 8;
    vars[GCM_EXT_VAR_PARENTRANK] = 6;
    vars[GCM_EXT_VAR_PARENTSIZE] = 8;
    /* The seed's expressions. */
    ck_assert_int_eq(eval_vars("(NAMERANK*2)%(COMMSIZE-1)", vars), 0);
    ck_assert_int_eq(eval_vars("(COMMRANK-1)*(COMMRANK>0)", vars), 1);
    ck_assert_int_eq(eval_vars("WORLDSIZE-1-WORLDRANK", vars), 1);
    ck_assert_int_eq(eval_vars("PARENTRANK*PARENTSIZE+COMMRANK", vars), 50);
}
END_TEST

START_TEST(test_ext_expr_errors)
{
    char deep[200];
    int i;

    ck_assert(strstr(compile_error(""), "empty") != NULL);
    ck_assert(strstr(compile_error("   "), "empty") != NULL);
    ck_assert(strstr(compile_error("1+"), "expected a number") != NULL);
    ck_assert(strstr(compile_error("(1+2"), "expected ')'") != NULL);
    ck_assert(strstr(compile_error("1+2)"), "unexpected ')'") != NULL);
    ck_assert(strstr(compile_error("1 2"), "unexpected '2'") != NULL);
    ck_assert(strstr(compile_error("NODERANK"), "unknown variable "
                     "'NODERANK'") != NULL);
    ck_assert(strstr(compile_error("namerank"), "unknown variable") != NULL);
    ck_assert(strstr(compile_error("1 = 2"), "unexpected '='") != NULL);
    ck_assert(strstr(compile_error("1 ! 2"), "unexpected '!'") != NULL);
    ck_assert(strstr(compile_error("99999999999999999999"),
                     "larger than") != NULL);
    for (i = 0; i < 100; i++) {
        deep[i] = '(';
    }
    deep[100] = '1';
    deep[101] = '\0';
    ck_assert(strstr(compile_error(deep), "nests deeper") != NULL);
    for (i = 0; i < 150; i++) {
        deep[i] = '-';
    }
    deep[150] = '1';
    deep[151] = '\0';
    ck_assert(strstr(compile_error(deep), "nests deeper") != NULL);

    ck_assert(strstr(eval_error("1/0"), "division by zero (1 / 0)") != NULL);
    ck_assert(strstr(eval_error("5%(2-2)"), "remainder by zero") != NULL);
    ck_assert(strstr(eval_error("9223372036854775807+1"), "overflow") !=
              NULL);
    ck_assert(strstr(eval_error("(0-9223372036854775807-1)/(0-1)"),
                     "overflow") != NULL);
    ck_assert(strstr(eval_error("-(0-9223372036854775807-1)"), "overflow") !=
              NULL);
    ck_assert(strstr(eval_error("4294967296*4294967296"), "overflow") !=
              NULL);
}
END_TEST

/* ---- files ------------------------------------------------------------- */

static char *read_file(const char *rel, size_t *len_p)
{
    const char *top = getenv("top_srcdir");
    char path[1024];
    FILE *f;
    char *buf;
    long n;

    snprintf(path, sizeof(path), "%s/%s", (top != NULL) ? top : ".", rel);
    f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    ck_assert(fread(buf, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    *len_p = (size_t)n;
    return buf;
}

static gcm_lco_ext_t *parse_file(const char *rel)
{
    gcm_lco_ext_t *ext;
    size_t len;
    char *buf = read_file(rel, &len);

    ck_assert_msg(gcm_lco_ext_parse(buf, len, rel, &ext, why, sizeof(why)) ==
                  GCM_OK, "%s: %s", rel, why);
    free(buf);
    return ext;
}

static const char *const seed8[] = {
    "foo:00", "foo:01", "foo:02", "foo:03",
    "bar:00", "bar:01", "bar:02", "bar:03"
};

START_TEST(test_ext_listing1)
{
    gcm_lco_ext_t *ext = parse_file("tests/external/listings/listing1.xml");
    const gcm_ext_def_t *ocean, *atmos, *inter;
    const gcm_ext_kv_t **kv;
    int procs[8], n, i;

    ck_assert_ptr_null(ext->error);
    ck_assert_int_eq(ext->ndefs, 3);
    ocean = gcm_lco_ext_find(ext, "MPI_COMM_OCEAN");
    atmos = gcm_lco_ext_find(ext, "MPI_COMM_ATMOS");
    inter = gcm_lco_ext_find(ext, "MPI_COMM_INTER");
    ck_assert(ocean != NULL && atmos != NULL && inter != NULL);
    ck_assert_ptr_null(gcm_lco_ext_find(ext, "MPI_COMM_NONE"));
    ck_assert_int_eq(inter->kind, GCM_EXT_DEF_INTER);
    /* <first> MPI_COMM_OCEAN </first>: blanks trimmed. */
    ck_assert_str_eq(inter->first, "MPI_COMM_OCEAN");
    ck_assert_str_eq(inter->second, "MPI_COMM_ATMOS");

    ck_assert_int_eq(gcm_lco_ext_members(ext, ocean, 8, seed8, procs, &n,
                                         why, sizeof(why)), 0);
    ck_assert_int_eq(n, 4);
    for (i = 0; i < 4; i++) {
        ck_assert_int_eq(procs[i], i);
    }
    /* The regex is anchored: "foo" is not "food:00"'s cluster. */
    ck_assert(!gcm_lco_ext_is_member(ocean, "food:00"));
    ck_assert(!gcm_lco_ext_is_member(ocean, "xfoo:00"));
    ck_assert(gcm_lco_ext_is_member(ocean, "foo:99"));
    ck_assert(gcm_lco_ext_is_member(ocean, "foo:a:b") == 0);
    ck_assert(gcm_lco_ext_is_member(atmos, "bar:02"));
    ck_assert(!gcm_lco_ext_is_member(atmos, "bar:04"));

    ck_assert_int_eq(gcm_lco_ext_scoped(atmos, "bar:02", 0, &kv, &n), 0);
    ck_assert_int_eq(n, 2);
    ck_assert_str_eq(kv[0]->key, "PRESSURE");
    ck_assert_str_eq(kv[1]->key, "CPU_SPEED");
    ck_assert_str_eq(kv[1]->value, "1.8");
    free(kv);
    ck_assert_int_eq(gcm_lco_ext_scoped(ocean, "foo:01", 0, &kv, &n), 0);
    ck_assert_int_eq(n, 2);
    ck_assert_str_eq(kv[0]->value, "3.8km");
    ck_assert_str_eq(kv[1]->value, "2.2");
    free(kv);
    gcm_lco_ext_free(ext);
}
END_TEST

START_TEST(test_ext_listing3)
{
    gcm_lco_ext_t *ext = parse_file("tests/external/listings/listing3.xml");
    const gcm_ext_def_t *def;
    static const char *const shuffled[] = {
        "bar:03", "foo:02", "bar:00", "foo:00",
        "foo:03", "bar:02", "foo:01", "bar:01"
    };
    int procs[8], n, k;

    /* The seed's expression: refused, naming the two processes. */
    def = gcm_lco_ext_find(ext, "MPI_COMM_OCEAN");
    ck_assert_int_eq(gcm_lco_ext_members(ext, def, 8, seed8, procs, &n, why,
                                         sizeof(why)), -1);
    ck_assert_msg(strstr(why, "listing3.xml:10: the order of MPI_COMM_OCEAN "
                         "is not a permutation of 0..3: processes 0 "
                         "(foo:00) and 3 (foo:03) both get 0") != NULL,
                  "%s", why);
    /* With two processes too (0 and 1 both give 0 % 1). */
    ck_assert_int_eq(gcm_lco_ext_members(ext, def, 2, seed8, procs, &n, why,
                                         sizeof(why)), -1);
    /* reorder="k": new rank k for the node. */
    def = gcm_lco_ext_find(ext, "MPI_COMM_ATMOS");
    ck_assert_int_eq(gcm_lco_ext_members(ext, def, 8, shuffled, procs, &n,
                                         why, sizeof(why)), 0);
    ck_assert_int_eq(n, 4);
    ck_assert_str_eq(shuffled[procs[0]], "bar:00");
    ck_assert_str_eq(shuffled[procs[1]], "bar:01");
    ck_assert_str_eq(shuffled[procs[2]], "bar:03");
    ck_assert_str_eq(shuffled[procs[3]], "bar:02");
    /* The corrected form: new rank of NAMERANK i is 2i mod 3, and 3. */
    def = gcm_lco_ext_find(ext, "MPI_COMM_OCEAN_FIXED");
    ck_assert_int_eq(gcm_lco_ext_members(ext, def, 8, shuffled, procs, &n,
                                         why, sizeof(why)), 0);
    ck_assert_int_eq(n, 4);
    ck_assert_str_eq(shuffled[procs[0]], "foo:00");
    ck_assert_str_eq(shuffled[procs[2]], "foo:01");
    ck_assert_str_eq(shuffled[procs[1]], "foo:02");
    ck_assert_str_eq(shuffled[procs[3]], "foo:03");
    for (k = 0; k < 4; k++) {
        ck_assert(procs[k] >= 0 && procs[k] < 8);
    }
    gcm_lco_ext_free(ext);
}
END_TEST

START_TEST(test_ext_listing4)
{
    gcm_lco_ext_t *ext = parse_file("tests/external/listings/listing4.xml");
    const gcm_ext_def_t *def;
    int procs[8], *index, *edges, n, nedges;

    def = gcm_lco_ext_find(ext, "MPI_COMM_ATMOS");
    ck_assert(def->vtopo.present && def->vtopo.reorder);
    ck_assert_int_eq(gcm_lco_ext_members(ext, def, 8, seed8, procs, &n, why,
                                         sizeof(why)), 0);
    ck_assert_int_eq(gcm_lco_ext_vtopo(ext, def, 8, seed8, n, procs, &index,
                                       &edges, &nedges, why, sizeof(why)),
                     0);
    /* A chain 0-1-2-3: the self-loop of rank 0 is dropped. */
    ck_assert_int_eq(nedges, 6);
    ck_assert_int_eq(index[0], 1);
    ck_assert_int_eq(index[1], 3);
    ck_assert_int_eq(index[2], 5);
    ck_assert_int_eq(index[3], 6);
    ck_assert_int_eq(edges[0], 1);
    ck_assert_int_eq(edges[1], 0);
    ck_assert_int_eq(edges[2], 2);
    free(index);
    free(edges);
    /* Rank edges up to 3: three foo processes are too few. */
    def = gcm_lco_ext_find(ext, "MPI_COMM_OCEAN");
    ck_assert_int_eq(gcm_lco_ext_members(ext, def, 3, seed8, procs, &n, why,
                                         sizeof(why)), 0);
    ck_assert_int_eq(gcm_lco_ext_vtopo(ext, def, 3, seed8, n, procs, &index,
                                       &edges, &nedges, why, sizeof(why)),
                     -1);
    ck_assert_msg(strstr(why, "listing4.xml:8: edge end rank 3 is not a "
                         "rank of MPI_COMM_OCEAN (its size is 3)") != NULL,
                  "%s", why);
    gcm_lco_ext_free(ext);
}
END_TEST

START_TEST(test_ext_listing5)
{
    gcm_lco_ext_t *ext = parse_file("tests/external/listings/listing5.xml");
    const gcm_ext_def_t *def = gcm_lco_ext_find(ext, "MPI_COMM_REMAP");

    ck_assert(def != NULL && def->error == NULL);
    ck_assert(def->ptopo.present);
    ck_assert_int_eq(def->ptopo.nclusters, 2);
    ck_assert_int_eq(def->ptopo.nedges, 2);
    ck_assert_str_eq(def->ptopo.edges[0].first.node, "foo:03");
    ck_assert_str_eq(def->ptopo.edges[1].second.node, "bar:01");
    ck_assert(def->ptopo.timeout > 0.99 && def->ptopo.timeout < 1.01);
    ck_assert(gcm_lco_ext_is_member(def, "anything:00"));
    gcm_lco_ext_free(ext);
}
END_TEST

START_TEST(test_ext_not_well_formed)
{
    static const char text[] = "<mpixternal>\n<comm name=\"A\">\n"
                               "</mpixternal>\n";
    gcm_lco_ext_t *ext;

    ck_assert_int_eq(gcm_lco_ext_parse(text, sizeof(text) - 1, "mem.xml",
                                       &ext, why, sizeof(why)),
                     GCM_ERR_INVALID_PARAM);
    ck_assert_ptr_null(ext);
    ck_assert_msg(strncmp(why, "mem.xml:3: ", 11) == 0, "%s", why);
}
END_TEST

/* Every prefix of a good file, and the file with one byte changed at
 * many places: the parser answers each (a file, or an error) and never
 * crashes or leaks (the sanitizer build checks). */
START_TEST(test_ext_prefixes)
{
    size_t len, cut;
    char *buf = read_file("tests/external/listings/listing4.xml", &len);
    gcm_lco_ext_t *ext;
    gcm_status_t status;

    for (cut = 0; cut <= len; cut += 5) {
        status = gcm_lco_ext_parse(buf, cut, "cut.xml", &ext, why,
                                   sizeof(why));
        ck_assert(status == GCM_OK || status == GCM_ERR_INVALID_PARAM);
        ck_assert((status == GCM_OK) == (ext != NULL));
        gcm_lco_ext_free(ext);
    }
    for (cut = 0; cut < len; cut += 11) {
        char saved = buf[cut];

        buf[cut] = (char)(saved ^ 0x5a);
        status = gcm_lco_ext_parse(buf, len, "flip.xml", &ext, why,
                                   sizeof(why));
        ck_assert(status == GCM_OK || status == GCM_ERR_INVALID_PARAM);
        gcm_lco_ext_free(ext);
        buf[cut] = saved;
    }
    free(buf);
}
END_TEST

static Suite *make_suite(void)
{
    const TTest *tests[] = {test_ext_expr_values, test_ext_expr_errors,
        test_ext_listing1, test_ext_listing3, test_ext_listing4,
        test_ext_listing5, test_ext_not_well_formed, test_ext_prefixes, NULL};
    const struct gcm_check_case cases[] = {
        {"ext", .tests = tests, .timeout = 120},
        {0},
    };

    return gcm_check_suite("ext", cases);
}
