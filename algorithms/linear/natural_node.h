/* SPDX-License-Identifier: MIT */
/*
 * natural_node.h - one node of `natural` (natural.c) inside the hull, shared
 * with the CUDA module (gpu/natural.cu) so that both compute it with the same
 * operations in the same order: the node's cavity in the triangulation, its
 * boundary from the smallest vertex number, the weights and their sums.
 * The conflict test is the includer's: exact on the CPU (filter, then
 * expansions), the filter alone on the GPU, whose undecided nodes go to the
 * CPU. Compiled without contraction on both sides (ISO C; nvcc
 * -fmad=false), the GPU's values are the CPU's bits.
 */
#ifndef GK_NATURAL_NODE_H
#define GK_NATURAL_NODE_H

#include "exact_predicates.h"

#include <math.h>

#ifdef __CUDACC__
#define GK_NN_FN static inline __host__ __device__
#define GK_NN_INCIRCLE(a, b, c, d) gk_incircle_filter(a, b, c, d)
#else
#include "delaunay_sweep.h"
#define GK_NN_FN static inline
#define GK_NN_INCIRCLE(a, b, c, d) gk_incircle(a, b, c, d)
#endif

enum { GK_NN_SIBSON = 0, GK_NN_LAPLACE = 1, GK_NN_SIBSON_C1 = 2 };

/* The triangulation as tin.h holds it: counter-clockwise triangles, the
 * neighbour across the edge opposite vertex k (-1: hull), values by vertex;
 * cc: each triangle's circumcentre about its first vertex, as
 * gk_nn_circumcentre computes it (NULL: computed at each use); grad: each
 * vertex's gradient (type=sibson_c1; NaN: none, a hull vertex). */
typedef struct {
    const double *xy;
    const int *vertex, *neighbor;
    const double *z, *cc, *grad;
} gk_nn_tin;

/* What gk_nn_dig returns besides GK_NN_OK. */
enum { GK_NN_OK = 0, GK_NN_FULL = -1, GK_NN_UNSURE = -2, GK_NN_BAD = -3 };

/* The cavity: c[0..nc) its triangles; its boundary edge i from vertex ea[i]
 * to eb[i] in triangle eu[i], counter-clockwise from the smallest ea. */
typedef struct {
    int *c, *ea, *eb, *eu;
    int nc, m;
} gk_nn_cavity;

GK_NN_FN const double *gk_nn_xy(const gk_nn_tin *T, int v) { return T->xy + 2 * (size_t)v; }

GK_NN_FN int gk_nn_listed(const int *c, int n, int u)
{
    for (int i = 0; i < n; i++)
        if (c[i] == u)
            return 1;
    return 0;
}

/* The cavity of q, which triangle t holds (not on a vertex): cv's arrays
 * hold cap triangles and cap + 2 edges. GK_NN_FULL: more than cap;
 * GK_NN_UNSURE: a conflict test undecided (the GPU's filter). */
