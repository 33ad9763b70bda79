/* SPDX-License-Identifier: MIT */
/* points_xyz.c - native reader for scattered "x y z" text (no GDAL). */
#include "points_xyz.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define XYZ_CHUNK (4u << 20) /* fread size: big reads, few syscalls */
#define XYZ_MAX_NAMES 256    /* header columns remembered for messages */

/* 10^0 .. 10^22 are exact doubles: one multiply or divide by them is
 * correctly rounded when the mantissa is below 2^53 (Clinger's fast path). */
static const double pow10_exact[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static int slow_parse(const char *s, const char *end, double *v)
{
    char tmp[128];
    size_t n = (size_t)(end - s);
    if (n == 0 || n >= sizeof tmp)
        return 0;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    char *stop;
    errno = 0;
    double d = strtod(tmp, &stop);
    if (stop != tmp + n)
        return 0;
    *v = d; /* overflow gives +-HUGE_VAL, underflow 0: both acceptable */
    return 1;
}

int gk_parse_double(const char *s, const char *end, double *v)
{
    if (end - s >= 2 && s[0] == '"' && end[-1] == '"') {
        s++;
        end--;
    }
    const char *p = s;
    int neg = 0;
    if (p < end && (*p == '-' || *p == '+')) {
        neg = *p == '-';
        p++;
    }
    uint64_t m = 0;
    int ndig = 0, nsig = 0, exp10 = 0;
    while (p < end && *p >= '0' && *p <= '9') {
        if (m || *p != '0') {
            if (nsig >= 19)
                return slow_parse(s, end, v);
            m = m * 10 + (uint64_t)(*p - '0');
            nsig++;
        }
        ndig++;
        p++;
    }
    if (p < end && *p == '.') {
        p++;
        while (p < end && *p >= '0' && *p <= '9') {
            if (m || *p != '0') {
                if (nsig >= 19)
                    return slow_parse(s, end, v);
                m = m * 10 + (uint64_t)(*p - '0');
                nsig++;
            }
            exp10--;
            ndig++;
            p++;
        }
    }
    if (ndig == 0)
        return slow_parse(s, end, v); /* nan, inf, hex, or not a number */
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        int eneg = 0, e = 0, edig = 0;
        if (p < end && (*p == '-' || *p == '+')) {
            eneg = *p == '-';
            p++;
        }
        while (p < end && *p >= '0' && *p <= '9') {
            if (e < 100000)
                e = e * 10 + (*p - '0');
            edig++;
            p++;
        }
        if (!edig)
            return 0;
        exp10 += eneg ? -e : e;
    }
    if (p != end)
        return 0;
    if (m == 0) {
        *v = neg ? -0.0 : 0.0;
        return 1;
    }
    if (m > ((uint64_t)1 << 53) || exp10 < -22 || exp10 > 22)
        return slow_parse(s, end, v);
    double d = (double)m;
    d = exp10 < 0 ? d / pow10_exact[-exp10] : d * pow10_exact[exp10];
    *v = neg ? -d : d;
    return 1;
}

/* ---- line tokenizer ------------------------------------------------------ */

static inline int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
static inline int is_delim(char c) { return c == ',' || c == ';'; }

/* Next field of [*pp, eol). Runs of blanks separate fields; a comma or
 * semicolon (with blanks around it) separates too and may leave an empty
 * field ("1,2," has an empty third field). *sep is what ended the field:
 * ',' or ';', ' ' for blanks alone, 0 at the end of the line. */
static int next_field(const char **pp, const char *eol, int *pending, const char **fb,
                      const char **fe, char *sep)
{
    const char *p = *pp;
    while (p < eol && is_blank(*p))
        p++;
    *sep = 0;
    if (p == eol) {
        if (!*pending)
            return 0;
        *pending = 0;
        *fb = *fe = p;
        *pp = p;
        return 1;
    }
    const char *b = p;
    while (p < eol && !is_blank(*p) && !is_delim(*p))
        p++;
    *fb = b;
    *fe = p;
    while (p < eol && is_blank(*p))
        p++;
    *pending = 0;
    if (p < eol && is_delim(*p)) {
        *sep = *p;
        p++;
        *pending = 1;
    } else if (p < eol) {
        *sep = ' ';
    }
    *pp = p;
    return 1;
}

/* ---- reader state --------------------------------------------------------- */

typedef struct {
    gk_context *ctx;
    const char *path;
    const char *zcolumn;
    gk_points *out;
    size_t line; /* 1-based number of the line being parsed */
    size_t skipped;
    int started; /* first data line seen (header decided) */
    int zcol;    /* 0-based Z column */
    int xy_only; /* gk_points_read_xy: columns 1 and 2 only, z = 0 */
    int err;
} xyz_state;

