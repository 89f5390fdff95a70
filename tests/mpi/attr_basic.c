/*
 * tests/mpi/attr_basic.c: attribute caching on communicators (MPI-3.1
 * 6.7) as a program would use it: keyvals whose callbacks count their
 * calls, copies on MPI_Comm_dup by the flag the copy callback sets,
 * deletes on MPI_Comm_free / MPI_Comm_delete_attr / overwrite, freed
 * keyvals whose attributes live on, callbacks that fail, every
 * predefined attribute (the MPI-1 way too), the error classes of bad
 * arguments, and the delete callbacks MPI_Finalize runs on MPI_COMM_SELF.
 */
#include <mpi.h>

#include "mpitest.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int rank;

/* What a keyval's callbacks saw (its extra_state). */
typedef struct counters {
    int copy_flag;     /* what the copy callback answers */
    int copy_rc;       /* what the copy callback returns */
    int delete_rc;     /* what the delete callback returns */
    int copies;
    int deletes;
    intptr_t last_deleted;
    MPI_Comm last_comm;
    int last_keyval;
} counters_t;

/* Copies value v as v + 1 (so copies are told apart) when copy_flag. */
static int count_copy(MPI_Comm oldcomm, int keyval, void *extra, void *in,
                      void *out, int *flag)
{
    counters_t *c = extra;

    (void)oldcomm;
    c->copies++;
    c->last_keyval = keyval;
    if (c->copy_rc != MPI_SUCCESS) {
        return c->copy_rc;
    }
    *(void **)out = (void *)((intptr_t)in + 1);
    *flag         = c->copy_flag;
    return MPI_SUCCESS;
}

static int count_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    counters_t *c = extra;

    c->deletes++;
    c->last_deleted = (intptr_t)value;
    c->last_comm    = comm;
    c->last_keyval  = keyval;
    return c->delete_rc;
}

static intptr_t get_value(MPI_Comm comm, int keyval, int *flag)
{
    void *v = NULL;
    int rc;

    rc = MPI_Comm_get_attr(comm, keyval, &v, flag);
    CHECK(rc == MPI_SUCCESS, "MPI_Comm_get_attr(keyval %d) rc %d", keyval,
          rc);
    return (intptr_t)v;
}

static int errclass(int code)
{
    int cls = -1;

    MPI_Error_class(code, &cls);
    return cls;
}

static void test_predefined(int size)
{
    MPI_Comm dup;
    int *p = NULL, flag = 0, rc, i;
    static const int keys[] = { MPI_TAG_UB, MPI_HOST, MPI_IO,
                                MPI_WTIME_IS_GLOBAL };
    static const int world_only[] = { MPI_APPNUM, MPI_UNIVERSE_SIZE,
                                      MPI_LASTUSEDCODE };

    /* The MPI-1 way legacy codes ask for the tag bound. */
    rc = MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &p, &flag);
    CHECK(rc == MPI_SUCCESS && flag == 1, "MPI_Attr_get(MPI_TAG_UB)");
    if (flag) {
        CHECK(*p == 0x3fffffff, "MPI_TAG_UB is %d", *p);
        CHECK(*p >= 32767, "MPI_TAG_UB %d below the standard's minimum", *p);
    }
    p = NULL;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &p, &flag);
    CHECK(flag == 1 && p != NULL && *p == MPI_PROC_NULL, "MPI_HOST");
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &p, &flag);
    CHECK(flag == 1 && p != NULL && *p == MPI_ANY_SOURCE, "MPI_IO");
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &p, &flag);
    CHECK(flag == 1 && p != NULL && *p == 0, "MPI_WTIME_IS_GLOBAL");
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &p, &flag);
    CHECK(flag == 1 && p != NULL && *p == 0, "MPI_APPNUM");
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &p, &flag);
    /* The launcher's (gcrun --universe), else the host's cores: never
     * fewer than the job. */
    CHECK(flag == 1 && p != NULL && *p >= size, "MPI_UNIVERSE_SIZE %d",
          (flag && p) ? *p : -1);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &p, &flag);
    CHECK(flag == 1 && p != NULL && *p == MPI_ERR_LASTCODE,
          "MPI_LASTUSEDCODE");

    /* The first four on any communicator, the others on WORLD only. */
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    for (i = 0; i < 4; i++) {
        int *q = NULL, *w = NULL, fq = 0, fw = 0, fs = 0, *s = NULL;

        MPI_Comm_get_attr(MPI_COMM_WORLD, keys[i], &w, &fw);
        MPI_Comm_get_attr(dup, keys[i], &q, &fq);
        MPI_Comm_get_attr(MPI_COMM_SELF, keys[i], &s, &fs);
        CHECK(fw && fq && fs && *w == *q && *w == *s,
              "predefined key %d not the same on every communicator",
              keys[i]);
    }
    for (i = 0; i < 3; i++) {
        flag = 1;
        MPI_Comm_get_attr(dup, world_only[i], &p, &flag);
        CHECK(flag == 0, "key %d set on a dup", world_only[i]);
        flag = 1;
        MPI_Comm_get_attr(MPI_COMM_SELF, world_only[i], &p, &flag);
        CHECK(flag == 0, "key %d set on MPI_COMM_SELF", world_only[i]);
    }
    MPI_Comm_free(&dup);
}

