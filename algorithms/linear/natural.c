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
 * type=sibson_c1: Sibson's C1 interpolant (Sibson 1980, as CGAL's
 * sibson_c1_interpolation), which blends sum w_i z_i / sum w_i with the
 * points' tangent planes; each point's gradient is fitted from its own
 * natural neighbours (CGAL's sibson_gradient_fitting). A hull point has no
 * natural coordinates, so no gradient: a node with one among its natural
 * neighbours takes Sibson's value, and counts as lowered (the band's
 * metadata).
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
#include "linear.h"
#include "linear_raster.h"
#include "natural_node.h"
#include "tin.h"
#include "core/method.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct {
    int type;
} natural_params;
GK_ALG_OWN_FITS(natural_params);

static natural_params *params_of(gk_algorithm *a) { return GK_ALG_OWN(natural_params, a); }
static const natural_params *cparams_of(const gk_algorithm *a)
{
    return GK_ALG_OWN(const natural_params, a);
}

/* The job's state: linear's triangulation, and each triangle's
 * circumcentre about its first vertex (natural_node.h), made once;
 * sibson_c1: each vertex's gradient (NaN on the hull). */
typedef struct {
    gk_tin *tin;
    double *cc, *grad;
} natural_state;

static const natural_state *state_of(const gk_job *job) { return job->state; }

/* ---- parameters -------------------------------------------------------- */

static void canonical(gk_algorithm *a)
{
    gk_strbuf sb = {a->canonical, sizeof a->canonical, 0};
    static const char *const names[] = {"sibson", "laplace", "sibson_c1"};
    gk_strbuf_add(&sb, "natural:type=%s:radius=%.17g:nodata=%.17g", names[cparams_of(a)->type],
                  a->radius, a->nodata);
}

