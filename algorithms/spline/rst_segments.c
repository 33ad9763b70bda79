/* SPDX-License-Identifier: MIT */
/*
 * spline/rst_segments.c - v.surf.rst's segmentation (docs/dev/v_surf_rst.md,
 * sections 2 to 6), for a region of the grid:
 *
 *  - the points inside the region, in input order, go into a quadtree of at
 *    most segmax points a leaf, split by the grid's cells (a full leaf
 *    splits before the next point goes in); a point within dmin of one its
 *    leaf holds is dropped;
 *  - dnorm = sqrt(dx dy npmin / kept) over every point's box; everything is
 *    shifted to the region's lower-left corner and z to its minimum;
 *  - each leaf takes the points of a window around it, grown or shrunk
 *    until it holds between MINPTS and 2 npmin (GRASS's rules and quirks,
 *    up to 70 steps), and solves their RST system in coordinates relative
 *    to its lower-left corner in units of dnorm;
 *  - a node is valued by the leaf holding its cell, as GRASS computes the
 *    leaf's cells.
 *
 * Every leaf is solved when the segments are made (on threads, each leaf's
 * doubles its own), so a node's value does not depend on tiles or threads.
 * With --device cuda the GPU solves the leaves and values every node at
 * once instead (gk_rst_segments_gpu; gpu/rst_segments.cu).
 */
#include "rst_segments.h"
#include "core/cpu_level.h"
#include "core/device.h"
#include "rbf_system.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__clang__)
/* GRASS's doubles: a product and a difference, never fused into an fma.
 * (GCC's ISO C mode does not contract; clang would.) */
#pragma STDC FP_CONTRACT OFF
#endif

enum { NW, NE, SW, SE }; /* a node's children, in GRASS's order */

typedef struct qnode {
    double x0, y0, x1, y1;
    int rows, cols;
    int n, cap, *pts;     /* a leaf's points (indices) */
    int id;               /* a leaf's place in GRASS's order */
    struct qnode *kid[4]; /* NULL: a leaf */
} qnode;

typedef struct {
    int col0, row0, cols, rows; /* its cells (from the west, from the south) */
    double stx, sty;            /* a cell in units of dnorm */
    int n, singular;
    double *xn, *yn; /* its window's points, relative to its corner / dnorm */
    double *b;       /* n + 1: the constant, then the points' */
} leaf;

struct gk_rst_segments {
    gk_grid g;
    double fi, zmin, dnorm;
    int nleaf;
    leaf *lv;
    qnode *root;
    double *x, *y, *z; /* every point inside the region, shifted */
    double *val;       /* every node's value, where the GPU computed them */
};

/* ---- the quadtree ---------------------------------------------------------- */

static int half_up(int v) { return v % 2 ? v / 2 + 1 : v / 2; }

static qnode *qnew(double x0, double y0, double x1, double y1, int rows, int cols)
{
    qnode *q = calloc(1, sizeof *q);
    if (q)
        *q = (qnode){x0, y0, x1, y1, rows, cols, 0, 0, NULL, 0, {NULL, NULL, NULL, NULL}};
    return q;
}

static void qfree(qnode *q)
{
    if (!q)
        return;
    for (int k = 0; k < 4; k++)
        qfree(q->kid[k]);
    free(q->pts);
    free(q);
}

/* Which child takes (x, y) (GRASS's compare), or -1 (outside the node). */
static int qchild(const qnode *q, double x, double y)
{
    const double ew = (q->x1 - q->x0) / q->cols, ns = (q->y1 - q->y0) / q->rows;
    if (!(x >= q->x0 && y >= q->y0))
        return -1;
    const int e = x >= q->x0 + ew * half_up(q->cols), n = y >= q->y0 + ns * half_up(q->rows);
    return e && n ? NE : e ? SE : n ? NW : SW;
}

/* Point i into leaf q unless one it holds is within dmin: 1, 0 (dropped),
 * -1 out of memory. */