static int names_equal(const char *b, const char *e, const char *name)
{
    if (e - b >= 2 && b[0] == '"' && e[-1] == '"') {
        b++;
        e--;
    }
    size_t n = strlen(name);
    if ((size_t)(e - b) != n)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char a = b[i], c = name[i];
        if (a >= 'A' && a <= 'Z')
            a = (char)(a - 'A' + 'a');
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (a != c)
            return 0;
    }
    return 1;
}

/* "3" -> 2 (0-based); -1 when not a positive integer. */
static int column_number(const char *s)
{
    if (!s || !*s)
        return -1;
    long v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9' || v > 100000)
            return -1;
        v = v * 10 + (*p - '0');
    }
    return v >= 1 ? (int)(v - 1) : -1;
}

/* Copies a short, printable excerpt of a line for messages. */
static void excerpt(const char *b, const char *e, char *dst, size_t cap)
{
    size_t n = 0;
    while (b < e && (e[-1] == '\r' || e[-1] == '\n'))
        e--;
    for (; b < e && n + 4 < cap; b++)
        dst[n++] = (*b >= 32 && *b < 127) ? *b : '?';
    if (b < e) {
        memcpy(dst + n, "...", 3);
        n += 3;
    }
    dst[n] = '\0';
}

static int malformed(xyz_state *st, const char *lb, const char *le, const char *why)
{
    char ex[96];
    excerpt(lb, le, ex, sizeof ex);
    st->err = gk_error(st->ctx, GK_ERR_IO, "%s: line %zu: %s: \"%s\"", st->path, st->line, why, ex);
    return st->err;
}

/* Decides header / Z column on the first data line. Returns 1 if the line was
 * a header, 0 if it holds data, -1 on error. */
static int first_line(xyz_state *st, const char *lb, const char *le)
{
    const char *p = lb, *fb, *fe;
    int pending = 0;
    char sep;
    double v;
    st->started = 1;
    if (!next_field(&p, le, &pending, &fb, &fe, &sep))
        return 0;
    int header = !gk_parse_double(fb, fe, &v);
    if (!st->zcolumn || st->xy_only) {
        st->zcol = 2;
        return header;
    }
    if (header) {
        /* Names: the first field is fb..fe already. */
        int col = 0;
        char names[1024];
        size_t nn = 0;
        names[0] = '\0';
        do {
            if (names_equal(fb, fe, st->zcolumn)) {
                st->zcol = col;
                return 1;
            }
            size_t len = (size_t)(fe - fb);
            if (nn + len + 3 < sizeof names) {
                if (nn) {
                    names[nn++] = ',';
                    names[nn++] = ' ';
                }
                memcpy(names + nn, fb, len);
                nn += len;
                names[nn] = '\0';
            }
            col++;
        } while (col < XYZ_MAX_NAMES && next_field(&p, le, &pending, &fb, &fe, &sep));
        int c = column_number(st->zcolumn);
        if (c >= 0) {
            st->zcol = c;
            return 1;
        }
        st->err = gk_error(st->ctx, GK_ERR_ARG,
                           "%s: no column named \"%s\" in the header line (columns: %s)", st->path,
                           st->zcolumn, names);
        return -1;
    }
    int c = column_number(st->zcolumn);
    if (c < 0) {
        st->err = gk_error(st->ctx, GK_ERR_ARG,
                           "%s: Z column \"%s\" requested but the file has no header line "
                           "(give a 1-based column number instead)",
                           st->path, st->zcolumn);
        return -1;
    }
    st->zcol = c;
    return 0;
}

