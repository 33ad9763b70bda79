/* SPDX-License-Identifier: MIT */
/*
 * linear/tin.c - `linear`'s triangulation prepared for point location: the
 * core's own Delaunay triangulation (delaunay.c) or the context's hook,
 * validated and oriented, vertices renumbered in bucket order, triangles
 * sorted into bucket levels with their interpolation planes, a seed triangle
 * per bucket; and the walk that locates a node in it (a small tolerance keeps
 * nodes on the hull inside).
 */
#include "tin.h"
#include "core/big_alloc.h"
#include "delaunay.h"
#include "linear.h"
#include "search/kdtree.h"

#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* |2A| <= GK_DEGEN_REL * (longest edge)^2: a sliver whose plane is meaningless. */
#define GK_DEGEN_REL 1e-12
/* A node this far outside a hull edge (relative to its length) is still in. */
#define GK_HULL_TOL 1e-10

void gk_tin_free(gk_tin *tin)
{
    if (!tin)
        return;
    free(tin->vertex);
    free(tin->neighbor);
    free(tin->plane);
    free(tin->xy);
    free(tin->z);
    free(tin->orig);
    free(tin->dup);
    free(tin->bstart);
    free(tin->seed);
    gk_kdtree_free(tin->tree);
    free(tin);
}

/* Number of triangles (0: the nearest-point rule everywhere); for tests and reports. */
int gk_tin_triangles(const gk_tin *tin) { return tin ? tin->n_tri : 0; }

static double orient(double ax, double ay, double bx, double by, double px, double py)
{
    return (bx - ax) * (py - ay) - (by - ay) * (px - ax);
}

static inline double LX(const gk_tin *tin, int v) { return tin->xy[2 * (size_t)v] - tin->ox; }
static inline double LY(const gk_tin *tin, int v) { return tin->xy[2 * (size_t)v + 1] - tin->oy; }

/* ---- preparation ------------------------------------------------------- */

/* Stable LSD radix sort of a[0..n) by bits [32, 32 + bits) (11 per pass), on
 * nth threads; tmp as large as a. Returns the array that holds the result. */
static uint64_t *radix_sort(uint64_t *a, uint64_t *tmp, size_t n, int bits, int nth)
{
    enum { R = 2048 };
    size_t *hist = malloc((size_t)nth * R * sizeof *hist);
    if (!hist)
        return NULL;
    for (int shift = 32; shift < 32 + bits; shift += 11) {
#pragma omp parallel num_threads(nth)
        {
            int t = omp_get_thread_num(), T = omp_get_num_threads();
            size_t lo = n * t / T, hi = n * (t + 1) / T, *h = hist + (size_t)t * R;
            memset(h, 0, R * sizeof *h);
            for (size_t i = lo; i < hi; i++)
                h[(a[i] >> shift) & (R - 1)]++;
#pragma omp barrier
#pragma omp single
            {
                size_t sum = 0;
                for (int d = 0; d < R; d++)
                    for (int u = 0; u < T; u++) {
                        size_t c = hist[(size_t)u * R + d];
                        hist[(size_t)u * R + d] = sum;
                        sum += c;
                    }
            }
            for (size_t i = lo; i < hi; i++)
                tmp[h[(a[i] >> shift) & (R - 1)]++] = a[i];
        }
        uint64_t *s = a;
        a = tmp;
        tmp = s;
    }
    free(hist);
    return a;
}

/* Bucket levels over the points' bbox, about 8 triangles per level-0 bucket,
 * each level's buckets 4 times as wide, the last one a single bucket. The
 * keys of all levels form one range, so their offsets are one array. */
