/* SPDX-License-Identifier: MIT */
/*
 * linear/linear.c - gdal_grid's `linear`: barycentric interpolation in a
 * Delaunay triangulation (docs/dev/gdal_grid.md, 'linear', "linear's
 * degeneracy test is relative" and 'linear outside the hull: exact nearest
 * within a circle').
 *
 * The triangulation is the core's own (delaunay.c), or the context's hook
 * when one is installed; tin.c prepares it for point location (tin.h), this
 * file evaluates it.
 * Differences from gdal_grid 3.6, on purpose:
 *  - degenerate triangles are found by a RELATIVE test (|2A| small against
 *    the squared longest edge), not |2A| < 1e-5 absolute, which turns linear
 *    into nearest for lat/lon data;
 *  - outside the hull, radius < 0 is the exact nearest point (gdal: nearest
 *    in a doubling square) and radius > 0 a circle (gdal: a square).
 * Fewer than 3 distinct non-collinear points cannot be triangulated: every
 * node then gets the nearest-point rule, as if it were outside the hull
 * (so radius = 0 gives nodata everywhere).
 *
 * A tile is filled by rasterising the triangles that overlap it: each node
 * belongs to exactly one triangle by exact orientation tests and a top-left
 * rule for nodes on an edge, so the result depends neither on the tiling nor
 * on the triangulator's numbering. The nodes no proper triangle takes (outside
 * the hull, on a sliver, on a hull edge the rule gives away) are located one
 * by one with a walk, as before: a small tolerance keeps nodes on the hull
 * inside, and outside it the nearest point is found by a greedy walk on the
 * triangulation (the Delaunay graph leads to the nearest point), so no
 * spatial index is needed. The rasteriser's rules live in linear_raster.h,
 * which the CUDA module shares: on a GPU the triangles are rasterised there
 * and the nodes they leave are located here (gk_linear_finish).
 */
#include "tin.h"
#include "linear.h"
#include "core/method.h"
#include "search/kdtree.h"

#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Near-ties of the nearest-point walk: relative, far above the roundoff of d^2. */
#define GK_NEAR_TIE 1e-12

/* The plane of triangle t at (x, y); the rasteriser computes the same
 * expression a row at a time. */
static inline double plane_at(const gk_tin *tin, int t, double x, double y)
{
    const double *p = tin->plane + 3 * (size_t)t;
    const double *A = tin->xy + 2 * (size_t)tin->vertex[3 * (size_t)t];
    return (p[0] + p[2] * (y - A[1])) + p[1] * (x - A[0]);
}

/* ---- the nearest point, by a walk on the triangulation --------------------- */

static inline double dist2(const gk_tin *tin, int i, double x, double y)
{
    /* as the k-d tree computes it */
    double dx = tin->xy[2 * (size_t)i] - x, dy = tin->xy[2 * (size_t)i + 1] - y;
    return dx * dx + dy * dy;
}

/* Every vertex adjacent to v, whose triangle t holds it: calls visit(w, u)
 * with u a triangle that holds both v and w. Around v counter-clockwise, then
 * (on the hull) clockwise from t. */
#define FOR_FAN(tin, v, t, BODY)                                                                   \
    do {                                                                                           \
        for (int dir_ = 0; dir_ < 2; dir_++) {                                                     \
            int u_ = (t), first_ = 1, cap_ = (tin)->n_tri;                                         \
            while (u_ >= 0 && (first_ || u_ != (t)) && cap_-- > 0) {                               \
                const int *q_ = (tin)->vertex + 3 * (size_t)u_;                                    \
                int k_ = q_[0] == (v) ? 0 : q_[1] == (v) ? 1 : 2;                                  \
                if (first_ && dir_ == 1) {                                                         \
                    u_ = (tin)->neighbor[3 * (size_t)u_ + (k_ + 2) % 3];                           \
                    first_ = 0;                                                                    \
                    continue;                                                                      \
                }                                                                                  \
                for (int s_ = 1; s_ <= 2; s_++) {                                                  \
                    int w = q_[(k_ + s_) % 3], u = u_;                                             \
                    (void)u;                                                                       \
                    BODY                                                                           \
                }                                                                                  \
                first_ = 0;                                                                        \
                u_ = (tin)->neighbor[3 * (size_t)u_ + (dir_ == 0 ? (k_ + 1) % 3 : (k_ + 2) % 3)];  \
            }                                                                                      \
            if (u_ == (t) && dir_ == 0)                                                            \
                break; /* went all the way round: an interior vertex */                            \
        }                                                                                          \
    } while (0)