static int qadd(qnode *q, const double *x, const double *y, int i, double d2)
{
    for (int k = 0; k < q->n; k++) {
        const double dx = x[q->pts[k]] - x[i], dy = y[q->pts[k]] - y[i];
        if (dx * dx + dy * dy <= d2)
            return 0;
    }
    if (q->n == q->cap) {
        const int cap = q->cap ? 2 * q->cap : 8;
        int *p = realloc(q->pts, (size_t)cap * sizeof *p);
        if (!p)
            return -1;
        q->pts = p, q->cap = cap;
    }
    q->pts[q->n++] = i;
    return 1;
}

/* Splits leaf q into four by its cells: 0, 1 (a side of one cell: the
 * points are too concentrated), -1 out of memory. */
static int qdivide(qnode *q, const double *x, const double *y, double d2)
{
    if (q->cols <= 1 || q->rows <= 1)
        return 1;
    const double ew = (q->x1 - q->x0) / q->cols, ns = (q->y1 - q->y0) / q->rows;
    const int c1 = half_up(q->cols), c2 = q->cols / 2, r1 = half_up(q->rows), r2 = q->rows / 2;
    const double xm = q->x0 + c1 * ew, ym = q->y0 + r1 * ns;
    q->kid[NE] = qnew(xm, ym, q->x1, q->y1, r2, c2);
    q->kid[SW] = qnew(q->x0, q->y0, xm, ym, r1, c1);
    q->kid[SE] = qnew(xm, q->y0, q->x1, ym, r1, c2);
    q->kid[NW] = qnew(q->x0, ym, xm, q->y1, r2, c1);
    for (int k = 0; k < 4; k++)
        if (!q->kid[k])
            return -1;
    for (int k = 0; k < q->n; k++) {
        const int c = qchild(q, x[q->pts[k]], y[q->pts[k]]);
        if (c >= 0 && qadd(q->kid[c], x, y, q->pts[k], d2) < 0)
            return -1;
    }
    free(q->pts);
    q->pts = NULL, q->n = q->cap = 0;
    return 0;
}

/* 1 kept, 0 dropped, 2 too concentrated, -1 out of memory. */
static int qinsert(qnode *q, const double *x, const double *y, int i, int segmax, double d2)
{
    for (;;) {
        if (q->kid[0]) {
            const int c = qchild(q, x[i], y[i]);
            if (c < 0)
                return 0; /* cannot happen inside the region */
            q = q->kid[c];
        } else if (q->n < segmax) {
            return qadd(q, x, y, i, d2);
        } else {
            const int rc = qdivide(q, x, y, d2);
            if (rc)
                return rc > 0 ? 2 : -1;
        }
    }
}

static void qshift(qnode *q, double dx, double dy)
{
    q->x0 -= dx, q->x1 -= dx, q->y0 -= dy, q->y1 -= dy;
    for (int k = 0; q->kid[0] && k < 4; k++)
        qshift(q->kid[k], dx, dy);
}

/* The leaves in GRASS's order (depth first, NW NE SW SE), with their cells. */
static int qleaves(qnode *q, int col0, int row0, const qnode **out, int *cr, int n)
{
    if (!q->kid[0]) {
        q->id = n;
        out[n] = q, cr[2 * n] = col0, cr[2 * n + 1] = row0;
        return n + 1;
    }
    const int c1 = half_up(q->cols), r1 = half_up(q->rows);
    n = qleaves(q->kid[NW], col0, row0 + r1, out, cr, n);
    n = qleaves(q->kid[NE], col0 + c1, row0 + r1, out, cr, n);
    n = qleaves(q->kid[SW], col0, row0, out, cr, n);
    return qleaves(q->kid[SE], col0 + c1, row0, out, cr, n);
}

static int qcount(const qnode *q)
{
    return q->kid[0] ? qcount(q->kid[0]) + qcount(q->kid[1]) + qcount(q->kid[2]) + qcount(q->kid[3])
                     : 1;
}

/* ---- a leaf's window (GRASS's region_data, its quirks kept) --------------- */

typedef struct {
    double x0, y0, x1, y1;
} win;

static int touches(const win *w, const qnode *q)
{
    return ((q->x0 >= w->x0 && q->x0 <= w->x1 &&
             ((q->y0 >= w->y0 && q->y0 <= w->y1) || (w->y0 >= q->y0 && w->y0 <= q->y1))) ||
            (w->x0 >= q->x0 && w->x0 <= q->x1 &&
             ((w->y0 >= q->y0 && w->y0 <= q->y1) || (q->y0 >= w->y0 && q->y0 <= w->y1))));
}