static int make_levels(gk_tin *tin, double xmin, double xmax, double ymin, double ymax)
{
    double w = xmax - xmin, h = ymax - ymin, nt = tin->n_tri;
    double side = sqrt(8.0 * w * h / nt);
    if (!(side > 0.0) || !isfinite(side))
        side = fmax(w, h);
    if (!(side > 0.0) || !isfinite(side))
        side = 1.0;
    while ((w / side + 1.0) * (h / side + 1.0) > 4.0 * nt + 64.0)
        side *= 2.0;
    size_t total = 0;
    int L = 0;
    for (;; L++, side *= 4.0) {
        gk_tin_level *lv = &tin->lev[L];
        lv->x0 = xmin;
        lv->y0 = ymin;
        lv->inv = 1.0 / side;
        double fx = floor(w * lv->inv) + 1.0, fy = floor(h * lv->inv) + 1.0;
        lv->nx = fx < 1e9 ? (int)fx : 1000000000;
        lv->ny = fy < 1e9 ? (int)fy : 1000000000;
        if ((lv->nx == 1 && lv->ny == 1) || L == GK_MAX_LEVELS - 1) {
            lv->inv = 0.0;
            lv->nx = lv->ny = 1;
        }
        total += (size_t)lv->nx * lv->ny;
        if (lv->nx == 1 && lv->ny == 1)
            break;
    }
    tin->nlev = L + 1;
    if (total >= (size_t)INT_MAX)
        return 0;
    tin->bstart = malloc((total + 1) * sizeof *tin->bstart);
    if (!tin->bstart)
        return 0;
    size_t off = 0;
    for (int l = 0; l < tin->nlev; l++) {
        tin->lev[l].start = tin->bstart + off;
        off += (size_t)tin->lev[l].nx * tin->lev[l].ny;
    }
    return 1;
}

/* Sort key of a triangle: its level's first key + its bucket. */
static uint32_t tri_key(const gk_tin *tin, double xl, double xh, double yl, double yh)
{
    uint32_t base = 0;
    for (int l = 0; l < tin->nlev; l++) {
        const gk_tin_level *lv = &tin->lev[l];
        int bx = gk_lr_bucket_of((xl - lv->x0) * lv->inv, lv->nx);
        int by = gk_lr_bucket_of((yl - lv->y0) * lv->inv, lv->ny);
        if (l == tin->nlev - 1 || (gk_lr_bucket_of((xh - lv->x0) * lv->inv, lv->nx) - bx <= 1 &&
                                   gk_lr_bucket_of((yh - lv->y0) * lv->inv, lv->ny) - by <= 1))
            return base + (uint32_t)by * lv->nx + bx;
        base += (uint32_t)lv->nx * lv->ny;
    }
    return base;
}

/* How far ahead the passes below prefetch what a later element will read or
 * write at a random place: the triangles come from the triangulator in its
 * own order, the points by input index, so nearly every access misses the
 * cache, and the loops are otherwise latency-bound. */
#if defined(__GNUC__) || defined(__clang__)
#define TIN_AHEAD 16
#define TIN_PREFETCH(p, w) __builtin_prefetch((p), (w))
#else
#define TIN_AHEAD 0
#define TIN_PREFETCH(p, w) ((void)0)
#endif

/* A point by input index, for the triangles' first pass: one cache line. */
typedef struct {
    double x, y;
    int id; /* its new number */
} tin_pt;

/* Points in level-0 bucket order (row-major, then input order): their
 * coordinates (tin->xy), values, input indices (tin->orig), and per input
 * index its coordinates and new number (byid). */
static int tin_renumber(gk_tin *tin, const gk_points *pts, tin_pt *byid, int nth)
{
    size_t n = tin->n;
    const gk_tin_level *lv = &tin->lev[0];
    uint64_t nb = (uint64_t)lv->nx * lv->ny;
    int bits = 1;
    while (bits < 32 && (1ull << bits) < nb)
        bits++;
    uint64_t *key = gk_big_alloc(n * sizeof *key), *tmp = gk_big_alloc(n * sizeof *tmp);
    tin->xy = gk_big_alloc(2 * n * sizeof *tin->xy);
    tin->z = gk_big_alloc(n * sizeof *tin->z);
    tin->orig = gk_big_alloc(n * sizeof *tin->orig);
    uint64_t *s = NULL;
    if (key && tmp && tin->xy && tin->z && tin->orig) {
#pragma omp parallel for num_threads(nth) schedule(static)
        for (size_t i = 0; i < n; i++) {
            int bx = gk_lr_bucket_of((pts->x[i] - lv->x0) * lv->inv, lv->nx);
            int by = gk_lr_bucket_of((pts->y[i] - lv->y0) * lv->inv, lv->ny);
            key[i] = ((uint64_t)by * lv->nx + bx) << 32 | (uint32_t)i;
        }
        s = radix_sort(key, tmp, n, bits, nth);
    }
    if (s) {
#pragma omp parallel for num_threads(nth) schedule(static)
        for (size_t v = 0; v < n; v++) {
            if (v + TIN_AHEAD < n) {
                size_t a = (uint32_t)s[v + TIN_AHEAD];
                TIN_PREFETCH(byid + a, 1);
                TIN_PREFETCH(pts->x + a, 0);
                TIN_PREFETCH(pts->y + a, 0);
                TIN_PREFETCH(pts->z + a, 0);
            }
            int i = (int)(uint32_t)s[v];
            tin->orig[v] = i;
            byid[i].id = (int)v;
            tin->xy[2 * v] = pts->x[i];
            tin->xy[2 * v + 1] = pts->y[i];
            tin->z[v] = pts->z[i];
        }
#pragma omp parallel for num_threads(nth) schedule(static)
        for (size_t i = 0; i < n; i++) {
            byid[i].x = pts->x[i];
            byid[i].y = pts->y[i];
        }
    }
    free(key);
    free(tmp);
    return s != NULL;
}

