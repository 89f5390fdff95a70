/*
 * lco/lco_expr.c: the rank-order expressions of external communicators
 * (<reorder expr=".."/>, edge ends with expr=".."; docs/external.md).
 *
 * A small evaluator of its own: no system(), no code generation. The
 * text is compiled once, by recursive descent, into a postfix program;
 * each process then evaluates it for every member with that member's
 * variables. The grammar, loosest binding first:
 *
 *     expr    := sum (("<" | "<=" | ">" | ">=" | "==" | "!=") sum)*
 *     sum     := product (("+" | "-") product)*
 *     product := unary (("*" | "/" | "%") unary)*
 *     unary   := ("-" | "+") unary | primary
 *     primary := INTEGER | VARIABLE | "(" expr ")"
 *
 * All operators are left-associative, comparisons included (a < b < c is
 * (a < b) < c, as in C). Values are 64-bit; an overflow, a division or
 * remainder by zero is an error naming the operands, never a wrong value.
 * The text comes from a file, so it is untrusted: nesting is bounded
 * (GCM_EXPR_MAX_DEPTH), and so is the program's length.
 */
#include "config.h"

#include "lco/lco_ext.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GCM_EXPR_MAX_DEPTH 64
#define GCM_EXPR_MAX_TEXT  4096

typedef enum {
    GCM_EXPR_PUSH = 1,   /* a constant */
    GCM_EXPR_VAR,        /* a variable */
    GCM_EXPR_NEG,
    GCM_EXPR_ADD, GCM_EXPR_SUB, GCM_EXPR_MUL, GCM_EXPR_DIV, GCM_EXPR_MOD,
    GCM_EXPR_LT, GCM_EXPR_LE, GCM_EXPR_GT, GCM_EXPR_GE, GCM_EXPR_EQ,
    GCM_EXPR_NE
} gcm_expr_op_t;

typedef struct gcm_expr_insn {
    gcm_expr_op_t op;
    int64_t       value;   /* PUSH: the constant; VAR: the variable */
} gcm_expr_insn_t;

struct gcm_lco_expr {
    char            *text;
    gcm_expr_insn_t *prog;
    int              len;
    int              stack;   /* deepest the evaluation stack gets */
};

static const char *const gcm_expr_vars[GCM_EXT_NVARS] = {
    [GCM_EXT_VAR_NAMERANK]   = "NAMERANK",
    [GCM_EXT_VAR_COMMSIZE]   = "COMMSIZE",
    [GCM_EXT_VAR_COMMRANK]   = "COMMRANK",
    [GCM_EXT_VAR_WORLDRANK]  = "WORLDRANK",
    [GCM_EXT_VAR_WORLDSIZE]  = "WORLDSIZE",
    [GCM_EXT_VAR_PARENTRANK] = "PARENTRANK",
    [GCM_EXT_VAR_PARENTSIZE] = "PARENTSIZE",
};

const char *gcm_lco_expr_var_name(gcm_ext_var_t var)
{
    return ((int)var >= 0 && var < GCM_EXT_NVARS) ? gcm_expr_vars[var] :
           "?";
}

/* ---- compiling -------------------------------------------------------- */

typedef struct gcm_expr_parser {
    const char      *text;
    size_t           pos;
    gcm_expr_insn_t *prog;
    int              len;
    int              cap;
    int              depth;    /* current stack depth of the program */
    int              maxdepth;
    int              nest;     /* recursion depth of the parser */
    char            *why;
    size_t           whylen;
    int              failed;
} gcm_expr_parser_t;

