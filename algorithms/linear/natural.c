/* SPDX-License-Identifier: MIT */
/*
 * linear/natural.c - `natural`: natural-neighbour interpolation, Sibson's
 * (1981) coordinates or, type=laplace, the non-Sibsonian ones (Belikov et
 * al. 1997, Sugihara 1999), on the triangulation `linear` locates nodes in
 * (tin.h), always the core's exact Delaunay one: a hook's need not be exact.
 *
 * A node q strictly inside the hull: the triangles whose circumcircle holds
 * q strictly (exact incircle) form a star-shaped cavity, the triangles q's
 * insertion would remove (Bowyer-Watson). Its boundary, counter-clockwise,
 * lists q's natural neighbours p_0 .. p_m-1. g_i, the centre of the circle
 * through q, p_i and p_i+1, is a vertex of q's Voronoi cell, so
 *  - Sibson: w_i = the area q's cell takes from p_i's: the convex polygon
 *    g_i-1, the circumcentres of the cavity's triangles at p_i in turn
 *    (the old cell's vertices q's cell swallows), g_i (Watson 1992);
 *  - Laplace: w_i = |g_i - g_i-1| / |q - p_i|, the shared Voronoi edge over
 *    the distance.
 * The value is sum w_i z_i / sum w_i, summed from the neighbour of smallest
 * number round the cycle: the numbering is the points' (tin.c), not the
 * walk's, so the bytes do not depend on tiles or threads. Coordinates are
 * taken about q, where the areas are small differences of small numbers.
 *
 * Defined answers where the coordinates are not: a node on a point takes its
 * value (coincident points: the first in input order, as linear); a node on
 * a hull edge, the linear interpolation along it (the limit of both
 * coordinates from inside, and CGAL's answer); outside the hull, nodata or
 * the nearest point within radius, as linear; fewer than 3 points, or all on
 * one line: as outside. Cocircular points (lattices) need nothing: their
 * Voronoi diagram, hence the answer, is unique, whichever triangles the sweep
 * chose.
 */
#include "delaunay.h"
#include "delaunay_sweep.h"
#include "linear.h"
#include "tin.h"
#include "core/method.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { NN_SIBSON, NN_LAPLACE };

typedef struct {
    int type;
} natural_params;
GK_ALG_OWN_FITS(natural_params);

static natural_params *params_of(gk_algorithm *a) { return GK_ALG_OWN(natural_params, a); }
static const natural_params *cparams_of(const gk_algorithm *a)
{
    return GK_ALG_OWN(const natural_params, a);
}

/* ---- parameters -------------------------------------------------------- */

static void canonical(gk_algorithm *a)
{
    gk_strbuf sb = {a->canonical, sizeof a->canonical, 0};
    gk_strbuf_add(&sb, "natural:type=%s:radius=%.17g:nodata=%.17g",
                  cparams_of(a)->type == NN_LAPLACE ? "laplace" : "sibson", a->radius, a->nodata);
}

static int natural_parse(gk_context *ctx, const char *spec, char *save, gk_algorithm *a)
{
    natural_params *p = params_of(a);
    memset(p, 0, sizeof *p);
    a->radius = 0.0; /* outside the hull: nodata */
    for (char *tok = strtok_r(NULL, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq)
            return gk_error(ctx, GK_ERR_ARG, "-a %s: '%s' is not key=value", spec, tok);
        *eq = '\0';
        const char *k = tok, *val = eq + 1;
        if (!strcasecmp(k, "type")) {
            if (!strcasecmp(val, "sibson"))
                p->type = NN_SIBSON;
            else if (!strcasecmp(val, "laplace"))
                p->type = NN_LAPLACE;
            else
                return gk_error(ctx, GK_ERR_ARG, "-a natural: type=%s must be sibson or laplace",
                                val);
        } else if (!strcasecmp(k, "radius")) {
            if (gk_param_finite(ctx, "natural", k, val, &a->radius))
                return GK_ERR_ARG;
        } else if (!strcasecmp(k, "nodata")) {
            a->nodata_given = 1;
            if (gk_param_finite(ctx, "natural", k, val, &a->nodata))
                return GK_ERR_ARG;
        } else {
            return gk_error(ctx, GK_ERR_ARG,
                            "-a %s: algorithm natural has no parameter '%s' (type, radius, nodata)",
                            spec, k);
        }
    }
    canonical(a);
    return GK_OK;
}