static int parse_line(xyz_state *st, const char *lb, const char *le)
{
    const char *p = lb;
    while (p < le && is_blank(*p))
        p++;
    if (p == le || *p == '#')
        return 0;
    if (!st->started) {
        int h = first_line(st, lb, le);
        if (h < 0)
            return st->err;
        if (h > 0)
            return 0;
    }
    const char *fb[3] = {0}, *fe[3] = {0};
    const char *b, *e;
    int pending = 0, col = 0, last = st->xy_only ? 1 : st->zcol > 1 ? st->zcol : 1;
    const char *zb = NULL, *ze = NULL;
    char sep, sep0 = 0;
    p = lb;
    while (col <= last && next_field(&p, le, &pending, &b, &e, &sep)) {
        /* Fields parted by blanks here and by a comma there ("0,5 0,25 1,5")
         * mean decimal commas: read as separators they would give other
         * numbers, so the line is refused rather than guessed at. */
        if (sep && sep0 && sep != sep0)
            return malformed(st, lb, le,
                             "fields separated both by blanks and by ',' or ';' (decimal "
                             "commas?); use '.' as the decimal mark and one kind of separator");
        if (sep)
            sep0 = sep;
        if (col < 2) {
            fb[col] = b;
            fe[col] = e;
        }
        if (col == st->zcol) {
            zb = b;
            ze = e;
        }
        col++;
    }
    if (col < 2 || (!zb && !st->xy_only))
        return malformed(st, lb, le,
                         col >= 2      ? "missing Z field"
                         : st->xy_only ? "expected X and Y fields"
                                       : "expected X, Y and Z fields");
    double x, y, z;
    if (!gk_parse_double(fb[0], fe[0], &x))
        return malformed(st, lb, le, "X is not a number");
    if (!gk_parse_double(fb[1], fe[1], &y))
        return malformed(st, lb, le, "Y is not a number");
    if (st->xy_only) { /* whatever follows X and Y is not looked at */
        if (!isfinite(x) || !isfinite(y)) {
            st->skipped++;
            return 0;
        }
        int rc = gk_points_add(st->out, x, y, 0.0);
        if (rc)
            st->err = rc;
        return rc;
    }
    if (zb == ze) {
        st->skipped++;
        return 0;
    }
    if (!gk_parse_double(zb, ze, &z))
        return malformed(st, lb, le, "Z is not a number");
    /* NaN or infinite (also 1e999) X, Y or Z: skipped and counted, as the
     * OGR path does; an infinite value would poison every node near it */
    if (!isfinite(x) || !isfinite(y) || !isfinite(z)) {
        st->skipped++;
        return 0;
    }
    int rc = gk_points_add(st->out, x, y, z);
    if (rc)
        st->err = rc;
    return rc;
}

static int read_text(gk_context *ctx, const char *path, const char *zcolumn, int xy_only,
                     gk_points *out, size_t *n_skipped)
{
    if (n_skipped)
        *n_skipped = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return gk_error(ctx, GK_ERR_IO, "cannot open %s: %s", path, strerror(errno));

    /* A first guess of the point count (about 20 bytes a line) saves regrowth.
     * Only a regular file's size is one: a pipe has none, and a folder's
     * "size" (ext4 reports 2^63 - 1) would ask for exabytes. */
    size_t cap = XYZ_CHUNK, have = 0;
    struct stat sb;
    if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        fclose(f);
        return gk_error(ctx, GK_ERR_IO, "%s is a folder, not a file of points", path);
    }
    if (fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size >= 0) {
        size_t sz = (size_t)sb.st_size;
        if (sz > 0 && gk_points_reserve(out, gk_points_count(out) + sz / 20 + 16))
            gk_error_clear(ctx); /* only a hint */
        /* A small file needs no 4 MB buffer (the loop grows it if the file grew). */
        if (sz < cap / 2)
            cap = sz + 4096;
    }

    char *buf = malloc(cap);
    if (!buf) {
        fclose(f);
        return gk_error(ctx, GK_ERR_NOMEM, "out of memory reading %s", path);
    }
    xyz_state st = {ctx, path, zcolumn, out, 0, 0, 0, 2, xy_only, 0};
    int eof = 0;
    while (!st.err) {
        if (!eof) {
            size_t n = fread(buf + have, 1, cap - have, f);
            if (n < cap - have) {
                if (ferror(f)) {
                    gk_error(ctx, GK_ERR_IO, "error reading %s: %s", path, strerror(errno));
                    st.err = GK_ERR_IO;
                    break;
                }
                if (feof(f))
                    eof = 1;
            }
            have += n;
        }
        char *p = buf, *end = buf + have;
        char *nl;
        while (!st.err && (nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
            st.line++;
            parse_line(&st, p, nl);
            p = nl + 1;
        }
        if (st.err)
            break;
        size_t rest = (size_t)(end - p);
        if (eof) {
            if (rest) {
                st.line++;
                parse_line(&st, p, end);
            }
            break;
        }
        memmove(buf, p, rest);
        have = rest;
        if (have == cap) { /* one line longer than the buffer */
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                st.err = gk_error(ctx, GK_ERR_NOMEM, "out of memory reading %s", path);
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    free(buf);
    fclose(f);
    if (n_skipped)
        *n_skipped = st.skipped;
    return st.err;
}

int gk_points_read_xyz(gk_context *ctx, const char *path, const char *zcolumn, gk_points *out,
                       size_t *n_skipped)
{
    return read_text(ctx, path, zcolumn, 0, out, n_skipped);
}

int gk_points_read_xy(gk_context *ctx, const char *path, gk_points *out, size_t *n_skipped)
{
    return read_text(ctx, path, NULL, 1, out, n_skipped);
}
