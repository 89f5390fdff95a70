/*
 * tests/mpi/attr_type.c: attribute caching on datatypes (MPI-3.1 6.7.4)
 * as a program would use it: type keyvals whose callbacks count their
 * calls, copies on MPI_Type_dup (by the copy callback's flag, and by
 * MPI_TYPE_DUP_FN / MPI_TYPE_NULL_COPY_FN), deletes on MPI_Type_free,
 * MPI_Type_delete_attr and overwrite, a failing delete callback that
 * keeps the type, attributes on a predefined type, a handle handed out
 * once more by MPI_Type_get_contents, and the errors of keyvals of
 * another kind and of freed types.
 */
#include <mpi.h>

#include "mpitest.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct counters {
    int copy_flag;
    int delete_rc;
    int copies;
    int deletes;
    intptr_t last_deleted;
    MPI_Datatype last_type;
} counters_t;

static int count_copy(MPI_Datatype oldtype, int keyval, void *extra,
                      void *in, void *out, int *flag)
{
    counters_t *c = extra;

    (void)oldtype;
    (void)keyval;
    c->copies++;
    *(void **)out = (void *)((intptr_t)in + 1);
    *flag         = c->copy_flag;
    return MPI_SUCCESS;
}

static int count_delete(MPI_Datatype type, int keyval, void *value,
                        void *extra)
{
    counters_t *c = extra;

    (void)keyval;
    c->deletes++;
    c->last_deleted = (intptr_t)value;
    c->last_type    = type;
    return c->delete_rc;
}

static void *get(MPI_Datatype t, int keyval, int *flag)
{
    void *v = NULL;
    int rc = MPI_Type_get_attr(t, keyval, &v, flag);

    CHECK(rc == MPI_SUCCESS, "MPI_Type_get_attr returned %d", rc);
    return v;
}