static void expr_fail(gcm_expr_parser_t *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void expr_fail(gcm_expr_parser_t *p, const char *fmt, ...)
{
    va_list ap;

    if (p->failed) {
        return;
    }
    p->failed = 1;
    va_start(ap, fmt);
    vsnprintf(p->why, p->whylen, fmt, ap);
    va_end(ap);
}

static void expr_skip_blanks(gcm_expr_parser_t *p)
{
    while (isspace((unsigned char)p->text[p->pos])) {
        p->pos++;
    }
}

/* Appends an instruction; stack_effect is how it changes the stack. */
static void expr_emit(gcm_expr_parser_t *p, gcm_expr_op_t op, int64_t value,
                      int stack_effect)
{
    gcm_expr_insn_t *prog;
    int cap;

    if (p->failed) {
        return;
    }
    if (p->len == p->cap) {
        cap  = (p->cap == 0) ? 16 : 2 * p->cap;
        prog = realloc(p->prog, (size_t)cap * sizeof(*prog));
        if (prog == NULL) {
            expr_fail(p, "out of memory");
            return;
        }
        p->prog = prog;
        p->cap  = cap;
    }
    p->prog[p->len].op    = op;
    p->prog[p->len].value = value;
    p->len++;
    p->depth += stack_effect;
    if (p->depth > p->maxdepth) {
        p->maxdepth = p->depth;
    }
}

/* What stands at the current position, for messages. */
static void expr_where(gcm_expr_parser_t *p, char *buf, size_t len)
{
    if (p->text[p->pos] == '\0') {
        snprintf(buf, len, "the end");
    } else {
        snprintf(buf, len, "'%c' at character %zu", p->text[p->pos],
                 p->pos + 1);
    }
}

static void expr_parse(gcm_expr_parser_t *p);

static void expr_primary(gcm_expr_parser_t *p)
{
    const char *s;
    char where[64];
    size_t start, n;
    uint64_t v;
    int var;

    expr_skip_blanks(p);
    s = p->text + p->pos;
    if (*s == '(') {
        p->pos++;
        expr_parse(p);
        expr_skip_blanks(p);
        if (p->failed) {
            return;
        }
        if (p->text[p->pos] != ')') {
            expr_where(p, where, sizeof(where));
            expr_fail(p, "expected ')' but found %s", where);
            return;
        }
        p->pos++;
        return;
    }
    if (isdigit((unsigned char)*s)) {
        start = p->pos;
        v     = 0;
        while (isdigit((unsigned char)p->text[p->pos])) {
            v = v * 10 + (uint64_t)(p->text[p->pos] - '0');
            if (v > (uint64_t)INT64_MAX) {
                expr_fail(p, "the number at character %zu is larger than "
                          "%" PRId64, start + 1, INT64_MAX);
                return;
            }
            p->pos++;
        }
        expr_emit(p, GCM_EXPR_PUSH, (int64_t)v, 1);
        return;
    }
    if (isalpha((unsigned char)*s) || *s == '_') {
        start = p->pos;
        while (isalnum((unsigned char)p->text[p->pos]) ||
               p->text[p->pos] == '_') {
            p->pos++;
        }
        n = p->pos - start;
        for (var = 0; var < GCM_EXT_NVARS; var++) {
            if (strlen(gcm_expr_vars[var]) == n &&
                memcmp(gcm_expr_vars[var], s, n) == 0) {
                expr_emit(p, GCM_EXPR_VAR, var, 1);
                return;
            }
        }
        expr_fail(p, "unknown variable '%.*s' at character %zu (the "
                  "variables are NAMERANK, COMMSIZE, COMMRANK, WORLDRANK, "
                  "WORLDSIZE, PARENTRANK and PARENTSIZE)",
                  (int)((n > 40) ? 40 : n), s, start + 1);
        return;
    }
    expr_where(p, where, sizeof(where));
    expr_fail(p, "expected a number, a variable or '(' but found %s",
              where);
}

static void expr_unary(gcm_expr_parser_t *p)
{
    char c;

    if (++p->nest > GCM_EXPR_MAX_DEPTH) {
        expr_fail(p, "the expression nests deeper than %d levels",
                  GCM_EXPR_MAX_DEPTH);
        return;
    }
    expr_skip_blanks(p);
    c = p->text[p->pos];
    if (c == '-' || c == '+') {
        p->pos++;
        expr_unary(p);
        if (c == '-') {
            expr_emit(p, GCM_EXPR_NEG, 0, 0);
        }
    } else {
        expr_primary(p);
    }
    p->nest--;
}

static void expr_product(gcm_expr_parser_t *p)
{
    gcm_expr_op_t op;
    char c;

    expr_unary(p);
    while (!p->failed) {
        expr_skip_blanks(p);
        c = p->text[p->pos];
        if (c == '*') {
            op = GCM_EXPR_MUL;
        } else if (c == '/') {
            op = GCM_EXPR_DIV;
        } else if (c == '%') {
            op = GCM_EXPR_MOD;
        } else {
            return;
        }
        p->pos++;
        expr_unary(p);
        expr_emit(p, op, 0, -1);
    }
}

static void expr_sum(gcm_expr_parser_t *p)
{
    gcm_expr_op_t op;
    char c;

    expr_product(p);
    while (!p->failed) {
        expr_skip_blanks(p);
        c = p->text[p->pos];
        if (c == '+') {
            op = GCM_EXPR_ADD;
        } else if (c == '-') {
            op = GCM_EXPR_SUB;
        } else {
            return;
        }
        p->pos++;
        expr_product(p);
        expr_emit(p, op, 0, -1);
    }
}

/* The comparison at the current position (advancing past it), or 0. */
static gcm_expr_op_t expr_comparison(gcm_expr_parser_t *p)
{
    const char *s = p->text + p->pos;

    if (s[0] == '<' && s[1] == '=') {
        p->pos += 2;
        return GCM_EXPR_LE;
    }
    if (s[0] == '>' && s[1] == '=') {
        p->pos += 2;
        return GCM_EXPR_GE;
    }
    if (s[0] == '=' && s[1] == '=') {
        p->pos += 2;
        return GCM_EXPR_EQ;
    }
    if (s[0] == '!' && s[1] == '=') {
        p->pos += 2;
        return GCM_EXPR_NE;
    }
    if (s[0] == '<') {
        p->pos++;
        return GCM_EXPR_LT;
    }
    if (s[0] == '>') {
        p->pos++;
        return GCM_EXPR_GT;
    }
    return 0;
}

static void expr_parse(gcm_expr_parser_t *p)
{
    gcm_expr_op_t op;

    if (++p->nest > GCM_EXPR_MAX_DEPTH) {
        expr_fail(p, "the expression nests deeper than %d levels",
                  GCM_EXPR_MAX_DEPTH);
        return;
    }
    expr_sum(p);
    while (!p->failed) {
        expr_skip_blanks(p);
        op = expr_comparison(p);
        if (op == 0) {
            break;
        }
        expr_sum(p);
        expr_emit(p, op, 0, -1);
    }
    p->nest--;
}

gcm_lco_expr_t *gcm_lco_expr_compile(const char *text, char *why,
                                     size_t whylen)
{
    gcm_expr_parser_t p;
    gcm_lco_expr_t *e;
    char where[64];
    size_t n;

    memset(&p, 0, sizeof(p));
    p.text   = text;
    p.why    = why;
    p.whylen = whylen;
    n = strnlen(text, GCM_EXPR_MAX_TEXT + 1);
    if (n > GCM_EXPR_MAX_TEXT) {
        snprintf(why, whylen, "the expression is longer than %d characters",
                 GCM_EXPR_MAX_TEXT);
        return NULL;
    }
    expr_skip_blanks(&p);
    if (text[p.pos] == '\0') {
        snprintf(why, whylen, "the expression is empty");
        return NULL;
    }
    expr_parse(&p);
    expr_skip_blanks(&p);
    if (!p.failed && text[p.pos] != '\0') {
        expr_where(&p, where, sizeof(where));
        expr_fail(&p, "unexpected %s", where);
    }
    if (p.failed) {
        free(p.prog);
        return NULL;
    }
    e = calloc(1, sizeof(*e));
    if (e != NULL) {
        e->text = malloc(n + 1);
    }
    if (e == NULL || e->text == NULL) {
        free(e);
        free(p.prog);
        snprintf(why, whylen, "out of memory");
        return NULL;
    }
    memcpy(e->text, text, n + 1);
    e->prog  = p.prog;
    e->len   = p.len;
    e->stack = p.maxdepth;
    return e;
}

void gcm_lco_expr_free(gcm_lco_expr_t *e)
{
    if (e != NULL) {
        free(e->text);
        free(e->prog);
        free(e);
    }
}

const char *gcm_lco_expr_text(const gcm_lco_expr_t *e)
{
    return e->text;
}

/* ---- evaluating ------------------------------------------------------- */

static const char *expr_op_text(gcm_expr_op_t op)
{
    switch (op) {
    case GCM_EXPR_ADD: return "+";
    case GCM_EXPR_SUB: return "-";
    case GCM_EXPR_MUL: return "*";
    case GCM_EXPR_DIV: return "/";
    case GCM_EXPR_MOD: return "%";
    default:           return "?";
    }
}

int gcm_lco_expr_eval(const gcm_lco_expr_t *e,
                      const int64_t vars[GCM_EXT_NVARS], int64_t *value_p,
                      char *why, size_t whylen)
{
    int64_t small[32], *stack = small, a, b, r;
    int i, sp = 0, overflow, rc = 0;

    if (e->stack > (int)(sizeof(small) / sizeof(small[0]))) {
        stack = malloc((size_t)e->stack * sizeof(int64_t));
        if (stack == NULL) {
            snprintf(why, whylen, "out of memory");
            return -1;
        }
    }
    for (i = 0; i < e->len && rc == 0; i++) {
        const gcm_expr_insn_t *in = &e->prog[i];

        switch (in->op) {
        case GCM_EXPR_PUSH:
            stack[sp++] = in->value;
            continue;
        case GCM_EXPR_VAR:
            stack[sp++] = vars[in->value];
            continue;
        case GCM_EXPR_NEG:
            if (stack[sp - 1] == INT64_MIN) {
                snprintf(why, whylen, "overflow in -(%" PRId64 ")",
                         stack[sp - 1]);
                rc = -1;
            } else {
                stack[sp - 1] = -stack[sp - 1];
            }
            continue;
        default:
            break;
        }
        b = stack[--sp];
        a = stack[sp - 1];
        overflow = 0;
        switch (in->op) {
        case GCM_EXPR_ADD:
            overflow = __builtin_add_overflow(a, b, &r);
            break;
        case GCM_EXPR_SUB:
            overflow = __builtin_sub_overflow(a, b, &r);
            break;
        case GCM_EXPR_MUL:
            overflow = __builtin_mul_overflow(a, b, &r);
            break;
        case GCM_EXPR_DIV:
        case GCM_EXPR_MOD:
            if (b == 0) {
                snprintf(why, whylen, "%s by zero (%" PRId64 " %s 0)",
                         (in->op == GCM_EXPR_DIV) ? "division" :
                         "remainder", a, expr_op_text(in->op));
                rc = -1;
                continue;
            }
            if (a == INT64_MIN && b == -1) {
                overflow = 1;
                break;
            }
            r = (in->op == GCM_EXPR_DIV) ? a / b : a % b;
            break;
        case GCM_EXPR_LT: r = (a < b);  break;
        case GCM_EXPR_LE: r = (a <= b); break;
        case GCM_EXPR_GT: r = (a > b);  break;
        case GCM_EXPR_GE: r = (a >= b); break;
        case GCM_EXPR_EQ: r = (a == b); break;
        case GCM_EXPR_NE: r = (a != b); break;
        default:          r = 0;        break;
        }
        if (overflow) {
            snprintf(why, whylen, "overflow in %" PRId64 " %s %" PRId64, a,
                     expr_op_text(in->op), b);
            rc = -1;
            continue;
        }
        stack[sp - 1] = r;
    }
    if (rc == 0) {
        *value_p = stack[0];
    }
    if (stack != small) {
        free(stack);
    }
    return rc;
}