static void test_callbacks(void)
{
    counters_t ccopy = { .copy_flag = 1 }, cnocopy = { .copy_flag = 0 };
    counters_t cdup = { 0 }, cnull = { 0 };
    int kcopy, knocopy, kdup, knull, flag;
    MPI_Comm c1, c2;
    intptr_t v;

    MPI_Comm_create_keyval(count_copy, count_delete, &kcopy, &ccopy);
    MPI_Comm_create_keyval(count_copy, count_delete, &knocopy, &cnocopy);
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, count_delete, &kdup, &cdup);
    /* The MPI-1 names make keyvals of the same kind. */
    MPI_Keyval_create(MPI_NULL_COPY_FN, count_delete, &knull, &cnull);
    CHECK(kcopy > MPI_LASTUSEDCODE && knocopy > MPI_LASTUSEDCODE &&
          kdup > MPI_LASTUSEDCODE && knull > MPI_LASTUSEDCODE,
          "user keyvals %d %d %d %d collide with predefined ones", kcopy,
          knocopy, kdup, knull);
    CHECK(kcopy != knocopy && kcopy != kdup && kcopy != knull &&
          knocopy != kdup && knocopy != knull && kdup != knull,
          "keyvals not distinct");

    MPI_Comm_dup(MPI_COMM_WORLD, &c1);
    get_value(c1, kcopy, &flag);
    CHECK(flag == 0, "attribute set on a fresh communicator");
    MPI_Comm_set_attr(c1, kcopy, (void *)100);
    MPI_Comm_set_attr(c1, knocopy, (void *)200);
    MPI_Comm_set_attr(c1, kdup, (void *)300);
    MPI_Attr_put(c1, knull, (void *)400);
    v = get_value(c1, kcopy, &flag);
    CHECK(flag == 1 && v == 100, "kcopy on c1: flag %d value %ld", flag,
          (long)v);
    v = get_value(c1, knull, &flag);
    CHECK(flag == 1 && v == 400, "knull on c1");
    /* Attributes are per communicator. */
    get_value(MPI_COMM_WORLD, kcopy, &flag);
    CHECK(flag == 0, "c1's attribute visible on MPI_COMM_WORLD");

    /* Overwriting runs the delete callback on the old value. */
    MPI_Comm_set_attr(c1, kcopy, (void *)101);
    CHECK(ccopy.deletes == 1 && ccopy.last_deleted == 100 &&
          ccopy.last_comm == c1 && ccopy.last_keyval == kcopy,
          "overwrite: deletes %d last %ld", ccopy.deletes,
          (long)ccopy.last_deleted);
    v = get_value(c1, kcopy, &flag);
    CHECK(flag == 1 && v == 101, "kcopy after overwrite");

    /* Dup: each copy callback runs once; copied per its flag. */
    MPI_Comm_dup(c1, &c2);
    CHECK(ccopy.copies == 1 && cnocopy.copies == 1,
          "copy callbacks ran %d and %d times", ccopy.copies,
          cnocopy.copies);
    CHECK(cdup.copies == 0 && cnull.copies == 0, "counters of predefined "
          "copy functions moved");
    v = get_value(c2, kcopy, &flag);
    CHECK(flag == 1 && v == 102, "kcopy on c2: flag %d value %ld", flag,
          (long)v);
    get_value(c2, knocopy, &flag);
    CHECK(flag == 0, "knocopy copied although flag was 0");
    v = get_value(c2, kdup, &flag);
    CHECK(flag == 1 && v == 300, "MPI_COMM_DUP_FN did not copy");
    get_value(c2, knull, &flag);
    CHECK(flag == 0, "MPI_NULL_COPY_FN copied");
    CHECK(ccopy.deletes == 1 && cnocopy.deletes == 0 && cdup.deletes == 0,
          "dup ran delete callbacks");
    /* The original is untouched. */
    v = get_value(c1, kcopy, &flag);
    CHECK(flag == 1 && v == 101, "kcopy on c1 after dup");

    /* Delete_attr runs the callback once; deleting nothing is fine. */
    MPI_Comm_delete_attr(c2, kdup);
    CHECK(cdup.deletes == 1 && cdup.last_deleted == 300 &&
          cdup.last_comm == c2, "delete_attr on c2");
    get_value(c2, kdup, &flag);
    CHECK(flag == 0, "kdup still on c2 after delete");
    CHECK(MPI_Comm_delete_attr(c2, kdup) == MPI_SUCCESS,
          "deleting an absent attribute");
    CHECK(MPI_Attr_delete(c2, knocopy) == MPI_SUCCESS,
          "MPI_Attr_delete of an absent attribute");
    CHECK(cdup.deletes == 1 && cnocopy.deletes == 0,
          "callback ran for an absent attribute");

    /* Free runs the delete callbacks of what is left. */
    MPI_Comm_free(&c2);
    CHECK(ccopy.deletes == 2 && ccopy.last_deleted == 102,
          "free(c2): kcopy deletes %d last %ld", ccopy.deletes,
          (long)ccopy.last_deleted);
    CHECK(cdup.deletes == 1 && cnocopy.deletes == 0 && cnull.deletes == 0,
          "free(c2) ran callbacks of attributes it did not have");
    MPI_Comm_free(&c1);
    CHECK(ccopy.deletes == 3 && ccopy.last_deleted == 101, "free(c1) kcopy");
    CHECK(cnocopy.deletes == 1 && cnocopy.last_deleted == 200,
          "free(c1) knocopy");
    CHECK(cdup.deletes == 2 && cdup.last_deleted == 300, "free(c1) kdup");
    CHECK(cnull.deletes == 1 && cnull.last_deleted == 400, "free(c1) knull");

    MPI_Comm_free_keyval(&kcopy);
    MPI_Comm_free_keyval(&knocopy);
    MPI_Comm_free_keyval(&kdup);
    MPI_Keyval_free(&knull);
    CHECK(kcopy == MPI_KEYVAL_INVALID && knull == MPI_KEYVAL_INVALID,
          "freed keyvals not reset to MPI_KEYVAL_INVALID");
}