/* The points strictly inside w, appended to out (room for max + 1); their
 * count, or max + 1 as soon as more would come (GRASS's MAX). */
static int region_data(const qnode *q, const win *w, int max, const double *x, const double *y,
                       int *out, int *nout)
{
    if (!touches(w, q))
        return 0;
    if (q->kid[0]) {
        int n = 0;
        for (int k = 0; k < 4; k++) {
            n += region_data(q->kid[(int[]){NW, NE, SW, SE}[k]], w, max - n, x, y, out, nout);
            if (n > max)
                return n;
        }
        return n;
    }
    int l = 0;
    for (int k = 0; k < q->n; k++) {
        if (l >= max)
            return max + 1;
        const int i = q->pts[k];
        if (w->x0 < x[i] && x[i] < w->x1 && w->y0 < y[i] && y[i] < w->y1) {
            out[(*nout)++] = i;
            l++;
        }
    }
    return l;
}

/* ---- GRASS's solver ------------------------------------------------------------ */

/* Crout's LU with implicit scaled partial pivoting (Press et al., Numerical
 * Recipes, ludcmp), in its order of operations, as GRASS's G_ludcmp solves
 * v.surf.rst's systems: the same doubles, so that the derivatives' sums,
 * which cancel, round to GRASS's Float32. 0, or 1 for a row of zeros.
 *
 * Every element (i, j) is a(i, j) less a(i, k) a(k, j) for k < min(i, j),
 * subtracted one by one in ascending k, as in ludcmp; what changes is the
 * order in which elements advance. a is held by columns (element (i, k) at
 * a[k n + i]; the system is symmetric, so its rows as given), and the
 * columns go in panels of P: the terms before a panel (k below its first
 * column) are subtracted from a block of R rows by P columns in registers,
 * reading the rows' part of the factor once for P columns; then the panel's
 * own columns follow ludcmp, pivots included. (ludcmp's walk down a column
 * of a row-major matrix, one chain of dependent subtractions, made the
 * segments' solves most of rst's time.) */
#define A_(i, k) a[(size_t)(k)*n + (i)]
enum { CR_R = 8, CR_P = 4 };
#if defined(__GNUC__) || defined(__clang__)
/* four doubles, lane by lane as scalars would be (no FMA: see the pragma) */
typedef double cr_v4 __attribute__((vector_size(32), aligned(8), may_alias));
typedef double cr_v2 __attribute__((vector_size(16), aligned(8), may_alias));
#endif

/* Elements (i0 .. i0 + m, j0 .. j0 + np) less their terms k0 <= k < k1. */
static inline __attribute__((always_inline)) void
crout_terms(double *a, int n, int i0, int m, int j0, int np, int k0, int k1, int wide)
{
#if defined(__GNUC__) || defined(__clang__)
    if (m == CR_R && np == CR_P && wide) { /* 8 rows x 4 columns, four lanes a vector */
        cr_v4 acc4[CR_P][2];
        for (int q = 0; q < CR_P; q++)
            acc4[q][0] = *(const cr_v4 *)&A_(i0, j0 + q),
            acc4[q][1] = *(const cr_v4 *)&A_(i0 + 4, j0 + q);
        for (int k = k0; k < k1; k++) {
            const cr_v4 l0 = *(const cr_v4 *)&A_(i0, k), l1 = *(const cr_v4 *)&A_(i0 + 4, k);
            for (int q = 0; q < CR_P; q++) {
                const double u = A_(k, j0 + q);
                acc4[q][0] -= l0 * u;
                acc4[q][1] -= l1 * u;
            }
        }
        for (int q = 0; q < CR_P; q++)
            *(cr_v4 *)&A_(i0, j0 + q) = acc4[q][0], *(cr_v4 *)&A_(i0 + 4, j0 + q) = acc4[q][1];
        return;
    }
    if (m == CR_R && np == CR_P) { /* two lanes: 8 rows x 2 columns at a time */
        for (int q0 = 0; q0 < CR_P; q0 += 2) {
            cr_v2 acc2[2][4];
            for (int q = 0; q < 2; q++)
                for (int v = 0; v < 4; v++)
                    acc2[q][v] = *(const cr_v2 *)&A_(i0 + 2 * v, j0 + q0 + q);
            for (int k = k0; k < k1; k++) {
                cr_v2 l[4];
                for (int v = 0; v < 4; v++)
                    l[v] = *(const cr_v2 *)&A_(i0 + 2 * v, k);
                for (int q = 0; q < 2; q++) {
                    const double u = A_(k, j0 + q0 + q);
                    for (int v = 0; v < 4; v++)
                        acc2[q][v] -= l[v] * u;
                }
            }
            for (int q = 0; q < 2; q++)
                for (int v = 0; v < 4; v++)
                    *(cr_v2 *)&A_(i0 + 2 * v, j0 + q0 + q) = acc2[q][v];
        }
        return;
    }
#endif
    double acc[CR_P][CR_R];
    for (int q = 0; q < np; q++)
        for (int r = 0; r < m; r++)
            acc[q][r] = A_(i0 + r, j0 + q);
    for (int k = k0; k < k1; k++) {
        const double *col = a + (size_t)k * n + i0;
        for (int q = 0; q < np; q++) {
            const double u = A_(k, j0 + q);
            for (int r = 0; r < m; r++)
                acc[q][r] -= col[r] * u;
        }
    }
    for (int q = 0; q < np; q++)
        for (int r = 0; r < m; r++)
            A_(i0 + r, j0 + q) = acc[q][r];
}

