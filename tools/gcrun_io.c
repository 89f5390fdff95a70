/*
 * tools/gcrun_io.c: forwarding the ranks' output line by line
 * and our stdin to rank 0.
 */
#include "tools/gcrun.h"

/* ------------------------------------------------------------------------ */
/* I/O forwarding                                                           */
/* ------------------------------------------------------------------------ */

/* Forwards the complete lines in st->pending with one write, each with its
 * tag when --tag-output is on. A partial line goes out only at EOF or when
 * it grows past IO_LINE_MAX. */
static void stream_emit(struct job *job, struct rank *rk, struct stream *st,
                        bool at_eof)
{
    struct buf *out = &job->scratch;
    char prefix[32];
    size_t plen = 0;
    size_t rest;

    if (job->opt.tag_output && (job->opt.world > 0)) {
        /* A spawned job's ranks: "[job.rank]". */
        plen = (size_t)snprintf(prefix, sizeof(prefix), "[%d.%d] ",
                                job->opt.world, rk->id);
    } else if (job->opt.tag_output) {
        plen = (size_t)snprintf(prefix, sizeof(prefix), "[%d] ", rk->id);
    }
    gcrun_buf_consume(out, gcrun_buf_len(out));

    while (gcrun_buf_len(&st->pending) > 0) {
        char *head = gcrun_buf_head(&st->pending);
        char *nl = memchr(head, '\n', gcrun_buf_len(&st->pending));
        size_t linelen;

        if (nl == NULL) {
            break;
        }
        linelen = (size_t)(nl - head) + 1;
        if (!st->midline) {
            gcrun_buf_append(out, prefix, plen);
        }
        gcrun_buf_append(out, head, linelen);
        gcrun_buf_consume(&st->pending, linelen);
        st->midline = false;
    }

    rest = gcrun_buf_len(&st->pending);
    if (rest > 0 && (at_eof || rest >= IO_LINE_MAX)) {
        if (!st->midline) {
            gcrun_buf_append(out, prefix, plen);
        }
        gcrun_buf_append(out, gcrun_buf_head(&st->pending), rest);
        gcrun_buf_consume(&st->pending, rest);
        st->midline = true;
        if (at_eof && job->opt.tag_output) {
            /* Without tags the bytes are passed through unchanged; with
             * tags the next rank's line must start on a line of its own. */
            gcrun_buf_append(out, "\n", 1);
            st->midline = false;
        }
    }

    if (gcrun_buf_len(out) > 0) {
        gcrun_sink_write(st->dest, gcrun_buf_head(out), gcrun_buf_len(out));
    }
}

void gcrun_stream_close(struct job *job, struct rank *rk, struct stream *st)
{
    if (st->fd >= 0) {
        stream_emit(job, rk, st, true);
        gcrun_close_fd(&st->fd);
    }
    gcrun_buf_free(&st->pending);
}

void gcrun_stream_read(struct job *job, struct rank *rk, struct stream *st,
                       bool drain)
{
    size_t total = 0;

    while (st->fd >= 0) {
        ssize_t n = read(st->fd, job->readbuf, READ_CHUNK);

        if (n > 0) {
            gcrun_buf_append(&st->pending, job->readbuf, (size_t)n);
            stream_emit(job, rk, st, false);
            total += (size_t)n;
            if (!drain || total > DRAIN_MAX) {
                return;
            }
        } else if (n == 0) {
            gcrun_stream_close(job, rk, st);
        } else if (errno == EINTR) {
            continue;
        } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
            return;
        } else {
            gcrun_msg("reading output of rank %d: %s", rk->id, strerror(errno));
            gcrun_stream_close(job, rk, st);
        }
    }
}

void gcrun_stdin_stop(struct job *job)
{
    job->stdin_open = false;
    gcrun_close_fd(&job->stdin_pipe);
    gcrun_buf_free(&job->stdin_buf);
}

void gcrun_stdin_flush(struct job *job)
{
    if (job->stdin_pipe >= 0 &&
        gcrun_buf_drain(&job->stdin_buf, job->stdin_pipe, false) != 0) {
        /* Rank 0 closed its stdin (or died): stop reading ours. */
        gcrun_stdin_stop(job);
        return;
    }
    if (!job->stdin_open && gcrun_buf_len(&job->stdin_buf) == 0) {
        gcrun_stdin_stop(job);
    }
}

void gcrun_stdin_read(struct job *job)
{
    ssize_t n = read(STDIN_FILENO, job->readbuf, READ_CHUNK);

    if (n > 0) {
        gcrun_buf_append(&job->stdin_buf, job->readbuf, (size_t)n);
        gcrun_stdin_flush(job);
    } else if (n == 0 ||
               (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)) {
        /* EOF, or an error such as EIO from a terminal we lost: either
         * way rank 0 sees end of input once the buffer is written. */
        job->stdin_open = false;
        gcrun_stdin_flush(job);
    }
}
