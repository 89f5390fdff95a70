/*
 * tests/integration/lco_graph.c: gcm_lco_graph_write on this process's
 * LCOs. The world LCO of n processes: one node, n edges, send slot i
 * reaching receive slot <rank> of process i's world LCO. A new LCO with
 * two receive slots and a send slot to the next process's: one node, one
 * edge to a node of its own (that LCO is only known by its name). Errors:
 * a bad handle, a NULL FILE and a FILE that cannot be written, each named
 * in gcm_last_error().
 */
#include "gcm_test.h"

/* Reports what (printf's format) unless cond holds. */
/* The graph of lco as text (malloc'd). */
static char *draw(gcm_lco_h lco)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    gcm_status_t status;

    if (fp == NULL) {
        return NULL;
    }
    status = gcm_lco_graph_write(lco, fp);
    fclose(fp);
    CHECK(status == GCM_OK, "gcm_lco_graph_write: %s", gcm_last_error());
    return text;
}

static int count(const char *text, const char *what)
{
    int n = 0;

    for (; (text = strstr(text, what)) != NULL; text += strlen(what)) {
        n++;
    }
    return n;
}

int main(int argc, char **argv)
{
    gcm_lco_h lco = NULL;
    gcm_name_t mine, next;
    gcm_msg_status_t st;
    char *text, want[128];
    int me, n, rslot = 1, i;
    FILE *ro;

    if (!gcm_test_init(&argc, &argv, "lco_graph")) {
        return 1;
    }
    me = gcm_proc_rank();
    n  = gcm_proc_count();

    text = draw(gcm_world());
    CHECK((text != NULL) && (strncmp(text, "digraph gencomm {\n", 18) == 0),
           "not a digraph");
    if (text != NULL) {
        CHECK(count(text, "<<TABLE") == 1, "%d nodes in the world's graph",
               count(text, "<<TABLE"));
        CHECK(count(text, " -> ") == n, "%d edges, expected %d",
               count(text, " -> "), n);
        for (i = 0; i < n; i++) {
            /* Send slot i reaches process i, at receive slot me. */
            snprintf(want, sizeof(want), ":s%d -> \"L%d_0_", i, i);
            CHECK(strstr(text, want) != NULL, "no edge %s", want);
        }
        /* The others' LCOs are only named (an edge label gives the
         * receive slot); its own is drawn (the edge reaches the port). */
        snprintf(want, sizeof(want), "[label=\"r%d\"]", me);
        i = count(text, want);
        snprintf(want, sizeof(want), ":r%d;", me);
        CHECK(i + count(text, want) == n,
               "edges do not reach receive slot %d", me);
        free(text);
    }

    /* A ring of new LCOs, names passed over the world. */
    CHECK(gcm_lco_create(&lco) == GCM_OK, "gcm_lco_create");
    CHECK(gcm_lco_add_recv_slots(lco, 2) == GCM_OK, "add_recv_slots");
    CHECK(gcm_lco_name(lco, &mine) == GCM_OK, "gcm_lco_name");
    CHECK(gcm_send(gcm_world(), &mine, sizeof(mine), (me + 1) % n, 5) ==
           GCM_OK, "send name");
    CHECK(gcm_recv(gcm_world(), &next, sizeof(next), (me + n - 1) % n, 5,
                    &st) == GCM_OK, "recv name");
    CHECK(gcm_lco_add_send_slots(lco, 1, &next, &rslot) == GCM_OK,
           "add_send_slots");
    text = draw(lco);
    if (text != NULL) {
        CHECK(count(text, "<<TABLE") == 1, "ring: %d nodes",
               count(text, "<<TABLE"));
        CHECK(count(text, "PORT=\"r") == 2, "ring: not 2 receive slots");
        CHECK(count(text, "PORT=\"s") == 1, "ring: not 1 send slot");
        CHECK(count(text, " -> ") == 1, "ring: %d edges",
               count(text, " -> "));
        snprintf(want, sizeof(want), ":s0 -> \"L%d_", (me + n - 1) % n);
        CHECK(strstr(text, want) != NULL, "ring: no edge %s", want);
        CHECK(strstr(text, "[label=\"r1\"]") != NULL,
               "ring: the edge does not reach receive slot 1");
        free(text);
    }

    /* Errors. */
    gcm_test_expect_err("a NULL LCO", gcm_lco_graph_write(NULL, stdout),
                        GCM_ERR_INVALID_PARAM, GCM_ERR_INVALID_PARAM,
                        "gcm_lco_graph_write");
    gcm_test_expect_err("a NULL FILE", gcm_lco_graph_write(lco, NULL),
                        GCM_ERR_INVALID_PARAM, GCM_ERR_INVALID_PARAM,
                        "fp is NULL");
    ro = fopen("/dev/null", "r");
    if (ro != NULL) {
        gcm_test_expect_err("a FILE open for reading",
                            gcm_lco_graph_write(lco, ro),
                            GCM_ERR_INVALID_PARAM, GCM_ERR_INVALID_PARAM,
                            "write error");
        fclose(ro);
    }

    /* Nobody sends on the ring: free it once all drew. */
    CHECK(gcm_send(gcm_world(), &me, sizeof(me), (me + 1) % n, 6) == GCM_OK,
           "barrier send");
    CHECK(gcm_recv(gcm_world(), &i, sizeof(i), (me + n - 1) % n, 6, &st) ==
           GCM_OK, "barrier recv");
    CHECK(gcm_lco_free(&lco) == GCM_OK, "gcm_lco_free");
    return gcm_test_finish();
}