static inline __attribute__((always_inline)) int crout_lu_body(double *a, int n, int *indx,
                                                               double *vv, int wide)
{
    for (int i = 0; i < n; i++) {
        double big = 0.0;
        for (int j = 0; j < n; j++) { /* fmax's value without its call (no NaN here) */
            const double v = fabs(A_(i, j));
            big = v > big ? v : big;
        }
        if (big == 0.0)
            return 1;
        vv[i] = 1.0 / big;
    }
    for (int j0 = 0; j0 < n; j0 += CR_P) {
        const int np = j0 + CR_P <= n ? CR_P : n - j0;
        /* rows above the panel (its U): a block takes the terms before it,
         * then its own triangle, row after row */
        for (int i0 = 0; i0 < j0; i0 += CR_R) {
            const int m = i0 + CR_R <= j0 ? CR_R : j0 - i0;
            crout_terms(a, n, i0, m, j0, np, 0, i0, wide);
            for (int k = i0; k < i0 + m; k++)
                crout_terms(a, n, k + 1, i0 + m - k - 1, j0, np, k, k + 1, wide);
        }
        /* rows from the panel down: every term before it */
        for (int i0 = j0; i0 < n; i0 += CR_R)
            crout_terms(a, n, i0, i0 + CR_R <= n ? CR_R : n - i0, j0, np, 0, j0, wide);
        /* the panel's columns, as ludcmp: their terms inside the panel, the pivot */
        for (int j = j0; j < j0 + np; j++) {
            double *c = a + (size_t)j * n; /* column j */
            for (int i = j0; i < n; i++) {
                double sum = c[i];
                const int k1 = i < j ? i : j;
                for (int k = j0; k < k1; k++)
                    sum -= A_(i, k) * c[k];
                c[i] = sum;
            }
            double big = 0.0;
            int imax = j;
            for (int i = j; i < n; i++) {
                const double dum = vv[i] * fabs(c[i]);
                if (dum >= big) /* the last largest */
                    big = dum, imax = i;
            }
            if (j != imax) {
                for (int k = 0; k < n; k++) {
                    const double t = A_(imax, k);
                    A_(imax, k) = A_(j, k), A_(j, k) = t;
                }
                vv[imax] = vv[j];
            }
            indx[j] = imax;
            if (c[j] == 0.0)
                c[j] = 1e-20;
            if (j != n - 1) {
                const double dum = 1.0 / c[j];
                for (int i = j + 1; i < n; i++)
                    c[i] *= dum;
            }
        }
    }
    return 0;
}

/* With the CPU's widest vectors: each entry's operations are the same (no
 * FMA), so are its doubles (tests/core/test_same_bytes.c). */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("avx2"))) static int crout_lu_avx2(double *a, int n, int *indx, double *vv)
{
    return crout_lu_body(a, n, indx, vv, 1);
}
#endif

