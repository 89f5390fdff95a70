/*
 * tests/mpi/ext_errors.c: error classes, codes and texts a library adds
 * at run time (MPI-3.1 8.5), as a library layered on MPI uses them: it
 * adds a class and two codes in it, gives them texts, returns them from
 * its own calls and raises them through a communicator's error handler.
 * MPI_Error_string prints the texts (a code without one prints ""),
 * MPI_Error_class maps codes to their class, MPI_LASTUSEDCODE follows the
 * largest, and misuse (a predefined code, a code that does not exist, a
 * text too long) is refused with MPI_ERR_ARG. Each process checks alone.
 */
#include <mpi.h>

#include "mpitest.h"

#include <stdio.h>
#include <string.h>

static int rank;

static int class_of(int code)
{
    int cls = -12345;

    if (MPI_Error_class(code, &cls) != MPI_SUCCESS) {
        return -1;
    }
    return cls;
}

/* MPI_Error_string of code must be exactly want. */
static void expect_text(int line, int code, const char *want)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = -1, rc;

    memset(text, 'x', sizeof(text));
    rc = MPI_Error_string(code, text, &len);
    if (rc != MPI_SUCCESS || strcmp(text, want) != 0 ||
        len != (int)strlen(want)) {
        printf("FAIL: line %d (rank %d): MPI_Error_string(%d) = \"%.80s\" "
               "(len %d, rc %d), want \"%s\"\n", line, rank, code, text, len,
               rc, want);
        mpitest_failures++;
    }
}

static int lastused(void)
{
    int *p = NULL, flag = 0;

    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &p, &flag);
    return (flag && p != NULL) ? *p : -1;
}

/* A handler that records the code it saw. */
static int seen_code;
static void record(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    seen_code = *code;
}

int main(int argc, char **argv)
{
    char longtext[MPI_MAX_ERROR_STRING + 8];
    char text[MPI_MAX_ERROR_STRING];
    int cls, cls2, code1, code2, code3, last0, rc, len;
    MPI_Errhandler errh;

    mpitest_init(&argc, &argv, "ext_errors", 0);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    last0 = lastused();
    CHECK(last0 >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE %d below "
          "MPI_ERR_LASTCODE %d", last0, MPI_ERR_LASTCODE);

    /* A class, two codes in it, a code in a predefined class. */
    CHECK(MPI_Add_error_class(&cls) == MPI_SUCCESS, "add class");
    CHECK(cls > MPI_ERR_LASTCODE, "new class %d not above "
          "MPI_ERR_LASTCODE", cls);
    CHECK(MPI_Add_error_code(cls, &code1) == MPI_SUCCESS, "add code 1");
    CHECK(MPI_Add_error_code(cls, &code2) == MPI_SUCCESS, "add code 2");
    CHECK(MPI_Add_error_code(MPI_ERR_TRUNCATE, &code3) == MPI_SUCCESS,
          "add code in MPI_ERR_TRUNCATE");
    CHECK(cls != code1 && code1 != code2 && code2 != code3 && cls != code3,
          "values not distinct: %d %d %d %d", cls, code1, code2, code3);
    CHECK(class_of(cls) == cls, "class of the class: %d", class_of(cls));
    CHECK(class_of(code1) == cls && class_of(code2) == cls,
          "classes of the codes: %d %d", class_of(code1), class_of(code2));
    CHECK(class_of(code3) == MPI_ERR_TRUNCATE, "class of code3: %d",
          class_of(code3));
    CHECK(lastused() >= code3 && lastused() >= code2 && lastused() > last0,
          "MPI_LASTUSEDCODE %d after adding up to %d", lastused(), code3);

    /* A second class: codes of a code are refused (it is no class). */
    CHECK(MPI_Add_error_class(&cls2) == MPI_SUCCESS && cls2 != cls,
          "second class %d", cls2);
    rc = MPI_Add_error_code(code1, &code3);
    CHECK(class_of(rc) == MPI_ERR_ARG, "a code's code: class %d",
          class_of(rc));
    rc = MPI_Add_error_code(-5, &code3);
    CHECK(class_of(rc) == MPI_ERR_ARG, "class -5: class %d", class_of(rc));

    /* Texts: none yet is "", then what was set, replaced when set again. */
    expect_text(__LINE__, code1, "");
    CHECK(MPI_Add_error_string(cls, "mylib: storage failure") ==
          MPI_SUCCESS, "string of the class");
    CHECK(MPI_Add_error_string(code1, "mylib: disk full") == MPI_SUCCESS,
          "string of code1");
    CHECK(MPI_Add_error_string(code2, "mylib: first text") == MPI_SUCCESS,
          "string of code2");
    CHECK(MPI_Add_error_string(code2, "mylib: quota exceeded") ==
          MPI_SUCCESS, "string of code2 again");
    expect_text(__LINE__, cls, "mylib: storage failure");
    expect_text(__LINE__, code1, "mylib: disk full");
    expect_text(__LINE__, code2, "mylib: quota exceeded");
    expect_text(__LINE__, cls2, "");
    /* The predefined texts are unchanged by it. */
    MPI_Error_string(MPI_ERR_TRUNCATE, text, &len);
    CHECK(strstr(text, "truncated") != NULL, "MPI_ERR_TRUNCATE's text "
          "\"%s\"", text);

    /* Misuse. */
    rc = MPI_Add_error_string(MPI_ERR_TRUNCATE, "mine now");
    CHECK(class_of(rc) == MPI_ERR_ARG, "string of a predefined class: "
          "class %d", class_of(rc));
    MPI_Error_string(MPI_ERR_TRUNCATE, text, &len);
    CHECK(strstr(text, "mine now") == NULL, "predefined text replaced");
    rc = MPI_Add_error_string(lastused() + 1000, "no such code");
    CHECK(class_of(rc) == MPI_ERR_ARG, "string of a missing code: "
          "class %d", class_of(rc));
    memset(longtext, 'a', sizeof(longtext) - 1);
    longtext[sizeof(longtext) - 1] = '\0';
    rc = MPI_Add_error_string(code1, longtext);
    CHECK(class_of(rc) == MPI_ERR_ARG, "a text too long: class %d",
          class_of(rc));
    expect_text(__LINE__, code1, "mylib: disk full");
    rc = MPI_Error_string(lastused() + 1000, text, &len);
    CHECK(class_of(rc) == MPI_ERR_ARG, "text of a missing code: class %d",
          class_of(rc));
    rc = MPI_Error_class(lastused() + 1000, &cls2);
    CHECK(class_of(rc) == MPI_ERR_ARG, "class of a missing code: class %d",
          class_of(rc));
    rc = MPI_Add_error_class(NULL);
    CHECK(class_of(rc) == MPI_ERR_ARG, "NULL class: class %d",
          class_of(rc));

    /* A library raises its code through the communicator's handler. */
    MPI_Comm_create_errhandler(record, &errh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, errh);
    seen_code = 0;
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, code2);
    CHECK(seen_code == code2, "the handler saw %d, want %d", seen_code,
          code2);
    expect_text(__LINE__, code2, "mylib: quota exceeded");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&errh);

    return mpitest_finish();
}