int main(int argc, char **argv)
{
    counters_t c = { 1, MPI_SUCCESS, 0, 0, 0, MPI_DATATYPE_NULL };
    counters_t n = { 0, MPI_SUCCESS, 0, 0, 0, MPI_DATATYPE_NULL };
    MPI_Datatype vec, dup, dup2, stale, inner, got[1];
    int kv, kv_null, kv_dup, comm_kv, flag, rc, ints[3], ni, na, nd, comb;
    MPI_Aint addrs[1];
    void *v;

    mpitest_init(&argc, &argv, "attr_type", 1);

    rc = MPI_Type_create_keyval(count_copy, count_delete, &kv, &c);
    CHECK(rc == MPI_SUCCESS, "MPI_Type_create_keyval returned %d", rc);
    MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, count_delete, &kv_null,
                           &n);
    MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN,
                           &kv_dup, NULL);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN,
                           &comm_kv, NULL);

    MPI_Type_vector(3, 2, 4, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    v = get(vec, kv, &flag);
    CHECK(flag == 0, "a new type has an attribute");
    MPI_Type_set_attr(vec, kv, (void *)(intptr_t)10);
    MPI_Type_set_attr(vec, kv_null, (void *)(intptr_t)20);
    MPI_Type_set_attr(vec, kv_dup, (void *)(intptr_t)30);
    v = get(vec, kv, &flag);
    CHECK(flag == 1 && (intptr_t)v == 10, "got %d, %ld", flag, (long)(intptr_t)v);

    /* Overwriting deletes the old value first. */
    MPI_Type_set_attr(vec, kv, (void *)(intptr_t)11);
    CHECK(c.deletes == 1 && c.last_deleted == 10 && c.last_type == vec,
          "overwrite: %d deletes, last %ld", c.deletes,
          (long)c.last_deleted);

    /* MPI_Type_dup copies by the callbacks. */
    MPI_Type_dup(vec, &dup);
    CHECK(c.copies == 1, "dup: %d copies", c.copies);
    v = get(dup, kv, &flag);
    CHECK(flag == 1 && (intptr_t)v == 12, "dup's kv: %d %ld", flag,
          (long)(intptr_t)v);
    v = get(dup, kv_null, &flag);
    CHECK(flag == 0, "MPI_TYPE_NULL_COPY_FN copied");
    v = get(dup, kv_dup, &flag);
    CHECK(flag == 1 && (intptr_t)v == 30, "MPI_TYPE_DUP_FN: %d %ld", flag,
          (long)(intptr_t)v);
    c.copy_flag = 0;
    MPI_Type_dup(vec, &dup2);
    v = get(dup2, kv, &flag);
    CHECK(flag == 0, "a copy callback's flag 0 still copied");
    MPI_Type_free(&dup2);

    /* MPI_Type_delete_attr runs the delete callback. */
    rc = MPI_Type_delete_attr(dup, kv);
    CHECK(rc == MPI_SUCCESS && c.deletes == 2 && c.last_deleted == 12,
          "delete_attr: rc %d, %d deletes", rc, c.deletes);
    v = get(dup, kv, &flag);
    CHECK(flag == 0, "deleted attribute still there");

    /* A failing delete callback keeps the type. */
    MPI_Type_set_attr(dup, kv, (void *)(intptr_t)40);
    c.delete_rc = MPI_ERR_OTHER;
    stale = dup;
    rc = MPI_Type_free(&dup);
    CHECK(rc != MPI_SUCCESS && dup == stale,
          "free with a failing delete callback: rc %d", rc);
    v = get(stale, kv, &flag);
    CHECK(flag == 1 && (intptr_t)v == 40, "the attribute went: %d", flag);
    c.delete_rc = MPI_SUCCESS;
    rc = MPI_Type_free(&dup);
    CHECK(rc == MPI_SUCCESS && c.last_deleted == 40, "free: rc %d", rc);

    /* The free of the last handle deletes every attribute. */
    c.deletes = 0;
    n.deletes = 0;
    stale = vec;
    MPI_Type_free(&vec);
    CHECK(c.deletes == 1 && c.last_deleted == 11 && n.deletes == 1 &&
          n.last_deleted == 20, "free: %d and %d deletes", c.deletes,
          n.deletes);
    rc = MPI_Type_get_attr(stale, kv, &v, &flag);
    CHECK(mpitest_class(rc) == MPI_ERR_TYPE, "freed type: class %d",
          mpitest_class(rc));
    rc = MPI_Type_set_attr(stale, kv, NULL);
    CHECK(mpitest_class(rc) == MPI_ERR_TYPE, "freed type: class %d",
          mpitest_class(rc));

    /* A handle MPI_Type_get_contents gave out once more: its free is not
     * the last one, the attributes stay. */
    MPI_Type_contiguous(2, MPI_INT, &inner);
    MPI_Type_vector(2, 1, 3, inner, &vec);
    MPI_Type_set_attr(inner, kv, (void *)(intptr_t)50);
    c.deletes = 0;
    MPI_Type_get_envelope(vec, &ni, &na, &nd, &comb);
    MPI_Type_get_contents(vec, 3, 0, 1, ints, addrs, got);
    CHECK(got[0] == inner, "contents gave another handle");
    MPI_Type_free(&got[0]);
    v = get(inner, kv, &flag);
    CHECK(flag == 1 && c.deletes == 0, "attribute gone with a handle left");
    MPI_Type_free(&inner);
    CHECK(c.deletes == 1 && c.last_deleted == 50, "last free: %d deletes",
          c.deletes);
    MPI_Type_free(&vec);

    /* A predefined type holds attributes. */
    MPI_Type_set_attr(MPI_DOUBLE, kv_dup, (void *)(intptr_t)60);
    v = get(MPI_DOUBLE, kv_dup, &flag);
    CHECK(flag == 1 && (intptr_t)v == 60, "MPI_DOUBLE: %d", flag);
    v = get(MPI_INT, kv_dup, &flag);
    CHECK(flag == 0, "MPI_INT has MPI_DOUBLE's attribute");
    rc = MPI_Type_delete_attr(MPI_DOUBLE, kv_dup);
    CHECK(rc == MPI_SUCCESS, "delete on MPI_DOUBLE: %d", rc);

    /* Keyvals of another kind, or freed, are refused. */
    rc = MPI_Type_set_attr(MPI_INT, comm_kv, NULL);
    CHECK(mpitest_class(rc) == MPI_ERR_KEYVAL, "comm keyval on a type: %d",
          mpitest_class(rc));
    rc = MPI_Comm_set_attr(MPI_COMM_WORLD, kv, NULL);
    CHECK(mpitest_class(rc) == MPI_ERR_KEYVAL, "type keyval on a comm: %d",
          mpitest_class(rc));
    rc = MPI_Type_free_keyval(&kv);
    CHECK(rc == MPI_SUCCESS && kv == MPI_KEYVAL_INVALID, "free_keyval %d",
          rc);
    rc = MPI_Type_get_attr(MPI_INT, kv, &v, &flag);
    CHECK(mpitest_class(rc) == MPI_ERR_KEYVAL, "freed keyval: %d",
          mpitest_class(rc));
    rc = MPI_Type_free_keyval(&comm_kv);
    CHECK(mpitest_class(rc) == MPI_ERR_KEYVAL,
          "comm keyval freed as a type's");
    MPI_Type_free_keyval(&kv_null);
    MPI_Type_free_keyval(&kv_dup);
    MPI_Comm_free_keyval(&comm_kv);

    return mpitest_finish();
}