static int crout_lu(double *a, int n, int *indx, double *vv)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (gk_cpu_level() >= GK_ISA_AVX2)
        return crout_lu_avx2(a, n, indx, vv);
#endif
    return crout_lu_body(a, n, indx, vv, 0);
}

/* The solve with crout_lu's factor (lubksb: leading zeros of b skipped). */
static void crout_solve(const double *a, int n, const int *indx, double *b)
{
    int ii = -1;
    for (int i = 0; i < n; i++) {
        const int ip = indx[i];
        double sum = b[ip];
        b[ip] = b[i];
        if (ii >= 0)
            for (int j = ii; j < i; j++)
                sum -= A_(i, j) * b[j];
        else if (sum != 0.0)
            ii = i;
        b[i] = sum;
    }
    for (int i = n - 1; i >= 0; i--) {
        double sum = b[i];
        for (int j = i + 1; j < n; j++)
            sum -= A_(i, j) * b[j];
        b[i] = sum / A_(i, i);
    }
}
#undef A_

/* ---- the segments ---------------------------------------------------------- */

void gk_rst_segments_free(gk_rst_segments *s)
{
    if (!s)
        return;
    for (int k = 0; s->lv && k < s->nleaf; k++)
        free(s->lv[k].xn), free(s->lv[k].yn), free(s->lv[k].b);
    free(s->lv);
    qfree(s->root);
    free(s->x), free(s->y), free(s->z), free(s->val);
    free(s);
}

int gk_rst_segments_of(const gk_rst_segments *s, const gk_grid *g)
{
    return s && !memcmp(&s->g, g, sizeof *g);
}

int gk_rst_segments_count(const gk_rst_segments *s) { return s ? s->nleaf : 0; }

/* Leaf L's window (GRASS's interp_segments for one leaf): its points in
 * its units and, in L->b, its system's right-hand side: 0, -1 out of memory. */
static int window_leaf(const gk_rst_segments *s, const qnode *q, leaf *L, double smseg,
                       double dnorm, int kmin, int kmax2, int *buf)
{
    const qnode *r = s->root;
    const double ew_r = (r->x1 - r->x0) / s->g.nx, ns_r = (r->y1 - r->y0) / s->g.ny;
    double distx = (q->cols * ew_r) * 0.1, disty = (q->rows * ns_r) * 0.1, distxp = 0, distyp = 0;
    const double xmn = q->x0, xmx = q->x1, ymn = q->y0, ymx = q->y1;
    const double pr = pow(2.0, (xmx - xmn) / smseg - 1.0);
    const int minpts = (int)(kmin * (pr / (1 + kmin * pr / kmax2)));
    int maxenc = 0, n = 0;
    win w = {xmn - distx, ymn - disty, xmx + distx, ymx + disty};
    int npt = region_data(r, &w, kmax2, s->x, s->y, buf, &n);
    for (int i = 0; (npt < minpts || npt > kmax2) && i < 70; i++) {
        if (npt > kmax2) { /* shrink */
            maxenc = 1;
            double t = distxp;
            distxp = distx, distx = distxp - fabs(distx - t) * 0.5;
            t = distyp;
            distyp = disty, disty = distyp - fabs(disty - t) * 0.5;
        } else { /* grow */
            const double t1 = distyp, t2 = distxp;
            distyp = disty, distxp = distx;
            if (maxenc)
                disty = fabs(disty - t1) * 0.5 + distyp, distx = fabs(distx - t2) * 0.5 + distxp;
            else
                distx += distx, disty += disty;
        }
        w = (win){xmn - distx, ymn - disty, xmx + distx, ymx + disty};
        n = 0;
        npt = region_data(r, &w, kmax2, s->x, s->y, buf, &n);
    }
    const int N = n + 1;
    L->n = n;
    L->xn = malloc((n ? n : 1) * sizeof *L->xn);
    L->yn = malloc((n ? n : 1) * sizeof *L->yn);
    L->b = malloc((size_t)N * sizeof *L->b);
    if (!L->xn || !L->yn || !L->b)
        return -1;
    for (int k = 0; k < n; k++)
        L->xn[k] = (s->x[buf[k]] - xmn) / dnorm, L->yn[k] = (s->y[buf[k]] - ymn) / dnorm;
    L->b[0] = 0.0;
    for (int k = 1; k < N; k++)
        L->b[k] = s->z[buf[k - 1]];
    const double sew = (xmx - xmn) / q->cols, sns = (ymx - ymn) / q->rows;
    L->stx = sew / dnorm, L->sty = sns / dnorm;
    return 0;
}