GK_NN_FN int gk_nn_dig(const gk_nn_tin *T, int t, const double *q, int cap, gk_nn_cavity *cv)
{
    /* breadth first from t; an edge whose far side is the hull or out of
     * conflict is on the boundary (a star-shaped cavity of nc triangles has
     * nc + 2 of them) */
    int *c = cv->c, *ea = cv->ea, *eb = cv->eb, *eu = cv->eu, nc = 0, m = 0;
    c[nc++] = t;
    for (int h = 0; h < nc; h++) {
        const int u = c[h];
        const int *nb = T->neighbor + 3 * (size_t)u, *vu = T->vertex + 3 * (size_t)u;
        for (int k = 0; k < 3; k++) {
            const int w = nb[k];
            if (w >= 0 && gk_nn_listed(c, nc, w))
                continue; /* inside, met before */
            int s = -1;
            if (w >= 0) {
                const int *v = T->vertex + 3 * (size_t)w;
                s = GK_NN_INCIRCLE(gk_nn_xy(T, v[0]), gk_nn_xy(T, v[1]), gk_nn_xy(T, v[2]), q);
                if (s == GK_ORIENT_UNSURE)
                    return GK_NN_UNSURE;
            }
            if (s > 0) {
                if (nc == cap)
                    return GK_NN_FULL;
                c[nc++] = w;
            } else {
                if (m == cap + 2)
                    return GK_NN_BAD; /* not a star: cannot happen with exact tests */
                ea[m] = vu[(k + 1) % 3];
                eb[m] = vu[(k + 2) % 3];
                eu[m++] = u;
            }
        }
    }
    if (m != nc + 2)
        return GK_NN_BAD;
    /* into a cycle from the smallest vertex number */
    int first = 0;
    for (int i = 1; i < m; i++)
        if (ea[i] < ea[first])
            first = i;
    for (int i = 0; i < m; i++) {
        int j = i == 0 ? first : -1;
        for (int l = i; i > 0 && l < m && j < 0; l++)
            if (ea[l] == eb[i - 1])
                j = l;
        if (j < 0)
            return GK_NN_BAD;
        const int ta = ea[i], tb = eb[i], tu = eu[i];
        ea[i] = ea[j], eb[i] = eb[j], eu[i] = eu[j];
        ea[j] = ta, eb[j] = tb, eu[j] = tu;
    }
    if (eb[m - 1] != ea[0])
        return GK_NN_BAD;
    cv->nc = nc;
    cv->m = m;
    return GK_NN_OK;
}

/* Centre of the circle through the origin, a and b. */
GK_NN_FN void gk_nn_cc0(const double *a, const double *b, double *c)
{
    const double d = 2.0 * (a[0] * b[1] - a[1] * b[0]);
    const double la = a[0] * a[0] + a[1] * a[1], lb = b[0] * b[0] + b[1] * b[1];
    c[0] = (b[1] * la - a[1] * lb) / d;
    c[1] = (a[0] * lb - b[0] * la) / d;
}

/* Triangle u's circumcentre about its first vertex. */
GK_NN_FN void gk_nn_cc_local(const gk_nn_tin *T, int u, double *c)
{
    const int *v = T->vertex + 3 * (size_t)u;
    const double *A = gk_nn_xy(T, v[0]), *B = gk_nn_xy(T, v[1]), *C = gk_nn_xy(T, v[2]);
    const double b[2] = {B[0] - A[0], B[1] - A[1]}, e[2] = {C[0] - A[0], C[1] - A[1]};
    gk_nn_cc0(b, e, c);
}

/* Triangle u's circumcentre, about q: the local one moved, the same bits
 * whether cached or not. */
GK_NN_FN void gk_nn_circumcentre(const gk_nn_tin *T, int u, const double *q, double *c)
{
    if (T->cc) {
        c[0] = T->cc[2 * (size_t)u];
        c[1] = T->cc[2 * (size_t)u + 1];
    } else {
        gk_nn_cc_local(T, u, c);
    }
    const double *A = gk_nn_xy(T, T->vertex[3 * (size_t)u]);
    c[0] += A[0] - q[0];
    c[1] += A[1] - q[1];
}

/* Sibson's weight of the cavity's vertex ea[i]: the polygon g_i-1, the
 * circumcentres of the cavity's triangles at it (clockwise about it, from
 * the one on the edge in to the one on the edge out), g_i; shoelace. */
GK_NN_FN double gk_nn_stolen(const gk_nn_tin *T, const gk_nn_cavity *cv, int i, const double *g,
                             const double *q)
{
    const int p = cv->ea[i], ip = i == 0 ? cv->m - 1 : i - 1;
    double prev[2] = {g[2 * ip], g[2 * ip + 1]}, a2 = 0.0;
    int u = cv->eu[ip];
    for (int step = 0; step < cv->nc; step++) {
        double c[2];
        gk_nn_circumcentre(T, u, q, c);
        a2 += prev[0] * c[1] - prev[1] * c[0];
        prev[0] = c[0], prev[1] = c[1];
        const int *v = T->vertex + 3 * (size_t)u;
        const int j = v[0] == p ? 0 : v[1] == p ? 1 : 2;
        if (u == cv->eu[i] && v[(j + 1) % 3] == cv->eb[i])
            break; /* the edge out */
        u = T->neighbor[3 * (size_t)u + (j + 2) % 3];
    }
    a2 += prev[0] * g[2 * i + 1] - prev[1] * g[2 * i];
    a2 += g[2 * i] * g[2 * ip + 1] - g[2 * i + 1] * g[2 * ip];
    return 0.5 * fabs(a2);
}