/* Validation, new vertex numbers, orientation fix (the hook does not
 * promise one), smallest number first and the sort key of every triangle.
 * 0 on an invalid index. */
static int tin_orient(gk_tin *tin, uint64_t *key, const tin_pt *byid, int nth)
{
    int nt = tin->n_tri, bad = 0;
    size_t n = tin->n;
    /* chunks of 4096 triangles: the look-ahead stays in the thread's own
     * chunk, whose triangles no other thread rewrites meanwhile */
#pragma omp parallel for num_threads(nth) schedule(static, 4096) reduction(| : bad)
    for (int t = 0; t < nt; t++) {
        int *v = tin->vertex + 3 * (size_t)t, *nb = tin->neighbor + 3 * (size_t)t;
        if ((t & 4095) + TIN_AHEAD < 4096 && t + TIN_AHEAD < nt) /* a later triangle's points */
            for (int k = 0; k < 3; k++) {
                unsigned a = (unsigned)v[3 * TIN_AHEAD + k];
                if (a < n)
                    TIN_PREFETCH(byid + a, 0);
            }
        int ok = 1;
        for (int k = 0; k < 3; k++)
            if (v[k] < 0 || (size_t)v[k] >= n || nb[k] < -1 || nb[k] >= nt)
                ok = 0;
        if (!ok) {
            bad = 1;
            key[t] = 0;
            continue;
        }
        const tin_pt *pa = byid + v[0], *pb = byid + v[1], *pc = byid + v[2];
        const double A[2] = {pa->x, pa->y}, B[2] = {pb->x, pb->y}, C[2] = {pc->x, pc->y};
        v[0] = pa->id;
        v[1] = pb->id;
        v[2] = pc->id;
        double ax = A[0] - tin->ox, ay = A[1] - tin->oy, bx = B[0] - tin->ox, by = B[1] - tin->oy;
        double cx = C[0] - tin->ox, cy = C[1] - tin->oy;
        if (orient(ax, ay, bx, by, cx, cy) < 0.0) {
            int s = v[1];
            v[1] = v[2];
            v[2] = s;
            s = nb[1];
            nb[1] = nb[2];
            nb[2] = s;
        }
        int r = v[1] < v[0] ? (v[2] < v[1] ? 2 : 1) : (v[2] < v[0] ? 2 : 0);
        if (r) {
            int vv[3] = {v[0], v[1], v[2]}, nn[3] = {nb[0], nb[1], nb[2]};
            for (int k = 0; k < 3; k++) {
                v[k] = vv[(k + r) % 3];
                nb[k] = nn[(k + r) % 3];
            }
        }
        double xl = fmin(fmin(A[0], B[0]), C[0]), xh = fmax(fmax(A[0], B[0]), C[0]);
        double yl = fmin(fmin(A[1], B[1]), C[1]), yh = fmax(fmax(A[1], B[1]), C[1]);
        key[t] = (uint64_t)tri_key(tin, xl, xh, yl, yh) << 32 | (uint32_t)t;
    }
    return !bad;
}