/* Leaf L's system solved in place of its right-hand side: 0, -1 out of
 * memory. */
static int solve_leaf(const gk_rst_segments *s, leaf *L, double smooth)
{
    const int n = L->n, N = n + 1;
    double *A = malloc((size_t)N * N * sizeof *A), *vv = malloc((size_t)N * sizeof *vv);
    int *piv = malloc((size_t)N * sizeof *piv);
    if (!A || !piv || !vv) {
        free(A), free(piv), free(vv);
        return -1;
    }
    for (int k = 0; k < N; k++) /* symmetric: each pair once */
        for (int l = k; l < N; l++)
            A[(size_t)k * N + l] = A[(size_t)l * N + k] =
                gk_rst_system_entry(k, l, L->xn, L->yn, s->fi, smooth);
    L->singular = n == 0 || crout_lu(A, N, piv, vv);
    if (!L->singular)
        crout_solve(A, N, piv, L->b);
    for (int k = 0; k < N && !L->singular; k++)
        L->singular = !isfinite(L->b[k]);
    free(A), free(piv), free(vv);
    return 0;
}

gk_rst_segments *gk_rst_segments_new(gk_context *ctx, const gk_points *pts, const gk_grid *g,
                                     const gk_rst_seg_params *p, size_t *dropped, size_t *outside)
{
    gk_rst_segments *s = calloc(1, sizeof *s);
    const size_t n = pts->n;
    if (!s)
        goto nomem;
    s->g = *g;
    s->fi = p->tension;
    s->x = malloc((n ? n : 1) * sizeof *s->x);
    s->y = malloc((n ? n : 1) * sizeof *s->y);
    s->z = malloc((n ? n : 1) * sizeof *s->z);
    s->root = qnew(g->xmin, g->ymin, g->xmax, g->ymax, g->ny, g->nx);
    if (!s->x || !s->y || !s->z || !s->root)
        goto nomem;
    const double W = g->xmin, E = g->xmax, S = g->ymin, N = g->ymax, d2 = p->dmin * p->dmin;
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY, zmin = INFINITY;
    size_t m = 0, kept = 0;
    *dropped = *outside = 0;
    for (size_t i = 0; i < n; i++) {
        const double x = pts->x[i], y = pts->y[i], z = pts->z[i] * p->zscale;
        if (!(x - W >= 0 && E - x >= 0 && y - S >= 0 && N - y >= 0)) {
            ++*outside;
            continue;
        }
        s->x[m] = x, s->y[m] = y, s->z[m] = z;
        const int rc = qinsert(s->root, s->x, s->y, (int)m, p->segmax, d2);
        if (rc < 0)
            goto nomem;
        if (rc == 2) {
            gk_error(ctx, GK_ERR_ARG,
                     "rst: the points are too concentrated: a cell holds more than segmax=%d "
                     "of them beyond dmin=%.15g (give a larger dmin or segmax)",
                     p->segmax, p->dmin);
            goto fail;
        }
        kept += rc, *dropped += !rc, m++;
        x0 = fmin(x0, x), x1 = fmax(x1, x), y0 = fmin(y0, y), y1 = fmax(y1, y);
        zmin = fmin(zmin, z);
    }
    if (!kept) {
        gk_error(ctx, GK_ERR_ARG, "rst: no point inside the grid's extent");
        goto fail;
    }
    const int kmax2 = 2 * p->npmin, kmin = kept < (size_t)p->npmin ? (int)kept : p->npmin;
    if (kept > (size_t)kmax2 && kmin <= p->segmax) {
        gk_error(ctx, GK_ERR_ARG,
                 "rst: npmin=%d must be larger than segmax=%d for the segments to join "
                 "smoothly (v.surf.rst's rule with more than 2 npmin points)",
                 p->npmin, p->segmax);
        goto fail;
    }
    const double dnorm = sqrt(((x1 - x0) * (y1 - y0) * p->npmin) / (double)kept);
    if (!(dnorm > 0) || !isfinite(dnorm)) {
        gk_error(ctx, GK_ERR_ARG,
                 "rst: the points' box has no area (all on one line of x or y): its distances "
                 "cannot be normalised");
        goto fail;
    }
    for (size_t i = 0; i < m; i++)
        s->x[i] -= W, s->y[i] -= S, s->z[i] -= zmin;
    qshift(s->root, W, S);
    s->zmin = zmin;
    s->dnorm = dnorm;
    s->nleaf = qcount(s->root);
    const qnode **lq = malloc((size_t)s->nleaf * sizeof *lq);
    int *cr = malloc((size_t)s->nleaf * 2 * sizeof *cr);
    s->lv = calloc((size_t)s->nleaf, sizeof *s->lv);
    if (!lq || !cr || !s->lv) {
        free(lq), free(cr);
        goto nomem;
    }
    qleaves(s->root, 0, 0, lq, cr, 0);
    double smseg = INFINITY;
    for (int k = 0; k < s->nleaf; k++) {
        smseg = fmin(smseg, lq[k]->x1 - lq[k]->x0);
        s->lv[k] = (leaf){cr[2 * k], cr[2 * k + 1], lq[k]->cols, lq[k]->rows, 0, 0, 0,
                          1,         NULL,          NULL,        NULL};
    }
    int bad = 0;
#pragma omp parallel num_threads(p->threads) reduction(| : bad)
    {
        int *buf = malloc(((size_t)kmax2 + 2 + m) * sizeof *buf);
        bad |= !buf;
#pragma omp for schedule(dynamic, 1)
        for (int k = 0; k < s->nleaf; k++)
            if (buf)
                bad |= window_leaf(s, lq[k], &s->lv[k], smseg, dnorm, kmin, kmax2, buf) != 0;
        free(buf);
    }
    free(lq), free(cr);
    if (bad)
        goto nomem;
    /* with --device cuda, the GPU solves and values them (not when the CPU
     * needs the coefficients: derivatives); else the cores solve them, and
     * the GPU may value the nodes */
    int on = p->values_only ? gk_rst_segments_gpu(ctx, s, 1, p->smooth) : 0;
    if (on < 0)
        goto fail;
    if (!on) {
#pragma omp parallel for num_threads(p->threads) schedule(dynamic, 1) reduction(| : bad)
        for (int k = 0; k < s->nleaf; k++)
            bad |= solve_leaf(s, &s->lv[k], p->smooth) != 0;
        if (bad)
            goto nomem;
        if (gk_rst_segments_gpu(ctx, s, 0, p->smooth) < 0)
            goto fail;
    }
    return s;
nomem:
    gk_error(ctx, GK_ERR_NOMEM, "rst: out of memory for the segments");
fail:
    gk_rst_segments_free(s);
    return NULL;
}