/* ---- one node -------------------------------------------------------------- */

static inline const double *XY(const gk_tin *tin, int v) { return tin->xy + 2 * (size_t)v; }

enum { AT_INSIDE, AT_OUTSIDE };

/* Is q in the closed triangle u (exact)? */
static int holds(const gk_tin *tin, int u, const double *q)
{
    const int *v = tin->vertex + 3 * (size_t)u;
    for (int k = 0; k < 3; k++)
        if (gk_orient(XY(tin, v[(k + 1) % 3]), XY(tin, v[(k + 2) % 3]), q) < 0)
            return 0;
    return 1;
}

/* From *t, steps by exact orientation to the triangle whose closed area
 * holds q, or to a hull edge q is strictly beyond: the hull is convex, so q
 * is then outside. A visibility walk cannot cycle in a Delaunay
 * triangulation; the cap and the scan are for safety. */
static int locate(const gk_tin *tin, int *t, const double *q)
{
    int cur = *t;
    for (int step = 0; step <= tin->n_tri; step++) {
        const int *v = tin->vertex + 3 * (size_t)cur, *nb = tin->neighbor + 3 * (size_t)cur;
        int next = -1;
        for (int k = 0; k < 3 && next < 0; k++)
            if (gk_orient(XY(tin, v[(k + 1) % 3]), XY(tin, v[(k + 2) % 3]), q) < 0) {
                if (nb[k] < 0) {
                    *t = cur;
                    return AT_OUTSIDE;
                }
                next = nb[k];
            }
        if (next < 0) {
            *t = cur;
            return AT_INSIDE;
        }
        cur = next;
    }
    for (int u = 0; u < tin->n_tri; u++)
        if (holds(tin, u, q)) {
            *t = u;
            return AT_INSIDE;
        }
    return AT_OUTSIDE;
}

static inline int conflicts(const gk_tin *tin, int u, const double *q)
{
    const int *v = tin->vertex + 3 * (size_t)u;
    return gk_incircle(XY(tin, v[0]), XY(tin, v[1]), XY(tin, v[2]), q) > 0;
}

static int listed(const int *c, int n, int u)
{
    for (int i = 0; i < n; i++)
        if (c[i] == u)
            return 1;
    return 0;
}

/* Centre of the circle through the origin, a and b. */
static inline void cc0(const double *a, const double *b, double *c)
{
    const double d = 2.0 * (a[0] * b[1] - a[1] * b[0]);
    const double la = a[0] * a[0] + a[1] * a[1], lb = b[0] * b[0] + b[1] * b[1];
    c[0] = (b[1] * la - a[1] * lb) / d;
    c[1] = (a[0] * lb - b[0] * la) / d;
}

/* Triangle u's circumcentre, about q. */
static void circumcentre(const gk_tin *tin, int u, const double *q, double *c)
{
    const int *v = tin->vertex + 3 * (size_t)u;
    const double *A = XY(tin, v[0]), *B = XY(tin, v[1]), *C = XY(tin, v[2]);
    const double b[2] = {B[0] - A[0], B[1] - A[1]}, e[2] = {C[0] - A[0], C[1] - A[1]};
    cc0(b, e, c);
    c[0] += A[0] - q[0];
    c[1] += A[1] - q[1];
}

/* The cavity's boundary edge i: from vertex ea[i] to eb[i], in triangle eu[i]. */
typedef struct {
    int *c, nc;           /* the cavity's triangles */
    int *ea, *eb, *eu, m; /* its boundary, counter-clockwise from ea[0] */
} cavity;

/* The cavity of q, which triangle t holds (not on a vertex): -1 when out of
 * memory. */