/* Interpolation plane of triangle v, about its first vertex. */
static void tin_plane(const gk_tin *tin, const int *v, double *p)
{
    const double *A = tin->xy + 2 * (size_t)v[0], *B = tin->xy + 2 * (size_t)v[1];
    const double *C = tin->xy + 2 * (size_t)v[2];
    double bx = B[0] - A[0], by = B[1] - A[1], cx = C[0] - A[0], cy = C[1] - A[1];
    double a2 = bx * cy - by * cx;
    double e0 = (bx - cx) * (bx - cx) + (by - cy) * (by - cy), e1 = cx * cx + cy * cy;
    double e2 = bx * bx + by * by;
    double emax = e0 > e1 ? (e0 > e2 ? e0 : e2) : (e1 > e2 ? e1 : e2);
    if (!(a2 > GK_DEGEN_REL * emax)) {
        p[0] = 0.0;
        p[1] = NAN;
        p[2] = 0.0;
        return;
    }
    const double *z = tin->z;
    double za = z[v[0]], dzb = z[v[1]] - za, dzc = z[v[2]] - za;
    p[0] = za;
    p[1] = (dzb * cy - dzc * by) / a2;
    p[2] = (dzc * bx - dzb * cx) / a2;
}

/* Triangles into bucket order (neighbours renumbered), their planes, and
 * the bucket offsets. 0 when out of memory. */
static int tin_sort(gk_tin *tin, uint64_t *key, int nth)
{
    int nt = tin->n_tri;
    uint64_t nkeys = 0;
    for (int l = 0; l < tin->nlev; l++)
        nkeys += (uint64_t)tin->lev[l].nx * tin->lev[l].ny;
    int bits = 1;
    while (bits < 32 && (1ull << bits) < nkeys)
        bits++;
    uint64_t *tmp = gk_big_alloc((size_t)nt * sizeof *tmp);
    int *inv = gk_big_alloc((size_t)nt * sizeof *inv);
    int *vert = gk_big_alloc(3 * (size_t)nt * sizeof *vert);
    int *nbr = gk_big_alloc(3 * (size_t)nt * sizeof *nbr);
    tin->plane = gk_big_alloc(3 * (size_t)nt * sizeof *tin->plane);
    uint64_t *s =
        tmp && inv && vert && nbr && tin->plane ? radix_sort(key, tmp, nt, bits, nth) : NULL;
    if (!s) {
        free(tmp);
        free(inv);
        free(vert);
        free(nbr);
        return 0;
    }
#pragma omp parallel num_threads(nth)
    {
#pragma omp for schedule(static)
        for (int i = 0; i < nt; i++) {
            if (i + TIN_AHEAD < nt)
                TIN_PREFETCH(inv + (uint32_t)s[i + TIN_AHEAD], 1);
            inv[(uint32_t)s[i]] = i;
        }
        /* A scatter in the old order: its reads of inv are near each other
         * (neighbours were made together), only the writes jump. */
#pragma omp for schedule(static)
        for (int o = 0; o < nt; o++) {
            if (o + TIN_AHEAD < nt) {
                const int *nb = tin->neighbor + 3 * ((size_t)o + TIN_AHEAD);
                for (int k = 0; k < 3; k++)
                    if (nb[k] >= 0)
                        TIN_PREFETCH(inv + nb[k], 0);
                TIN_PREFETCH(vert + 3 * (size_t)inv[o + TIN_AHEAD], 1);
                TIN_PREFETCH(nbr + 3 * (size_t)inv[o + TIN_AHEAD], 1);
            }
            size_t i = 3 * (size_t)inv[o];
            for (int k = 0; k < 3; k++) {
                int u = tin->neighbor[3 * (size_t)o + k];
                vert[i + k] = tin->vertex[3 * (size_t)o + k];
                nbr[i + k] = u < 0 ? -1 : inv[u];
            }
        }
#pragma omp for schedule(static)
        for (int i = 0; i < nt; i++)
            tin_plane(tin, vert + 3 * (size_t)i, tin->plane + 3 * (size_t)i);
            /* Offsets: the keys after the previous triangle's up to this one's
         * start here (level l's last bucket ends where level l+1 starts). */
#pragma omp for schedule(static)
        for (int i = 0; i <= nt; i++) {
            uint64_t k1 = i < nt ? s[i] >> 32 : nkeys, k0 = i > 0 ? (s[i - 1] >> 32) + 1 : 0;
            for (uint64_t k = k0; k <= k1; k++)
                tin->bstart[k] = i;
        }
    }
    free(tmp);
    free(inv);
    free(tin->vertex);
    free(tin->neighbor);
    tin->vertex = vert;
    tin->neighbor = nbr;
    return 1;
}