/* The leaf holding node (col, row), and the node's place in its units. */
static const leaf *leaf_of(const gk_rst_segments *s, int col, int row, double *xg, double *yg)
{
    const int k = s->g.ny - 1 - row; /* from the south */
    const qnode *q = s->root;
    int c0 = 0, r0 = 0;
    while (q->kid[0]) { /* down by cells: west and south halves take ceil(cols/2), ceil(rows/2) */
        const int c1 = half_up(q->cols), r1 = half_up(q->rows);
        const int e = col >= c0 + c1, nn = k >= r0 + r1;
        c0 += e ? c1 : 0, r0 += nn ? r1 : 0;
        q = q->kid[e && nn ? NE : e ? SE : nn ? NW : SW];
    }
    const leaf *L = &s->lv[q->id];
    *xg = (col - L->col0) * L->stx + L->stx / 2.0;
    *yg = (k - L->row0) * L->sty + L->sty / 2.0;
    return L;
}

double gk_rst_segments_value(const gk_rst_segments *s, int col, int row)
{
    if (s->val)
        return s->val[(size_t)row * s->g.nx + col];
    double xg, yg;
    const leaf *L = leaf_of(s, col, row, &xg, &yg);
    if (L->singular)
        return NAN;
    double h = L->b[0];
    for (int m = 0; m < L->n; m++) {
        const double dx = xg - L->xn[m], dy = yg - L->yn[m];
        h += L->b[m + 1] * gk_rbf_rst_x(s->fi * s->fi * (dx * dx + dy * dy) / 4);
    }
    return h + s->zmin;
}