static int dig(const gk_tin *tin, int t, const double *q, gk_scratch *s, cavity *cv)
{
    if (gk_scratch_reserve(s, 64) != GK_OK) /* 5 nc + 10 for nc = 1 */
        return -1;
    int nc = 0;
    s->idx[nc++] = t;
    for (int h = 0; h < nc; h++) {
        const int *nb = tin->neighbor + 3 * (size_t)s->idx[h];
        for (int k = 0; k < 3; k++) {
            const int w = nb[k];
            if (w < 0 || listed(s->idx, nc, w) || !conflicts(tin, w, q))
                continue;
            /* room for the lists below, and for g in s->d2 (2 m doubles) */
            if (5 * ((size_t)nc + 1) + 10 > s->cap &&
                gk_scratch_reserve(s, 5 * ((size_t)nc + 1) + 10) != GK_OK)
                return -1;
            s->idx[nc++] = w;
        }
    }
    /* a star-shaped cavity of nc triangles has nc + 2 boundary edges */
    int *c = s->idx, *ea = c + nc, *eb = ea + nc + 2, *eu = eb + nc + 2, m = 0;
    for (int h = 0; h < nc; h++) {
        const int *v = tin->vertex + 3 * (size_t)c[h], *nb = tin->neighbor + 3 * (size_t)c[h];
        for (int k = 0; k < 3; k++)
            if (nb[k] < 0 || !listed(c, nc, nb[k])) {
                if (m == nc + 2)
                    return -2; /* not a simple star: cannot happen with exact tests */
                ea[m] = v[(k + 1) % 3];
                eb[m] = v[(k + 2) % 3];
                eu[m++] = c[h];
            }
    }
    if (m != nc + 2)
        return -2;
    /* into a cycle from the smallest vertex number */
    int first = 0;
    for (int i = 1; i < m; i++)
        if (ea[i] < ea[first])
            first = i;
    for (int i = 0; i < m; i++) {
        int j = i == 0 ? first : -1;
        if (i > 0)
            for (int l = i; l < m && j < 0; l++)
                if (ea[l] == eb[i - 1])
                    j = l;
        if (j < 0)
            return -2;
        int ta = ea[i], tb = eb[i], tu = eu[i];
        ea[i] = ea[j], eb[i] = eb[j], eu[i] = eu[j];
        ea[j] = ta, eb[j] = tb, eu[j] = tu;
    }
    if (eb[m - 1] != ea[0])
        return -2;
    cv->c = c;
    cv->nc = nc;
    cv->ea = ea;
    cv->eb = eb;
    cv->eu = eu;
    cv->m = m;
    return 0;
}

/* Sibson's weight of the cavity's vertex ea[i]: the polygon g_i-1, the
 * circumcentres of the cavity's triangles at it (clockwise about it, from
 * the one on the edge in to the one on the edge out), g_i; shoelace. */
static double stolen_area(const gk_tin *tin, const cavity *cv, int i, const double *g,
                          const double *q)
{
    const int p = cv->ea[i], ip = i == 0 ? cv->m - 1 : i - 1;
    double prev[2] = {g[2 * ip], g[2 * ip + 1]}, a2 = 0.0;
    int u = cv->eu[ip];
    for (int step = 0; step < cv->nc; step++) {
        double c[2];
        circumcentre(tin, u, q, c);
        a2 += prev[0] * c[1] - prev[1] * c[0];
        prev[0] = c[0], prev[1] = c[1];
        const int *v = tin->vertex + 3 * (size_t)u;
        const int j = v[0] == p ? 0 : v[1] == p ? 1 : 2;
        if (u == cv->eu[i] && v[(j + 1) % 3] == cv->eb[i])
            break; /* the edge out */
        u = tin->neighbor[3 * (size_t)u + (j + 2) % 3];
    }
    a2 += prev[0] * g[2 * i + 1] - prev[1] * g[2 * i];
    a2 += g[2 * i] * g[2 * ip + 1] - g[2 * i + 1] * g[2 * ip];
    return 0.5 * fabs(a2);
}

/* q (in triangle t's closed area) strictly inside the hull, or on its edge,
 * or on a point: 1 with *val; -1 out of memory. */