/* A triangle in or near every level-0 bucket, to start walks from. */
static int tin_seeds(gk_tin *tin)
{
    const gk_tin_level *lv = &tin->lev[0];
    int nx = lv->nx, ny = lv->ny;
    tin->seed = malloc((size_t)nx * ny * sizeof *tin->seed);
    if (!tin->seed)
        return 0;
    int *sd = tin->seed, any = -1;
    for (size_t b = 0; b < (size_t)nx * ny; b++) {
        sd[b] = lv->start[b] < lv->start[b + 1] ? lv->start[b] : -1;
        if (any < 0 && sd[b] >= 0)
            any = sd[b];
    }
    if (any < 0)
        any = 0; /* only large triangles: any start will do */
    /* Empty buckets take a neighbour's along the row, then along the column. */
    for (int j = 0; j < ny; j++) {
        int *r = sd + (size_t)j * nx, last = -1;
        for (int i = 0; i < nx; i++)
            last = r[i] >= 0 ? r[i] : (r[i] = last);
        last = -1;
        for (int i = nx - 1; i >= 0; i--)
            last = r[i] >= 0 ? r[i] : (r[i] = last);
    }
    for (int i = 0; i < nx; i++) {
        int last = -1;
        for (int j = 0; j < ny; j++)
            last = sd[(size_t)j * nx + i] >= 0 ? sd[(size_t)j * nx + i]
                                               : (sd[(size_t)j * nx + i] = last);
        last = any;
        for (int j = ny - 1; j >= 0; j--)
            last = sd[(size_t)j * nx + i] >= 0 ? sd[(size_t)j * nx + i]
                                               : (sd[(size_t)j * nx + i] = last);
    }
    return 1;
}

/* Points that are no vertex: coincident with one (its ties go to the last
 * of them, as in the index), else (a hook that drops points) the index is
 * needed. 0 when out of memory. */
static int tin_duplicates(gk_tin *tin, int nth)
{
    size_t n = tin->n;
    int nt = tin->n_tri;
    int *at = malloc(n * sizeof *at); /* by vertex number */
    if (!at)
        return 0;
    size_t missing = 0;
#pragma omp parallel num_threads(nth)
    {
#pragma omp for schedule(static)
        for (size_t i = 0; i < n; i++)
            at[i] = -1;
#pragma omp for schedule(static)
        for (int t = 0; t < nt; t++)
            for (int k = 0; k < 3; k++) {
                int v = tin->vertex[3 * (size_t)t + k];
#pragma omp atomic write
                at[v] = v;
            }
#pragma omp for schedule(static) reduction(+ : missing)
        for (size_t i = 0; i < n; i++)
            missing += at[i] < 0;
    }
    if (missing == 0) {
        free(at);
        return 1;
    }
    /* Each missing point: the vertex at its place, found by a walk. */
    int unmatched = 0;
#pragma omp parallel for num_threads(nth) schedule(dynamic, 256) reduction(| : unmatched)
    for (size_t i = 0; i < n; i++) {
        if (at[i] >= 0)
            continue;
        const double *p = tin->xy + 2 * i;
        int t = gk_tin_seed(tin, p[0], p[1]), hit = -1;
        gk_tin_locate(tin, &t, LX(tin, (int)i), LY(tin, (int)i));
        for (int k = 0; k < 3; k++) {
            int v = tin->vertex[3 * (size_t)t + k];
            if (tin->xy[2 * (size_t)v] == p[0] && tin->xy[2 * (size_t)v + 1] == p[1])
                hit = v;
        }
        at[i] = hit >= 0 ? -2 - hit : -1;
        unmatched |= hit < 0;
    }
    if (unmatched) {
        free(at);
        tin->need_tree = 1;
        return 1;
    }
    /* dup[v]: the largest input index at v's place. */
    for (size_t i = 0; i < n; i++)
        if (at[i] >= 0)
            at[i] = tin->orig[i];
    for (size_t i = 0; i < n; i++)
        if (at[i] < 0) {
            int v = -2 - at[i];
            at[i] = tin->orig[i]; /* not a vertex: no walk reaches it */
            if (at[v] < tin->orig[i])
                at[v] = tin->orig[i];
        }
    tin->dup = at;
    return 1;
}