/* The input index that stands for vertex v in ties. */
static inline int eff_index(const gk_tin *tin, int v)
{
    return tin->dup ? tin->dup[v] : tin->orig[v];
}

/* The nearest point to (x, y) with d^2 <= r2max, ties to the last in input
 * order: what gk_kdtree_nearest answers. The greedy walk ends at a vertex
 * with no nearer neighbour, which in a Delaunay triangulation is the nearest
 * point; the points within roundoff of its distance that are connected to it
 * (the exact nearest and any rounding tie among them) are then compared as
 * the index compares them. */
static int nearest(const gk_job *job, const gk_tin *tin, int t, double x, double y, double r2max,
                   double *d2)
{
    if (tin->need_tree || t < 0) {
        const gk_kdtree *tree = job->tree ? job->tree : tin->tree;
        return tree ? gk_kdtree_nearest(tree, x, y, r2max, d2) : -1;
    }
    int v = -1;
    double dv = INFINITY;
    for (int k = 0; k < 3; k++) {
        int w = tin->vertex[3 * (size_t)t + k];
        double d = dist2(tin, w, x, y);
        if (v < 0 || d < dv) {
            dv = d;
            v = w;
        }
    }
    for (;;) {
        int bw = -1, bt = -1;
        double bd = dv;
        FOR_FAN(tin, v, t, {
            double d = dist2(tin, w, x, y);
            if (d < bd) {
                bd = d;
                bw = w;
                bt = u;
            }
        });
        if (bw < 0)
            break;
        v = bw;
        t = bt;
        dv = bd;
    }
    /* Near-ties: a flood over the points within the tolerance. */
    enum { CAP = 64 };
    int qv[CAP], qt[CAP], nq = 1, best = v;
    double bestd = dv, thr = dv + dv * GK_NEAR_TIE;
    qv[0] = v;
    qt[0] = t;
    for (int h = 0; h < nq; h++) {
        int c = qv[h], ct = qt[h];
        FOR_FAN(tin, c, ct, {
            double d = dist2(tin, w, x, y);
            if (d <= thr && nq <= CAP) {
                int seen = 0;
                for (int m = 0; m < nq && !seen; m++)
                    seen = qv[m] == w;
                if (!seen) {
                    if (nq == CAP) {
                        nq = CAP + 1; /* too many: brute force below */
                    } else {
                        qv[nq] = w;
                        qt[nq++] = u;
                        if (d < bestd || (d == bestd && eff_index(tin, w) > eff_index(tin, best))) {
                            bestd = d;
                            best = w;
                        }
                    }
                }
            }
        });
        if (nq > CAP)
            break;
    }
    if (nq > CAP) { /* many points all but equally near: compare them all */
        best = -1;
        bestd = INFINITY;
        for (size_t i = 0; i < tin->n; i++) {
            double d = dist2(tin, (int)i, x, y);
            if (best < 0 || d < bestd || (d == bestd && tin->orig[i] > best)) {
                bestd = d;
                best = tin->orig[i];
            }
        }
        if (!(bestd <= r2max))
            return -1;
        *d2 = bestd;
        return best;
    }
    if (!(bestd <= r2max))
        return -1;
    *d2 = bestd;
    return eff_index(tin, best);
}

int gk_linear_outside(const gk_job *job, const gk_tin *tin, int t, double x, double y, double *val)
{
    double r = job->alg.radius, d2;
    if (r == 0.0)
        return 0;
    int i = nearest(job, tin, t, x, y, r < 0.0 ? INFINITY : r * r, &d2);
    if (i < 0)
        return 0;
    *val = job->pts->z[i];
    return 1;
}

/* ---- rasterisation ------------------------------------------------------- */

/* The rasteriser's rules are in linear_raster.h, shared with the CUDA module. */
typedef struct {
    const gk_tin *tin;
    gk_lr_nodes N;
    double xlo, xhi, ylo, yhi; /* node extent */
    double *out;
} raster;

static void raster_triangle(const raster *r, int t)
{
    const gk_tin *tin = r->tin;
    const double *pl = tin->plane + 3 * (size_t)t;
    if (isnan(pl[1]))
        return;
    const int *v = tin->vertex + 3 * (size_t)t;
    gk_lr_tri T;
    for (int k = 0; k < 3; k++) {
        T.P[k][0] = tin->xy[2 * (size_t)v[k]];
        T.P[k][1] = tin->xy[2 * (size_t)v[k] + 1];
    }
    double bb[4];
    gk_lr_bbox(&T, bb);
    if (bb[1] < r->xlo || bb[0] > r->xhi || bb[3] < r->ylo || bb[2] > r->yhi)
        return;
    int j0, j1;
    gk_lr_rows(&r->N, bb[2], bb[3], &j0, &j1);
    gk_lr_edges(&T);
    for (int j = j0; j <= j1; j++) {
        double y = r->N.ys[j];
        if (y < bb[2] || y > bb[3])
            continue;
        int lo, hi;
        gk_lr_span(&T, &r->N, y, &lo, &hi);
        double *row = r->out + (size_t)j * r->N.w, base = gk_lr_row_base(pl, T.P[0], y);
        for (int i = lo; i <= hi; i++)
            row[i] = gk_lr_value(base, pl, T.P[0], r->N.xs[i]);
    }
}