/* Sibson's C1 value (Sibson 1980; CGAL's sibson_c1_interpolation, in its
 * order): the Sibson coordinates w_i / sw blend the linear interpolant and
 * the points' tangent planes at q. 0 when a neighbour has no gradient. */
GK_NN_FN int gk_nn_c1(const gk_nn_tin *T, const gk_nn_cavity *cv, const double *q, const double *w,
                      double sw, double *val)
{
    double t1 = 0.0, t2 = 0.0, t3 = 0.0, lin = 0.0, gi = 0.0;
    for (int i = 0; i < cv->m; i++) {
        const int p = cv->ea[i];
        const double gx = T->grad[2 * (size_t)p], gy = T->grad[2 * (size_t)p + 1];
        if (isnan(gx) || isnan(gy))
            return 0;
        const double *P = gk_nn_xy(T, p), f = T->z[p];
        const double c = w[i] / sw, dx = q[0] - P[0], dy = q[1] - P[1];
        const double d2 = dx * dx + dy * dy, d = sqrt(d2);
        t1 += c / d;
        t2 += c * d2;
        t3 += c * d;
        lin += c * f;
        gi += c / d * (f + (gx * dx + gy * dy));
    }
    const double t4 = t3 / t1;
    gi = gi / t1;
    *val = (t4 * lin + t2 * gi) / (t4 + t2);
    return 1;
}

/* The value at q from its cavity; g: room for 2 m doubles, w for m (the
 * weights, kept for sibson_c1; NULL for the others). 1 with *val, 2 with
 * Sibson's value where sibson_c1 has a neighbour without gradient, 0 when
 * the weights sum to nothing (cannot happen with exact tests). */
GK_NN_FN int gk_nn_value(const gk_nn_tin *T, const gk_nn_cavity *cv, const double *q, int type,
                         double *g, double *w, double *val)
{
    for (int i = 0; i < cv->m; i++) {
        const double *A = gk_nn_xy(T, cv->ea[i]), *B = gk_nn_xy(T, cv->eb[i]);
        const double a[2] = {A[0] - q[0], A[1] - q[1]}, b[2] = {B[0] - q[0], B[1] - q[1]};
        gk_nn_cc0(a, b, g + 2 * i);
    }
    double sw = 0.0, swz = 0.0;
    for (int i = 0; i < cv->m; i++) {
        double wi;
        if (type == GK_NN_LAPLACE) {
            const int ip = i == 0 ? cv->m - 1 : i - 1;
            const double *P = gk_nn_xy(T, cv->ea[i]);
            const double ex = g[2 * i] - g[2 * ip], ey = g[2 * i + 1] - g[2 * ip + 1];
            const double dx = P[0] - q[0], dy = P[1] - q[1];
            /* sqrt of sums, not hypot: correctly rounded on both devices */
            wi = sqrt(ex * ex + ey * ey) / sqrt(dx * dx + dy * dy);
        } else {
            wi = gk_nn_stolen(T, cv, i, g, q);
        }
        if (w)
            w[i] = wi;
        sw += wi;
        swz += wi * T->z[cv->ea[i]];
    }
    const double r = swz / sw;
    if (!(sw > 0.0) || !isfinite(r))
        return 0;
    if (type == GK_NN_SIBSON_C1 && w && T->grad) {
        double c1;
        if (gk_nn_c1(T, cv, q, w, sw, &c1) && isfinite(c1)) {
            *val = c1;
            return 1;
        }
        *val = r;
        return 2;
    }
    *val = r;
    return 1;
}

#endif