int gk_tin_build_own(gk_job *job, int own)
{
    const char *me = gk_algorithm_name(&job->alg);
    gk_context *ctx = job->ctx;
    const gk_points *pts = job->pts;
    size_t n = pts->n;
    gk_tin_free(job->state);
    job->state = NULL;
    if (n == 0)
        return gk_error(ctx, GK_ERR_NO_POINTS, "%s: no points to triangulate", me);
    if (n > (size_t)INT_MAX)
        return gk_error(ctx, GK_ERR_NOMEM, "%s: %zu points, at most %d can be triangulated", me, n,
                        INT_MAX);
    int nth = ctx->threads > 0 ? ctx->threads : omp_get_num_procs();

    gk_tin *tin = calloc(1, sizeof *tin);
    if (!tin)
        return gk_error(ctx, GK_ERR_NOMEM, "%s: out of memory", me);
    tin->n = n;
    double xmin = pts->x[0], xmax = xmin, ymin = pts->y[0], ymax = ymin;
#pragma omp parallel for num_threads(nth) schedule(static) reduction(min                           \
                                                                     : xmin, ymin)                 \
    reduction(max                                                                                  \
              : xmax, ymax)
    for (size_t i = 0; i < n; i++) {
        xmin = fmin(xmin, pts->x[i]);
        xmax = fmax(xmax, pts->x[i]);
        ymin = fmin(ymin, pts->y[i]);
        ymax = fmax(ymax, pts->y[i]);
    }
    tin->ox = 0.5 * (xmin + xmax);
    tin->oy = 0.5 * (ymin + ymax);

    gk_triangulation tri = {0, NULL, NULL};
    /* A hook the caller installed, else (or when own) the core's own (delaunay.c). */
    int rc = GK_ERR_ARG;
    if (n >= 3 && ctx->triangulate && !own)
        rc = ctx->triangulate(ctx->triangulate_user, (int)n, pts->x, pts->y, &tri);
    else if (n >= 3)
        rc = gk_delaunay(ctx, (int)n, pts->x, pts->y, &tri);
    if (rc == GK_ERR_ARG || (rc == GK_OK && tri.n_tri <= 0)) {
        /* Too few or collinear points: nearest-point rule everywhere (not an
         * error, as gdal_grid; but said, as gdal_grid does not). */
        snprintf(job->warning, sizeof job->warning,
                 "%s: the %zu point(s) have no triangle (fewer than 3 distinct points, or "
                 "all on one line): every node gets %s, as outside the hull (radius=%.15g)",
                 me, n, job->alg.radius == 0.0 ? "nodata" : "the nearest point's value",
                 job->alg.radius);
        free(tri.vertex);
        free(tri.neighbor);
        gk_error_clear(ctx);
        tin->need_tree = 1;
        if (!job->tree && !(tin->tree = gk_kdtree_build(pts->x, pts->y, n))) {
            gk_tin_free(tin);
            return gk_error(ctx, GK_ERR_NOMEM, "%s: out of memory for %zu points", me, n);
        }
        job->state = tin;
        return GK_OK;
    }
    if (rc != GK_OK) {
        free(tri.vertex);
        free(tri.neighbor);
        gk_tin_free(tin);
        if (rc == GK_ERR_NOMEM)
            return gk_error(ctx, GK_ERR_NOMEM, "%s: out of memory triangulating %zu points", me, n);
        return gk_error(ctx, rc == GK_ERR_UNSUPPORTED ? GK_ERR_UNSUPPORTED : GK_ERR_INTERNAL,
                        "%s: Delaunay triangulation of %zu points failed%s", me, n,
                        rc == GK_ERR_UNSUPPORTED ? " (GDAL was built without qhull)" : "");
    }
    tin->n_tri = tri.n_tri;
    tin->vertex = tri.vertex;
    tin->neighbor = tri.neighbor;
    uint64_t *key = gk_big_alloc((size_t)tri.n_tri * sizeof *key);
    tin_pt *byid = gk_big_alloc(n * sizeof *byid);
    if (!key || !byid || !make_levels(tin, xmin, xmax, ymin, ymax) ||
        !tin_renumber(tin, pts, byid, nth)) {
        free(key);
        free(byid);
        gk_tin_free(tin);
        return gk_error(ctx, GK_ERR_NOMEM, "%s: out of memory for %d triangles", me, tri.n_tri);
    }
    int valid = tin_orient(tin, key, byid, nth);
    free(byid);
    if (!valid) {
        free(key);
        gk_tin_free(tin);
        return gk_error(ctx, GK_ERR_INTERNAL,
                        "%s: the triangulator returned an invalid vertex or neighbour index", me);
    }
    int ok = tin_sort(tin, key, nth);
    free(key);
    /* A straight walk crosses O(sqrt(n_tri)) triangles; beyond a generous
     * multiple something is wrong (a roundoff cycle): scan instead. */
    tin->walk_cap = 64 + 8 * (int)sqrt((double)tri.n_tri);
    if (!ok || !tin_seeds(tin) || !tin_duplicates(tin, nth) ||
        (tin->need_tree && !job->tree && !(tin->tree = gk_kdtree_build(pts->x, pts->y, n)))) {
        gk_tin_free(tin);
        return gk_error(ctx, GK_ERR_NOMEM, "%s: out of memory for %d triangles", me, tri.n_tri);
    }
    job->state = tin;
    return GK_OK;
}