static int inside_value(const gk_tin *tin, int t, const double *q, int type, gk_scratch *s,
                        double *val)
{
    const int *v = tin->vertex + 3 * (size_t)t, *nb = tin->neighbor + 3 * (size_t)t;
    int zeros = 0, zk = -1, zsum = 0;
    for (int k = 0; k < 3; k++)
        if (gk_orient(XY(tin, v[(k + 1) % 3]), XY(tin, v[(k + 2) % 3]), q) == 0)
            zeros++, zk = k, zsum += k;
    if (zeros >= 2) { /* on the vertex the two edges share */
        *val = tin->z[v[3 - zsum]];
        return 1;
    }
    if (zeros == 1 && nb[zk] < 0) { /* on a hull edge: along it */
        const int a = v[(zk + 1) % 3], b = v[(zk + 2) % 3];
        const double *A = XY(tin, a), *B = XY(tin, b);
        const double ex = B[0] - A[0], ey = B[1] - A[1];
        const double f = ((q[0] - A[0]) * ex + (q[1] - A[1]) * ey) / (ex * ex + ey * ey);
        *val = tin->z[a] + f * (tin->z[b] - tin->z[a]);
        return 1;
    }
    cavity cv;
    int rc = dig(tin, t, q, s, &cv);
    if (rc == -1)
        return -1;
    if (rc == 0) {
        double *g = s->d2; /* dig left room for the g_i */
        for (int i = 0; i < cv.m; i++) {
            const double *A = XY(tin, cv.ea[i]), *B = XY(tin, cv.eb[i]);
            const double a[2] = {A[0] - q[0], A[1] - q[1]}, b[2] = {B[0] - q[0], B[1] - q[1]};
            cc0(a, b, g + 2 * i);
        }
        double sw = 0.0, swz = 0.0;
        for (int i = 0; i < cv.m; i++) {
            double w;
            if (type == NN_LAPLACE) {
                const int ip = i == 0 ? cv.m - 1 : i - 1;
                const double *P = XY(tin, cv.ea[i]);
                w = hypot(g[2 * i] - g[2 * ip], g[2 * i + 1] - g[2 * ip + 1]) /
                    hypot(P[0] - q[0], P[1] - q[1]);
            } else {
                w = stolen_area(tin, &cv, i, g, q);
            }
            sw += w;
            swz += w * tin->z[cv.ea[i]];
        }
        const double r = swz / sw;
        if (sw > 0.0 && isfinite(r)) {
            *val = r;
            return 1;
        }
    }
    /* cannot happen with exact tests; never NaN all the same */
    const double *pl = tin->plane + 3 * (size_t)t;
    const double *A = XY(tin, v[0]);
    *val = isnan(pl[1]) ? tin->z[v[0]] : pl[0] + pl[2] * (q[1] - A[1]) + pl[1] * (q[0] - A[0]);
    return 1;
}

/* One node; *t: where the last walk ended (-1: none yet). 1, 0 (nodata), -1. */
static int natural_node(const gk_job *job, const gk_tin *tin, int *t, double x, double y, int type,
                        gk_scratch *s, double *val)
{
    if (!tin)
        return 0;
    if (tin->n_tri <= 0)
        return gk_linear_outside(job, tin, -1, x, y, val);
    const double q[2] = {x, y};
    if (*t < 0)
        *t = gk_tin_seed(tin, x, y);
    if (locate(tin, t, q) == AT_OUTSIDE)
        return gk_linear_outside(job, tin, *t, x, y, val);
    return inside_value(tin, *t, q, type, s, val);
}

static uint64_t natural_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s)
{
    const gk_tin *tin = gk_linear_tin(job);
    const int type = cparams_of(&job->alg)->type;
    uint64_t nodata = 0;
    for (int j = 0; j < t->h; j++) {
        const double y = gk_grid_node_y(t->g, t->y0 + j);
        int tri = -1;
        for (int i = 0; i < t->w; i++) {
            double v;
            int r = natural_node(job, tin, &tri, gk_grid_node_x(t->g, t->x0 + i), y, type, s, &v);
            if (r < 0)
                return UINT64_MAX;
            if (r == 0) {
                v = job->alg.nodata;
                nodata++;
            }
            out[(size_t)j * t->w + i] = v;
        }
    }
    return nodata;
}

/* ---- the registry's row ------------------------------------------------ */

static int natural_build(gk_job *job) { return gk_tin_build_own(job, 1); }

static void natural_release(gk_job *job)
{
    gk_tin_free(job->state);
    job->state = NULL;
}

const gk_method gk_method_natural = {
    .name = "natural",
    .kind = GK_ALG_NATURAL,
    .summary = "natural-neighbour interpolation (Sibson's or Laplace's coordinates) on the exact "
               "Delaunay triangulation",
    .parse = natural_parse,
    .own_keys = "type=sibson|laplace, radius, nodata",
    .flags = GK_M_OWN_RADIUS,
    .build = natural_build,
    .release = natural_release,
    .cpu_tile = natural_tile,
};