int gk_rst_segments_sums(const gk_rst_segments *s, int col, int row, double *D, int *col0)
{
    double xg, yg;
    const leaf *L = leaf_of(s, col, row, &xg, &yg);
    *col0 = L->col0;
    D[0] = D[1] = D[2] = D[3] = D[4] = 0;
    if (L->singular)
        return -1;
    for (int m = 0; m < L->n; m++)
        gk_rst_sums_add(xg - L->xn[m], yg - L->yn[m], s->fi, L->b[m + 1], D);
    return 0;
}

double gk_rst_segments_dnorm(const gk_rst_segments *s) { return s->dnorm; }

/* The GPU's copy of the nodes' values (core/gpu_abi.h's gk_gpu_rst): the
 * leaves as the kernel reads them, packed one after another. */
int gk_rst_segments_gpu(gk_context *ctx, gk_rst_segments *s, int solve, double smooth)
{
    const size_t N = (size_t)s->g.nx * s->g.ny, nl = (size_t)s->nleaf;
    int code;
    if (gk_device_requested(ctx, &code))
        return -1;
    /* only asked for by name: the GPU's exp and log are not the C library's,
     * so auto keeps GRASS's bits (rst.c's row says so on the device line);
     * the grid's doubles over 2 GiB: the CPU's */
    if (code < GK_DEV_CUDA || N > ((size_t)1 << 28) || nl == 0)
        return 0;
    size_t np = 0;
    int maxn = 0;
    for (size_t k = 0; k < nl; k++)
        np += (size_t)s->lv[k].n, maxn = s->lv[k].n > maxn ? s->lv[k].n : maxn;
    int *lf = malloc(5 * nl * sizeof *lf);
    size_t *off = malloc((nl + 1) * sizeof *off);
    double *step = malloc(2 * nl * sizeof *step), *xn = malloc((np ? np : 1) * sizeof *xn);
    double *yn = malloc((np ? np : 1) * sizeof *yn), *b = malloc((np + nl) * sizeof *b);
    double *val = malloc(N * sizeof *val);
    int rc = -1;
    if (!lf || !off || !step || !xn || !yn || !b || !val) {
        gk_error(ctx, GK_ERR_NOMEM, "rst: out of memory for the segments' values");
        goto done;
    }
    off[0] = 0;
    for (size_t k = 0; k < nl; k++) {
        const leaf *L = &s->lv[k];
        const size_t o = off[k], n = (size_t)L->n;
        lf[5 * k] = L->col0, lf[5 * k + 1] = L->row0, lf[5 * k + 2] = L->cols;
        lf[5 * k + 3] = L->rows, lf[5 * k + 4] = solve ? L->n == 0 : L->singular;
        step[2 * k] = L->stx, step[2 * k + 1] = L->sty;
        if (n) {
            memcpy(xn + o, L->xn, n * sizeof *xn);
            memcpy(yn + o, L->yn, n * sizeof *yn);
        }
        if (L->b)
            memcpy(b + o + k, L->b, (n + 1) * sizeof *b);
        else
            memset(b + o + k, 0, (n + 1) * sizeof *b);
        off[k + 1] = o + n;
    }
    gk_gpu_rst d = {.nx = s->g.nx,
                    .ny = s->g.ny,
                    .nleaf = s->nleaf,
                    .leaf = lf,
                    .step = step,
                    .off = off,
                    .xn = xn,
                    .yn = yn,
                    .b = b,
                    .fi = s->fi,
                    .zmin = s->zmin,
                    .solve = solve,
                    .smooth = smooth,
                    .maxn = maxn,
                    .out = val};
    rc = gk_device_rst_sums(ctx, &d, (double)N * ((double)np / (double)nl));
    if (rc == 1)
        s->val = val, val = NULL;
done:
    free(lf), free(off), free(step), free(xn), free(yn), free(b), free(val);
    return rc;
}