/* The tile's node coordinates (absolute, and about the tin's origin) in the
 * scratch: xs, ys, lxs, lys. NULL when out of memory. */
static double *tile_nodes(const gk_tin *tin, const gk_tile *t, gk_scratch *s)
{
    int w = t->w, h = t->h;
    if (gk_scratch_reserve(s, 2 * ((size_t)w + h)) != GK_OK)
        return NULL;
    double *xs = s->d2, *ys = xs + w, *lxs = ys + h, *lys = lxs + w;
    double ox = tin ? tin->ox : 0.0, oy = tin ? tin->oy : 0.0;
    for (int i = 0; i < w; i++) {
        xs[i] = gk_grid_node_x(t->g, t->x0 + i);
        lxs[i] = xs[i] - ox;
    }
    for (int j = 0; j < h; j++) {
        ys[j] = gk_grid_node_y(t->g, t->y0 + j);
        lys[j] = ys[j] - oy;
    }
    return xs;
}

/* The nodes no proper triangle took (GK_LR_UNSET), one by one: a walk to
 * the triangle within the hull tolerance, or the nearest-point rule; rows on
 * nth threads. Returns the nodata count among them; *rest (if not NULL)
 * gets their number. */
static uint64_t fill_rest(const gk_job *job, const gk_tile *t, double *out, const double *xs,
                          uint64_t *rest, int nth)
{
    const gk_tin *tin = gk_linear_tin(job);
    const double nodata = job->alg.nodata;
    int w = t->w, h = t->h;
    const double *ys = xs + w, *lxs = ys + h, *lys = lxs + w;
    uint64_t nodata_nodes = 0, n_rest = 0;
#pragma omp parallel for num_threads(nth) schedule(dynamic, 16) if (nth > 1) \
    reduction(+ : nodata_nodes, n_rest)
    for (int j = 0; j < h; j++) {
        double y = ys[j];
        double *row = out + (size_t)j * w;
        for (int i = 0; i < w; i++) {
            uint64_t bits;
            memcpy(&bits, row + i, sizeof bits);
            if (bits != GK_LR_UNSET)
                continue;
            n_rest++;
            double x = xs[i], v = nodata;
            int where = GK_TIN_OUTSIDE, tri = -1;
            if (tin && tin->n_tri > 0) {
                tri = gk_tin_seed(tin, x, y);
                where = gk_tin_locate(tin, &tri, lxs[i], lys[j]);
            }
            if (where == GK_TIN_INSIDE) {
                v = plane_at(tin, tri, x, y);
            } else if (where == GK_TIN_DEGENERATE) {
                /* Inside the hull but on a sliver: the nearest data point. */
                double d2;
                int k = nearest(job, tin, tri, x, y, INFINITY, &d2);
                if (k >= 0)
                    v = job->pts->z[k];
                else
                    nodata_nodes++;
            } else if (!tin || !gk_linear_outside(job, tin, tri, x, y, &v)) {
                v = nodata;
                nodata_nodes++;
            }
            row[i] = v;
        }
    }
    if (rest)
        *rest = n_rest;
    return nodata_nodes;
}