int gk_tin_build(gk_job *job) { return gk_tin_build_own(job, 0); }

/* ---- point location, one node at a time ----------------------------------- */

/* Is (px, py) in triangle t (hull edges with a small tolerance)? */
static int tri_contains(const gk_tin *tin, int t, double px, double py)
{
    const int *v = tin->vertex + 3 * (size_t)t;
    for (int k = 0; k < 3; k++) {
        int a = v[(k + 1) % 3], b = v[(k + 2) % 3];
        double ax = LX(tin, a), ay = LY(tin, a), bx = LX(tin, b), by = LY(tin, b);
        double ex = bx - ax, ey = by - ay;
        double o = orient(ax, ay, bx, by, px, py);
        if (o < -GK_HULL_TOL * (ex * ex + ey * ey))
            return 0;
    }
    return 1;
}

/* A degenerate triangle holds only nodes on its line, which also lie on an
 * edge of a proper neighbour: use that one if there is one. */
static int degenerate_escape(const gk_tin *tin, int *t, double px, double py)
{
    const int *nb = tin->neighbor + 3 * (size_t)*t;
    for (int k = 0; k < 3; k++)
        if (nb[k] >= 0 && !isnan(tin->plane[3 * (size_t)nb[k] + 1]) &&
            tri_contains(tin, nb[k], px, py)) {
            *t = nb[k];
            return GK_TIN_INSIDE;
        }
    return GK_TIN_DEGENERATE;
}

/* Brute force, after a walk that did not converge. */
static int scan(const gk_tin *tin, int *t, double px, double py)
{
    int degen = -1;
    for (int u = 0; u < tin->n_tri; u++)
        if (tri_contains(tin, u, px, py)) {
            if (!isnan(tin->plane[3 * (size_t)u + 1])) {
                *t = u;
                return GK_TIN_INSIDE;
            }
            degen = u;
        }
    if (degen >= 0) {
        *t = degen;
        return GK_TIN_DEGENERATE;
    }
    return GK_TIN_OUTSIDE;
}

/* Visibility walk from *t towards (px, py) (local coordinates). Leaves *t at
 * the triangle found, or the last one visited when the node is outside. */
int gk_tin_locate(const gk_tin *tin, int *t, double px, double py)
{
    int cur = *t;
    for (int step = 0; step < tin->walk_cap; step++) {
        const int *v = tin->vertex + 3 * (size_t)cur, *nb = tin->neighbor + 3 * (size_t)cur;
        int next = -1, out = 0;
        /* Rotate the first edge tried so that roundoff cannot lock a cycle. */
        for (int kk = 0; kk < 3; kk++) {
            int k = (kk + step) % 3;
            int a = v[(k + 1) % 3], b = v[(k + 2) % 3];
            double ax = LX(tin, a), ay = LY(tin, a), bx = LX(tin, b), by = LY(tin, b);
            double o = orient(ax, ay, bx, by, px, py);
            if (o >= 0.0)
                continue;
            if (nb[k] >= 0) {
                next = nb[k];
                break;
            }
            double ex = bx - ax, ey = by - ay;
            if (o < -GK_HULL_TOL * (ex * ex + ey * ey))
                out = 1; /* beyond a hull edge: outside, unless an interior edge leads on */
        }
        if (next >= 0) {
            cur = next;
            continue;
        }
        *t = cur;
        if (out)
            return GK_TIN_OUTSIDE; /* the hull is convex: beyond one hull edge is outside */
        if (isnan(tin->plane[3 * (size_t)cur + 1]))
            return degenerate_escape(tin, t, px, py);
        return GK_TIN_INSIDE;
    }
    return scan(tin, t, px, py);
}