/* A freed keyval: no new attribute, but those set with it live on
 * (read, copied by dup, deleted by MPI_Comm_delete_attr, MPI_Attr_delete
 * and MPI_Comm_free with its callbacks, MPI-3.1 6.7.2); the keyval goes
 * with its last attribute. */
static void test_freed_keyval(void)
{
    counters_t c = { .copy_flag = 1 };
    int k, saved, flag, rc, k2;
    MPI_Comm c1, c2, c3;
    intptr_t v;

    MPI_Comm_create_keyval(count_copy, count_delete, &k, &c);
    saved = k;
    MPI_Comm_dup(MPI_COMM_WORLD, &c1);
    MPI_Comm_set_attr(c1, k, (void *)7);
    MPI_Comm_free_keyval(&k);
    CHECK(k == MPI_KEYVAL_INVALID, "keyval not reset");
    CHECK(c.deletes == 0, "freeing the keyval deleted the attribute");

    /* A new keyval never reuses the number of one still referenced. */
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN,
                           &k2, NULL);
    CHECK(k2 != saved, "keyval number %d reused while in use", saved);

    rc = MPI_Comm_set_attr(c1, saved, (void *)8);
    CHECK(errclass(rc) == MPI_ERR_KEYVAL, "set with a freed keyval: %d", rc);
    v = get_value(c1, saved, &flag);
    CHECK(flag == 1 && v == 7, "get with a freed keyval: flag %d value %d",
          flag, (int)v);

    MPI_Comm_dup(c1, &c2);
    CHECK(c.copies == 1, "copy callback of a freed keyval did not run");
    MPI_Comm_dup(c2, &c3);
    CHECK(c.copies == 2, "copy callback of a freed keyval did not run");
    rc = MPI_Comm_delete_attr(c1, saved);
    CHECK(rc == MPI_SUCCESS && c.deletes == 1 && c.last_deleted == 7 &&
          c.last_keyval == saved && c.last_comm == c1,
          "MPI_Comm_delete_attr with a freed keyval: rc %d, %d deletes", rc,
          c.deletes);
    v = get_value(c1, saved, &flag);
    CHECK(flag == 0, "the deleted attribute is still there");
    rc = MPI_Attr_delete(c2, saved);
    CHECK(rc == MPI_SUCCESS && c.deletes == 2 && c.last_deleted == 8,
          "MPI_Attr_delete with a freed keyval: rc %d, %d deletes", rc,
          c.deletes);
    MPI_Comm_free(&c1);
    MPI_Comm_free(&c2);
    CHECK(c.deletes == 2, "freeing communicators without the attribute "
          "ran the delete callback: %d", c.deletes);
    /* The last attribute goes with c3: the keyval with it. */
    MPI_Comm_free(&c3);
    CHECK(c.deletes == 3 && c.last_deleted == 9, "delete of the copy: %d",
          c.deletes);
    rc = MPI_Comm_get_attr(MPI_COMM_WORLD, saved, &v, &flag);
    CHECK(errclass(rc) == MPI_ERR_KEYVAL,
          "a freed keyval outlived its attributes: %d", rc);
    MPI_Comm_free_keyval(&k2);
}

