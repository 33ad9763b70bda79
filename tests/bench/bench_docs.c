/* SPDX-License-Identifier: MIT */
/* bench_docs.c - figures of docs/benchmarks.md's tables (bench_docs.h). */
#include "bench_docs.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_CELLS 16

typedef struct {
    char *cell[MAX_CELLS]; /* trimmed, without backticks and ** */
    int ncell;
    int header; /* the table's header row (an index into rows) */
} doc_row;

struct bench_docs {
    doc_row *rows;
    int n;
    char *text;
};

/* cell text: spaces, backticks and bold marks taken off both ends */
static char *trim(char *s, char *e)
{
    while (s < e && (isspace((unsigned char)*s) || *s == '`' || *s == '*'))
        s++;
    while (e > s && (isspace((unsigned char)e[-1]) || e[-1] == '`' || e[-1] == '*'))
        e--;
    *e = 0;
    return s;
}

bench_docs *bench_docs_load(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "bench: cannot read %s (the figures to compare with)\n", path);
        return NULL;
    }
    bench_docs *d = calloc(1, sizeof *d);
    size_t cap = 1 << 16, len = 0;
    d->text = malloc(cap + 1);
    for (size_t got; d->text && (got = fread(d->text + len, 1, cap - len, f)) > 0;) {
        len += got;
        if (len == cap) {
            char *t = realloc(d->text, 2 * cap + 1);
            if (!t) {
                free(d->text);
                d->text = NULL;
                break;
            }
            d->text = t, cap *= 2;
        }
    }
    fclose(f);
    if (!d->text) {
        free(d);
        return NULL;
    }
    d->text[len] = 0;
    int header = -1, prev_table = 0, rcap = 0;
    for (char *line = d->text; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = 0;
        int table = line[0] == '|';
        if (table && !strncmp(line, "|---", 4)) { /* the row above is a header */
            line = nl ? nl + 1 : NULL;
            continue;
        }
        if (table) {
            if (d->n == rcap) {
                rcap = rcap ? 2 * rcap : 256;
                d->rows = realloc(d->rows, (size_t)rcap * sizeof *d->rows);
            }
            doc_row *r = &d->rows[d->n];
            r->ncell = 0;
            char *s = line + 1;
            for (char *bar; r->ncell < MAX_CELLS && (bar = strchr(s, '|'));) {
                char *c = s;
                while (c < bar && *c == ' ')
                    c++;
                char *q = *c == '`' ? memchr(c + 1, '`', (size_t)(bar - c - 1)) : NULL;
                /* a spec in backticks is the row's name, what follows it a note */
                r->cell[r->ncell] = r->ncell == 0 && q ? trim(c, q) : trim(s, bar);
                r->ncell++;
                s = bar + 1;
            }
            if (!prev_table)
                header = d->n;
            r->header = header;
            d->n++;
        }
        prev_table = table;
        line = nl ? nl + 1 : NULL;
    }
    return d;
}

void bench_docs_free(bench_docs *d)
{
    if (!d)
        return;
    free(d->rows);
    free(d->text);
    free(d);
}

/* "12.3 ms", "1.2 s", "**6.47 ms**", "0.66 ms (...)": ms; NAN otherwise */
static double cell_ms(const char *c)
{
    char *end;
    double v = strtod(c, &end);
    if (end == c)
        return NAN;
    while (*end == ' ')
        end++;
    if (!strncmp(end, "ms", 2))
        return v;
    if (end[0] == 's' && !isalpha((unsigned char)end[1]))
        return v * 1e3;
    return NAN;
}

double bench_docs_ms(const bench_docs *d, const char *spec, const char *prec, const char *col)
{
    for (int i = 0; d && i < d->n; i++) {
        const doc_row *r = &d->rows[i];
        if (i == r->header || r->ncell < 2 || strcmp(r->cell[0], spec) || strcmp(r->cell[1], prec))
            continue;
        const doc_row *h = &d->rows[r->header];
        for (int c = 2; c < h->ncell && c < r->ncell; c++)
            if (!strcasecmp(h->cell[c], col))
                return cell_ms(r->cell[c]);
    }
    return NAN;
}

void bench_docs_compare(const bench_docs *d, const char *spec, const char *prec, const char *col,
                        double now_ms, int *compared, int *flagged)
{
    double doc = bench_docs_ms(d, spec, prec, col);
    if (isnan(doc)) {
        printf("  %s %.2f ms (docs: none)", col, now_ms);
        return;
    }
    int slow = now_ms > doc * BENCH_DOCS_SLACK && now_ms - doc > BENCH_DOCS_FLOOR_MS;
    printf("  %s %.2f ms (docs %.2f, %.2fx)%s", col, now_ms, doc, now_ms / doc,
           slow ? " SLOWER" : "");
    (*compared)++;
    *flagged += slow;
}