uint64_t gk_linear_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s)
{
    const gk_tin *tin = gk_linear_tin(job);
    const gk_grid *g = t->g;
    int w = t->w, h = t->h;
    size_t nn = (size_t)w * h;
    double *xs = tile_nodes(tin, t, s);
    if (!xs)
        return UINT64_MAX;
    const double *ys = xs + w;
    const uint64_t unset = GK_LR_UNSET;
    for (size_t k = 0; k < nn; k++)
        memcpy(out + k, &unset, sizeof unset);

    if (tin && tin->n_tri > 0) {
        raster r = {tin,
                    {xs, ys, w, h, t->x0, t->y0, g->xmin, g->nx / (g->xmax - g->xmin), g->ymax,
                     g->ny / (g->ymin - g->ymax)},
                    xs[0],
                    xs[w - 1],
                    ys[h - 1],
                    ys[0],
                    out};
        for (int l = 0; l < tin->nlev; l++) {
            const gk_tin_level *lv = &tin->lev[l];
            /* A triangle's bucket is that of its lower-left corner, and it
             * spans at most one more each way. */
            int bx0 = gk_lr_bucket_of((r.xlo - lv->x0) * lv->inv, lv->nx) - 1;
            int bx1 = gk_lr_bucket_of((r.xhi - lv->x0) * lv->inv, lv->nx);
            int by0 = gk_lr_bucket_of((r.ylo - lv->y0) * lv->inv, lv->ny) - 1;
            int by1 = gk_lr_bucket_of((r.yhi - lv->y0) * lv->inv, lv->ny);
            bx0 = bx0 < 0 ? 0 : bx0;
            by0 = by0 < 0 ? 0 : by0;
            for (int by = by0; by <= by1; by++) {
                size_t row = (size_t)by * lv->nx;
                for (int u = lv->start[row + bx0]; u < lv->start[row + bx1 + 1]; u++)
                    raster_triangle(&r, u);
            }
        }
    }
    return fill_rest(job, t, out, xs, NULL, 1);
}

uint64_t gk_linear_finish(const gk_job *job, const gk_tile *t, double *out, uint64_t *rest)
{
    gk_scratch s = {0};
    double *xs = tile_nodes(gk_linear_tin(job), t, &s);
    /* every core when called alone (a window); inside the engine's tile
     * threads, this one */
    int nth = job->ctx->threads > 0 ? job->ctx->threads : omp_get_num_procs();
    if (omp_in_parallel() || (size_t)t->w * t->h < 65536)
        nth = 1;
    uint64_t nodata = xs ? fill_rest(job, t, out, xs, rest, nth) : UINT64_MAX;
    gk_scratch_free(&s);
    return nodata;
}

/* The tin's triangles and buckets in the GPU job's description (the arrays
 * stay the tin's). */
void gk_tin_gpu_desc(const gk_tin *tin, gk_gpu_job_desc *d)
{
    d->p.lin.nv = tin->n_tri > 0 ? tin->n : 0;
    d->p.lin.nt = tin->n_tri > 0 ? (size_t)tin->n_tri : 0;
    d->p.lin.xy = tin->xy;
    d->p.lin.vertex = tin->vertex;
    d->p.lin.plane = tin->plane;
    d->p.lin.nlev = tin->n_tri > 0 ? tin->nlev : 0;
    d->p.lin.nbuckets = 0;
    for (int l = 0; l < d->p.lin.nlev; l++) {
        const gk_tin_level *lv = &tin->lev[l];
        gk_gpu_lin_level *o = &d->p.lin.lev[l];
        o->x0 = lv->x0;
        o->y0 = lv->y0;
        o->inv = lv->inv;
        o->nx = lv->nx;
        o->ny = lv->ny;
        d->p.lin.nbuckets += (size_t)lv->nx * lv->ny;
    }
    d->p.lin.bstart = tin->bstart;
}

/* ---- the registry's row ------------------------------------------------ */

static void linear_release(gk_job *job)
{
    gk_tin_free(job->state);
    job->state = NULL;
}

static void linear_canonical(const gk_algorithm *a, gk_strbuf *sb)
{
    gk_strbuf_add(sb, ":radius=%.17g", a->radius);
}

/* The GPU rasterises the tin's triangles; the nodes they leave are located
 * on the CPU (gk_linear_finish). */
static const char *linear_gpu(const gk_job *job, gk_gpu_job_desc *d)
{
    if (!gk_linear_tin(job))
        return "linear without its triangulation";
    d->op = GK_GPU_LINEAR;
    gk_tin_gpu_desc(gk_linear_tin(job), d);
    return NULL;
}

/* linear: the triangulation (CPU) dominates, and on an H100 with 16 cores
 * the whole run was quicker without the GPU (0.51 s against 0.93 s for 1 M
 * points to 4096^2 through GDAL, docs/benchmarks.md): the GPU only when asked
 * for by name. It finds what it needs on its triangulation (and builds a tree
 * of its own in the degenerate cases). */
const gk_method gk_method_linear = {
    .name = "linear",
    .kind = GK_ALG_LINEAR,
    .summary = "linear interpolation on the Delaunay triangulation (gdal_grid)",
    .keys = GK_KEY_RADIUS | GK_KEY_NODATA,
    .flags = GK_M_OWN_RADIUS | GK_M_GPU_EXPLICIT | GK_M_GPU_CPU_TAIL,
    .canonical = linear_canonical,
    .build = gk_tin_build,
    .release = linear_release,
    .cpu_tile = gk_linear_tile,
    .gpu_describe = linear_gpu,
    .gpu_finish = gk_linear_finish,
};