/* Callbacks that fail make the call that ran them fail with their code. */
static void test_failing_callbacks(void)
{
    counters_t cok = { .copy_flag = 1 };
    counters_t cbad = { .copy_flag = 1, .copy_rc = MPI_ERR_INTERN };
    counters_t cdel = { .delete_rc = MPI_ERR_OTHER };
    MPI_Comm c1, c2 = MPI_COMM_NULL;
    int kok, kbad, kdel, rc, flag;
    intptr_t v;

    MPI_Comm_create_keyval(count_copy, count_delete, &kok, &cok);
    MPI_Comm_create_keyval(count_copy, count_delete, &kbad, &cbad);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_delete, &kdel,
                           &cdel);
    MPI_Comm_dup(MPI_COMM_WORLD, &c1);   /* inherits MPI_ERRORS_RETURN */
    MPI_Comm_set_attr(c1, kok, (void *)1);
    MPI_Comm_set_attr(c1, kbad, (void *)2);

    rc = MPI_Comm_dup(c1, &c2);
    CHECK(rc != MPI_SUCCESS && errclass(rc) == MPI_ERR_INTERN,
          "dup with a failing copy callback returned %d", rc);
    CHECK(cok.copies == 1 && cbad.copies == 1, "copies %d %d", cok.copies,
          cbad.copies);
    /* What was copied before the failure was deleted again. */
    CHECK(cok.deletes == 1 && cok.last_deleted == 2,
          "partial copy not undone: deletes %d", cok.deletes);
    CHECK(cbad.deletes == 0, "failed copy deleted");
    MPI_Comm_delete_attr(c1, kbad);
    CHECK(cbad.deletes == 1, "delete kbad");

    /* A failing delete callback: the attribute stays. */
    MPI_Comm_set_attr(c1, kdel, (void *)5);
    rc = MPI_Comm_delete_attr(c1, kdel);
    CHECK(errclass(rc) == MPI_ERR_OTHER, "failing delete returned %d", rc);
    v = get_value(c1, kdel, &flag);
    CHECK(flag == 1 && v == 5, "attribute gone after a failed delete");
    rc = MPI_Comm_set_attr(c1, kdel, (void *)6);
    CHECK(errclass(rc) == MPI_ERR_OTHER, "overwrite past a failing delete "
          "returned %d", rc);
    v = get_value(c1, kdel, &flag);
    CHECK(flag == 1 && v == 5, "value replaced although delete failed");
    rc = MPI_Comm_free(&c1);
    CHECK(errclass(rc) == MPI_ERR_OTHER && c1 != MPI_COMM_NULL,
          "free with a failing delete callback returned %d", rc);
    cdel.delete_rc = MPI_SUCCESS;
    rc = MPI_Comm_free(&c1);
    CHECK(rc == MPI_SUCCESS && c1 == MPI_COMM_NULL, "free after the fix");
    CHECK(cdel.last_deleted == 5, "last delete saw %ld",
          (long)cdel.last_deleted);

    MPI_Comm_free_keyval(&kok);
    MPI_Comm_free_keyval(&kbad);
    MPI_Comm_free_keyval(&kdel);
}