static int natural_parse(gk_context *ctx, const char *spec, char *save, gk_algorithm *a)
{
    natural_params *p = params_of(a);
    memset(p, 0, sizeof *p);
    a->radius = 0.0; /* outside the hull: nodata */
    const char *k, *val;
    int more;
    while ((more = gk_param_next(ctx, spec, &save, &k, &val)) > 0) {
        if (!strcasecmp(k, "type")) {
            if (!strcasecmp(val, "sibson"))
                p->type = GK_NN_SIBSON;
            else if (!strcasecmp(val, "laplace"))
                p->type = GK_NN_LAPLACE;
            else if (!strcasecmp(val, "sibson_c1"))
                p->type = GK_NN_SIBSON_C1;
            else
                return gk_error(ctx, GK_ERR_ARG,
                                "-a natural: type=%s must be sibson, laplace or sibson_c1", val);
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
    if (more < 0)
        return GK_ERR_ARG;
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

/* q (in triangle t's closed area) strictly inside the hull, or on its edge,
 * or on a point: 1 with *val, 2 with Sibson's value for sibson_c1 (a
 * neighbour without gradient); -1 out of memory. */
static int inside_value(const natural_state *st, int t, const double *q, int type, gk_scratch *s,
                        double *val)
{
    const gk_tin *tin = st->tin;
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
    const gk_nn_tin T = {tin->xy, tin->vertex, tin->neighbor, tin->z, st->cc, st->grad};
    for (int cap = 32;; cap *= 2) {
        /* idx: the cavity's triangles and edges; d2: the g_i, then the weights */
        if (gk_scratch_reserve(s, 4 * (size_t)cap + 8) != GK_OK)
            return -1;
        gk_nn_cavity cv = {s->idx, s->idx + cap, s->idx + 2 * cap + 2, s->idx + 3 * cap + 4, 0, 0};
        const int rc = gk_nn_dig(&T, t, q, cap, &cv);
        if (rc == GK_NN_FULL)
            continue;
        const int r =
            rc == GK_NN_OK ? gk_nn_value(&T, &cv, q, type, s->d2, s->d2 + 2 * cap + 4, val) : 0;
        if (r)
            return r;
        break;
    }
    /* cannot happen with exact tests; never NaN all the same */
    const double *pl = tin->plane + 3 * (size_t)t;
    const double *A = XY(tin, v[0]);
    *val = isnan(pl[1]) ? tin->z[v[0]] : pl[0] + pl[2] * (q[1] - A[1]) + pl[1] * (q[0] - A[0]);
    return 1;
}

/* One node; *t: where the last walk ended (-1: none yet). 1, 2 (lowered:
 * inside_value's), 0 (nodata), -1. */
static int natural_node(const gk_job *job, const natural_state *st, int *t, double x, double y,
                        int type, gk_scratch *s, double *val)
{
    const gk_tin *tin = st ? st->tin : NULL;
    if (!tin)
        return 0;
    if (tin->n_tri <= 0)
        return gk_linear_outside(job, tin, -1, x, y, val);
    const double q[2] = {x, y};
    if (*t < 0)
        *t = gk_tin_seed(tin, x, y);
    if (locate(tin, t, q) == AT_OUTSIDE)
        return gk_linear_outside(job, tin, *t, x, y, val);
    return inside_value(st, *t, q, type, s, val);
}

static uint64_t natural_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s)
{
    const natural_state *st = state_of(job);
    const int type = cparams_of(&job->alg)->type;
    uint64_t nodata = 0, lowered = 0;
    for (int j = 0; j < t->h; j++) {
        const double y = gk_grid_node_y(t->g, t->y0 + j);
        int tri = -1;
        for (int i = 0; i < t->w; i++) {
            double v;
            int r = natural_node(job, st, &tri, gk_grid_node_x(t->g, t->x0 + i), y, type, s, &v);
            if (r < 0)
                return UINT64_MAX;
            if (r == 0) {
                v = job->alg.nodata;
                nodata++;
            }
            lowered += r == 2;
            out[(size_t)j * t->w + i] = v;
        }
    }
    gk_job_add_lowered(job, lowered);
    return nodata;
}

/* ---- on a GPU --------------------------------------------------------------- */

/* The GPU computes the nodes its filters decide (gpu/natural.cu, the same
 * code: natural_node.h) and leaves the others GK_LR_UNSET: outside the hull,
 * on a point or an edge, an undecided test, a large cavity. Those here. */
static uint64_t natural_finish(const gk_job *job, const gk_tile *t, double *out, uint64_t *rest)
{
    const natural_state *st = state_of(job);
    const int type = cparams_of(&job->alg)->type;
    int nth = job->ctx->threads > 0 ? job->ctx->threads : omp_get_num_procs();
    if (omp_in_parallel() || (size_t)t->w * t->h < 65536)
        nth = 1;
    uint64_t nodata = 0, n_rest = 0, lowered = 0;
    int failed = 0;
#pragma omp parallel num_threads(nth) if (nth > 1) reduction(+ : nodata, n_rest, lowered) \
    reduction(| : failed)
    {
        gk_scratch s = {0};
#pragma omp for schedule(dynamic, 16)
        for (int j = 0; j < t->h; j++) {
            const double y = gk_grid_node_y(t->g, t->y0 + j);
            double *row = out + (size_t)j * t->w;
            int tri = -1;
            for (int i = 0; i < t->w; i++) {
                uint64_t bits;
                memcpy(&bits, row + i, sizeof bits);
                if (bits != GK_LR_UNSET)
                    continue;
                n_rest++;
                double v;
                const int r =
                    natural_node(job, st, &tri, gk_grid_node_x(t->g, t->x0 + i), y, type, &s, &v);
                if (r < 0)
                    failed = 1;
                if (r <= 0) {
                    v = job->alg.nodata;
                    nodata++;
                }
                lowered += r == 2;
                row[i] = v;
            }
        }
        gk_scratch_free(&s);
    }
    if (rest)
        *rest = n_rest;
    gk_job_add_lowered(job, lowered);
    return failed ? UINT64_MAX : nodata;
}

static const char *natural_gpu(const gk_job *job, gk_gpu_job_desc *d)
{
    const gk_tin *tin = state_of(job) ? state_of(job)->tin : NULL;
    if (!tin)
        return "natural without its triangulation";
    d->op = GK_GPU_NATURAL;
    gk_tin_gpu_desc(tin, d);
    d->p.lin.neighbor = tin->neighbor;
    d->p.lin.z = tin->z;
    d->p.lin.seed = tin->seed;
    d->p.lin.nn_type = cparams_of(&job->alg)->type;
    d->p.lin.grad = state_of(job)->grad;
    return NULL;
}

/* ---- the registry's row ------------------------------------------------ */

static void natural_release(gk_job *job)
{
    natural_state *st = job->state;
    if (st) {
        gk_tin_free(st->tin);
        free(st->cc);
        free(st->grad);
        free(st);
    }
    job->state = NULL;
}

/* ---- sibson_c1's gradients --------------------------------------------------- */

/* Vertex v's gradient (CGAL's sibson_gradient_fitting): its Sibson
 * coordinates lambda_j among its Delaunay neighbours x_j (the coordinates of
 * its place in the triangulation of those alone, which is the triangulation
 * without it, where they meet), then grad = H^-1 p with d_j = x_j - x_v,
 * H = sum lambda_j d_j d_j' / |d_j|^2, p = sum lambda_j (z_j - z_v) d_j / |d_j|^2.
 * ring, rxy, rz: room for cap neighbours. 0 with g, 1 without (a hull
 * vertex, or a ring the arithmetic cannot take), -1 when cap is too small,
 * -2 out of memory. */
static int vertex_gradient(const gk_tin *tin, const int *vt, int v, int cap, int *ring, double *rxy,
                           double *rz, gk_scratch *s, double *g)
{
    const int *V = tin->vertex, *N = tin->neighbor;
    int t = vt[v], n = 0;
    if (t < 0)
        return 1;
    const int t0 = t;
    do { /* counter-clockwise round v; the hull ends it */
        const int *q = V + 3 * (size_t)t;
        const int k = q[0] == v ? 0 : q[1] == v ? 1 : 2;
        if (n == cap)
            return -1;
        ring[n++] = q[(k + 1) % 3];
        t = N[3 * (size_t)t + (k + 1) % 3];
        if (t < 0)
            return 1;
    } while (t != t0);
    if (n < 3)
        return 1;
    double *rx = rxy + 2 * (size_t)cap, *ry = rx + cap;
    for (int i = 0; i < n; i++) {
        const double *P = XY(tin, ring[i]);
        rxy[2 * i] = rx[i] = P[0];
        rxy[2 * i + 1] = ry[i] = P[1];
        rz[i] = tin->z[ring[i]];
    }
    gk_triangulation tr;
    gk_dt_info info;
    if (gk_dt_sweep(n, rx, ry, &tr, &info) != GK_OK)
        return 1;
    const double *q = XY(tin, v);
    const gk_nn_tin T = {rxy, tr.vertex, tr.neighbor, rz, NULL, NULL};
    int at = -1, rc = 1;
    for (int u = 0; u < tr.n_tri && at < 0; u++) {
        const int *w = tr.vertex + 3 * (size_t)u;
        int in = 1;
        for (int k = 0; k < 3; k++)
            in &= gk_orient(gk_nn_xy(&T, w[(k + 1) % 3]), gk_nn_xy(&T, w[(k + 2) % 3]), q) >= 0;
        if (in)
            at = u;
    }
    const int cc = 2 * tr.n_tri + 8;
    if (at >= 0 && gk_scratch_reserve(s, 4 * (size_t)cc + 8) != GK_OK)
        rc = -2;
    else if (at >= 0) {
        gk_nn_cavity cv = {s->idx, s->idx + cc, s->idx + 2 * cc + 2, s->idx + 3 * cc + 4, 0, 0};
        double *w = s->d2 + 2 * cc + 4, val;
        if (gk_nn_dig(&T, at, q, cc, &cv) == GK_NN_OK &&
            gk_nn_value(&T, &cv, q, GK_NN_SIBSON, s->d2, w, &val) == 1) {
            double sw = 0.0, h00 = 0.0, h01 = 0.0, h11 = 0.0, p0 = 0.0, p1 = 0.0;
            for (int i = 0; i < cv.m; i++)
                sw += w[i];
            for (int i = 0; i < cv.m; i++) {
                const double *P = gk_nn_xy(&T, cv.ea[i]);
                const double dx = P[0] - q[0], dy = P[1] - q[1];
                const double sc = w[i] / (sw * (dx * dx + dy * dy));
                const double df = sc * (rz[cv.ea[i]] - tin->z[v]);
                h00 += sc * dx * dx, h01 += sc * dx * dy, h11 += sc * dy * dy;
                p0 += df * dx, p1 += df * dy;
            }
            const double det = h00 * h11 - h01 * h01;
            g[0] = (h11 * p0 - h01 * p1) / det;
            g[1] = (h00 * p1 - h01 * p0) / det;
            rc = isfinite(g[0]) && isfinite(g[1]) ? 0 : 1;
        }
    }
    free(tr.vertex);
    free(tr.neighbor);
    return rc;
}

/* Every vertex's gradient, NaN where it has none. */
static int fit_gradients(gk_job *job, natural_state *st)
{
    const gk_tin *tin = st->tin;
    const size_t n = tin->n;
    int *vt = malloc((n ? n : 1) * sizeof *vt);
    st->grad = malloc(2 * (n ? n : 1) * sizeof *st->grad);
    if (!vt || !st->grad) {
        free(vt);
        return GK_ERR_NOMEM;
    }
    for (size_t v = 0; v < n; v++)
        vt[v] = -1;
    for (int u = 0; u < tin->n_tri; u++)
        for (int k = 0; k < 3; k++)
            vt[tin->vertex[3 * (size_t)u + k]] = u;
    const int nth = job->ctx->threads > 0 ? job->ctx->threads : omp_get_num_procs();
    int failed = 0;
#pragma omp parallel num_threads(nth) reduction(| : failed)
    {
        gk_scratch s = {0};
        int cap = 0, *ring = NULL;
        double *rxy = NULL, *rz = NULL;
#pragma omp for schedule(dynamic, 1024)
        for (size_t v = 0; v < n; v++) {
            double g[2] = {NAN, NAN};
            for (int r = -1; !failed && r == -1;) {
                if (cap > 0)
                    r = vertex_gradient(tin, vt, (int)v, cap, ring, rxy, rz, &s, g);
                if (r == -1) { /* more neighbours than room (or none yet) */
                    cap = cap ? 2 * cap : 32;
                    free(ring), free(rxy), free(rz);
                    ring = malloc((size_t)cap * sizeof *ring);
                    rxy = malloc(4 * (size_t)cap * sizeof *rxy);
                    rz = malloc((size_t)cap * sizeof *rz);
                    failed |= !ring || !rxy || !rz;
                }
                failed |= r == -2;
                if (r != 0)
                    g[0] = g[1] = NAN;
            }
            st->grad[2 * v] = g[0];
            st->grad[2 * v + 1] = g[1];
        }
        free(ring), free(rxy), free(rz);
        gk_scratch_free(&s);
    }
    free(vt);
    return failed ? GK_ERR_NOMEM : GK_OK;
}

/* The triangulation (always the exact one), then every circumcentre once:
 * a node's cavity uses each of its triangles' up to three times. */
static int natural_build(gk_job *job)
{
    int rc = gk_tin_build_own(job, 1);
    if (rc != GK_OK)
        return rc;
    natural_state *st = calloc(1, sizeof *st);
    if (!st) {
        gk_tin_free(job->state);
        job->state = NULL;
        return gk_error(job->ctx, GK_ERR_NOMEM, "natural: out of memory");
    }
    st->tin = job->state;
    job->state = st;
    const gk_tin *tin = st->tin;
    if (tin->n_tri > 0) {
        st->cc = malloc(2 * (size_t)tin->n_tri * sizeof *st->cc);
        if (!st->cc) {
            natural_release(job);
            return gk_error(job->ctx, GK_ERR_NOMEM, "natural: out of memory for %d triangles",
                            tin->n_tri);
        }
        const gk_nn_tin T = {tin->xy, tin->vertex, tin->neighbor, tin->z, NULL, NULL};
        const int nth = job->ctx->threads > 0 ? job->ctx->threads : omp_get_num_procs();
#pragma omp parallel for num_threads(nth) schedule(static)
        for (int u = 0; u < tin->n_tri; u++)
            gk_nn_cc_local(&T, u, st->cc + 2 * (size_t)u);
        if (cparams_of(&job->alg)->type == GK_NN_SIBSON_C1 && fit_gradients(job, st) != GK_OK) {
            natural_release(job);
            return gk_error(job->ctx, GK_ERR_NOMEM, "natural: out of memory for the gradients");
        }
    }
    return GK_OK;
}

const gk_method gk_method_natural = {
    .name = "natural",
    .kind = GK_ALG_NATURAL,
    .summary = "natural-neighbour interpolation (Sibson's or Laplace's coordinates, or Sibson's C1 "
               "form) on the exact Delaunay triangulation",
    .parse = natural_parse,
    .own_keys = "type=sibson|laplace|sibson_c1, radius, nodata",
    .flags = GK_M_OWN_RADIUS | GK_M_GPU_CPU_TAIL,
    .build = natural_build,
    .release = natural_release,
    .cpu_tile = natural_tile,
    .gpu_describe = natural_gpu,
    .gpu_finish = natural_finish,
    .lowered_form = "Sibson's C0 value: a natural neighbour on the hull has no gradient",
};