static void test_errors(void)
{
    int k, saved, rc, flag, tag_ub = MPI_TAG_UB;
    void *v;

    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN,
                           &k, NULL);

    rc = MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, &rc);
    CHECK(errclass(rc) == MPI_ERR_KEYVAL, "set MPI_TAG_UB: %d", rc);
    rc = MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE);
    CHECK(errclass(rc) == MPI_ERR_KEYVAL, "delete MPI_UNIVERSE_SIZE: %d",
          rc);
    rc = MPI_Attr_put(MPI_COMM_WORLD, MPI_HOST, &rc);
    CHECK(errclass(rc) == MPI_ERR_KEYVAL, "Attr_put MPI_HOST: %d", rc);
    rc = MPI_Comm_free_keyval(&tag_ub);
    CHECK(errclass(rc) == MPI_ERR_KEYVAL && tag_ub == MPI_TAG_UB,
          "free MPI_TAG_UB: %d", rc);
    rc = MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &v, &flag);
    CHECK(errclass(rc) == MPI_ERR_KEYVAL, "get MPI_KEYVAL_INVALID: %d", rc);
    rc = MPI_Comm_get_attr(MPI_COMM_WORLD, 12, &v, &flag);
    CHECK(errclass(rc) == MPI_ERR_KEYVAL, "get keyval 12: %d", rc);
    rc = MPI_Comm_set_attr(MPI_COMM_WORLD, k + 1000, &rc);
    CHECK(errclass(rc) == MPI_ERR_KEYVAL, "set a never-made keyval: %d", rc);

    rc = MPI_Comm_get_attr(MPI_COMM_NULL, k, &v, &flag);
    CHECK(errclass(rc) == MPI_ERR_COMM, "get on MPI_COMM_NULL: %d", rc);
    rc = MPI_Comm_set_attr(MPI_COMM_NULL, k, &rc);
    CHECK(errclass(rc) == MPI_ERR_COMM, "set on MPI_COMM_NULL: %d", rc);
    rc = MPI_Comm_delete_attr(MPI_COMM_NULL, k);
    CHECK(errclass(rc) == MPI_ERR_COMM, "delete on MPI_COMM_NULL: %d", rc);
    rc = MPI_Attr_get(MPI_COMM_NULL, MPI_TAG_UB, &v, &flag);
    CHECK(errclass(rc) == MPI_ERR_COMM, "Attr_get on MPI_COMM_NULL: %d", rc);

    rc = MPI_Comm_get_attr(MPI_COMM_WORLD, k, &v, NULL);
    CHECK(errclass(rc) == MPI_ERR_ARG, "NULL flag: %d", rc);
    rc = MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, NULL, &flag);
    CHECK(errclass(rc) == MPI_ERR_ARG, "NULL attribute_val: %d", rc);
    rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN,
                                MPI_COMM_NULL_DELETE_FN, NULL, NULL);
    CHECK(errclass(rc) == MPI_ERR_ARG, "NULL keyval out: %d", rc);
    rc = MPI_Comm_free_keyval(NULL);
    CHECK(errclass(rc) == MPI_ERR_ARG, "free NULL: %d", rc);

    saved = k;
    CHECK(MPI_Comm_free_keyval(&k) == MPI_SUCCESS, "free keyval");
    rc = MPI_Comm_free_keyval(&saved);
    CHECK(errclass(rc) == MPI_ERR_KEYVAL, "double free of a keyval: %d", rc);
    rc = MPI_Comm_free_keyval(&k);
    CHECK(errclass(rc) == MPI_ERR_KEYVAL, "free MPI_KEYVAL_INVALID: %d", rc);
}

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first, newest first,
 * while MPI still works (libraries hook their cleanup there, MPI-3.1
 * 8.7.1): the order of the callbacks is recorded, each one checks that
 * MPI is not finalized and that a collective on the world still runs,
 * and an attribute left on another communicator is deleted after them. */
#define NSELF 4
static int finalize_order[NSELF + 1];
static int finalize_deletes;
static int finalize_saw_finalized = -1;
static int finalize_comm_ok = 1;

static int self_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    int one = 1, sum = 0, size = 0;

    (void)keyval;
    (void)extra;
    if (finalize_deletes < NSELF + 1) {
        finalize_order[finalize_deletes] = (int)(intptr_t)value;
    }
    finalize_deletes++;
    if (comm == MPI_COMM_SELF) {
        MPI_Finalized(&finalize_saw_finalized);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        if (MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) !=
            MPI_SUCCESS || sum != size) {
            finalize_comm_ok = 0;
        }
    }
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int size, k, ks[NSELF], i, ok;
    MPI_Comm left;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    test_predefined(size);
    test_callbacks();
    test_freed_keyval();
    test_failing_callbacks();
    test_errors();

    /* Left on a communicator the program does not free: value 100. */
    MPI_Comm_dup(MPI_COMM_WORLD, &left);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &k, NULL);
    MPI_Comm_set_attr(left, k, (void *)100);
    MPI_Comm_free_keyval(&k);
    /* On MPI_COMM_SELF, values 1..NSELF in the order set; the second is
     * set twice (its place is that of its first setting). */
    for (i = 1; i <= NSELF; i++) {
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &ks[i - 1],
                               NULL);
        MPI_Comm_set_attr(MPI_COMM_SELF, ks[i - 1], (void *)(intptr_t)i);
    }
    MPI_Comm_set_attr(MPI_COMM_SELF, ks[1], (void *)(intptr_t)2);
    finalize_deletes = 0;
    for (i = 0; i < NSELF; i++) {
        MPI_Comm_free_keyval(&ks[i]);
    }

    MPI_Finalize();
    ok = (finalize_deletes == NSELF + 1) && (finalize_saw_finalized == 0) &&
         finalize_comm_ok;
    for (i = 0; i < NSELF; i++) {
        ok = ok && (finalize_order[i] == NSELF - i);
    }
    ok = ok && (finalize_order[NSELF] == 100);
    if (!ok) {
        printf("FAIL: MPI_Finalize ran %d delete callbacks (want %d), in "
               "the order", finalize_deletes, NSELF + 1);
        for (i = 0; (i < finalize_deletes) && (i < NSELF + 1); i++) {
            printf(" %d", finalize_order[i]);
        }
        printf(" (want %d..1 then 100), finalized %d, a collective in them "
               "%s (rank %d)\n", NSELF, finalize_saw_finalized,
               finalize_comm_ok ? "worked" : "failed", rank);
        return 1;
    }
    return (mpitest_failures == 0) ? 0 : 1;
}
