/*
 * linear/linear.c - gdal_grid's `linear`: barycentric interpolation in a
 * Delaunay triangulation (gdal_grid.md 4.2; section 8 items 5 and 17).
 *
 * The triangulation is the core's own (delaunay.c), or the context's hook
 * when one is installed; this file prepares it and evaluates it.
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
#include "delaunay.h"
#include "linear.h"
#include "core/method.h"
#include "search/kdtree.h"
#include "linear_raster.h"

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
/* Near-ties of the nearest-point walk: relative, far above the roundoff of d^2. */
#define GK_NEAR_TIE 1e-12
#define GK_MAX_LEVELS 24
_Static_assert(GK_MAX_LEVELS <= GK_GPU_LIN_MAX_LEVELS, "the GPU job holds every level");

/* Triangles are sorted into square buckets of a few levels (a loose
 * quadtree): a triangle sits at the finest level where its bounding box
 * spans at most two buckets each way, in the bucket of its lower-left corner,
 * and the triangles of one bucket row are contiguous. */
typedef struct {
    double x0, y0, inv; /* bucket of x: (x - x0) * inv */
    int nx, ny;
    int *start; /* nx * ny + 1 triangle offsets, into gk_tin.bstart */
} tin_level;

struct gk_tin {
    int n_tri;
    int *vertex;   /* 3 per triangle, counter-clockwise, the smallest number first */
    int *neighbor; /* 3 per triangle, across the edge opposite vertex k; -1 = hull */
    double *plane; /* 3 per triangle: z = za + gx (x - xa) + gy (y - ya) about its first
                      vertex a (accurate far from the origin); gx NaN = degenerate */
    /* Vertices are renumbered in level-0 bucket order (locality): */
    double *xy;         /* 2 per point, in that order */
    int *orig;          /* its input index */
    int *dup;           /* NULL, or per vertex the last input index coincident with it */
    double *z;          /* their values, in that order */
    size_t n;
    gk_kdtree *tree;    /* own index, only where the walk cannot find the nearest */
    int need_tree;      /* no triangles, or points the triangulator left out */
    double ox, oy;      /* local origin (bbox centre) */
    int walk_cap;       /* steps before a walk gives up and scans */
    int nlev;
    tin_level lev[GK_MAX_LEVELS];
    int *bstart; /* all levels' offsets */
    int *seed;   /* per level-0 bucket: a triangle in or near it, to start walks */
};

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
int gk_tin_triangles(const gk_tin *tin)
{
    return tin ? tin->n_tri : 0;
}

static double orient(double ax, double ay, double bx, double by, double px, double py)
{
    return (bx - ax) * (py - ay) - (by - ay) * (px - ax);
}

static inline double LX(const gk_tin *tin, int v)
{
    return tin->xy[2 * (size_t)v] - tin->ox;
}
static inline double LY(const gk_tin *tin, int v)
{
    return tin->xy[2 * (size_t)v + 1] - tin->oy;
}

static inline int bucket_of(double f, int n)
{
    return gk_lr_bucket_of(f, n);
}

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
        tin_level *lv = &tin->lev[L];
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
        const tin_level *lv = &tin->lev[l];
        int bx = bucket_of((xl - lv->x0) * lv->inv, lv->nx);
        int by = bucket_of((yl - lv->y0) * lv->inv, lv->ny);
        if (l == tin->nlev - 1 ||
            (bucket_of((xh - lv->x0) * lv->inv, lv->nx) - bx <= 1 &&
             bucket_of((yh - lv->y0) * lv->inv, lv->ny) - by <= 1))
            return base + (uint32_t)by * lv->nx + bx;
        base += (uint32_t)lv->nx * lv->ny;
    }
    return base;
}

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
    const tin_level *lv = &tin->lev[0];
    uint64_t nb = (uint64_t)lv->nx * lv->ny;
    int bits = 1;
    while (bits < 32 && (1ull << bits) < nb)
        bits++;
    uint64_t *key = malloc(n * sizeof *key), *tmp = malloc(n * sizeof *tmp);
    tin->xy = malloc(2 * n * sizeof *tin->xy);
    tin->z = malloc(n * sizeof *tin->z);
    tin->orig = malloc(n * sizeof *tin->orig);
    uint64_t *s = NULL;
    if (key && tmp && tin->xy && tin->z && tin->orig) {
#pragma omp parallel for num_threads(nth) schedule(static)
        for (size_t i = 0; i < n; i++) {
            int bx = bucket_of((pts->x[i] - lv->x0) * lv->inv, lv->nx);
            int by = bucket_of((pts->y[i] - lv->y0) * lv->inv, lv->ny);
            key[i] = ((uint64_t)by * lv->nx + bx) << 32 | (uint32_t)i;
        }
        s = radix_sort(key, tmp, n, bits, nth);
    }
    if (s) {
#pragma omp parallel for num_threads(nth) schedule(static)
        for (size_t v = 0; v < n; v++) {
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
#pragma omp parallel for num_threads(nth) schedule(static) reduction(| : bad)
    for (int t = 0; t < nt; t++) {
        int *v = tin->vertex + 3 * (size_t)t, *nb = tin->neighbor + 3 * (size_t)t;
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

/* The plane of triangle t at (x, y); the rasteriser computes the same
 * expression a row at a time. */
static inline double plane_at(const gk_tin *tin, int t, double x, double y)
{
    const double *p = tin->plane + 3 * (size_t)t;
    const double *A = tin->xy + 2 * (size_t)tin->vertex[3 * (size_t)t];
    return (p[0] + p[2] * (y - A[1])) + p[1] * (x - A[0]);
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
    uint64_t *tmp = malloc((size_t)nt * sizeof *tmp);
    int *inv = malloc((size_t)nt * sizeof *inv);
    int *vert = malloc(3 * (size_t)nt * sizeof *vert);
    int *nbr = malloc(3 * (size_t)nt * sizeof *nbr);
    tin->plane = malloc(3 * (size_t)nt * sizeof *tin->plane);
    uint64_t *s = tmp && inv && vert && nbr && tin->plane ? radix_sort(key, tmp, nt, bits, nth)
                                                          : NULL;
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
        for (int i = 0; i < nt; i++)
            inv[(uint32_t)s[i]] = i;
        /* A scatter in the old order: its reads of inv are near each other
         * (neighbours were made together), only the writes jump. */
#pragma omp for schedule(static)
        for (int o = 0; o < nt; o++) {
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
    const tin_level *lv = &tin->lev[0];
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

static int seed_at(const gk_tin *tin, double x, double y)
{
    const tin_level *lv = &tin->lev[0];
    int bx = bucket_of((x - lv->x0) * lv->inv, lv->nx), by = bucket_of((y - lv->y0) * lv->inv, lv->ny);
    return tin->seed[(size_t)by * lv->nx + bx];
}

enum { LOC_INSIDE, LOC_OUTSIDE, LOC_DEGENERATE };
static int locate(const gk_tin *tin, int *t, double px, double py);

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
        int t = seed_at(tin, p[0], p[1]), hit = -1;
        locate(tin, &t, LX(tin, (int)i), LY(tin, (int)i));
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

int gk_tin_build(gk_job *job)
{
    gk_context *ctx = job->ctx;
    const gk_points *pts = job->pts;
    size_t n = pts->n;
    gk_tin_free(job->tin);
    job->tin = NULL;
    if (n == 0)
        return gk_error(ctx, GK_ERR_NO_POINTS, "linear: no points to triangulate");
    if (n > (size_t)INT_MAX)
        return gk_error(ctx, GK_ERR_NOMEM, "linear: %zu points, at most %d can be triangulated",
                        n, INT_MAX);
    int nth = ctx->threads > 0 ? ctx->threads : omp_get_num_procs();

    gk_tin *tin = calloc(1, sizeof *tin);
    if (!tin)
        return gk_error(ctx, GK_ERR_NOMEM, "linear: out of memory");
    tin->n = n;
    double xmin = pts->x[0], xmax = xmin, ymin = pts->y[0], ymax = ymin;
#pragma omp parallel for num_threads(nth) schedule(static) \
    reduction(min : xmin, ymin) reduction(max : xmax, ymax)
    for (size_t i = 0; i < n; i++) {
        xmin = fmin(xmin, pts->x[i]);
        xmax = fmax(xmax, pts->x[i]);
        ymin = fmin(ymin, pts->y[i]);
        ymax = fmax(ymax, pts->y[i]);
    }
    tin->ox = 0.5 * (xmin + xmax);
    tin->oy = 0.5 * (ymin + ymax);

    gk_triangulation tri = {0, NULL, NULL};
    /* A hook the caller installed, else the core's own (delaunay.c). */
    int rc = GK_ERR_ARG;
    if (n >= 3 && ctx->triangulate)
        rc = ctx->triangulate(ctx->triangulate_user, (int)n, pts->x, pts->y, &tri);
    else if (n >= 3)
        rc = gk_delaunay(ctx, (int)n, pts->x, pts->y, &tri);
    if (rc == GK_ERR_ARG || (rc == GK_OK && tri.n_tri <= 0)) {
        /* Too few or collinear points: nearest-point rule everywhere (not an
         * error, as gdal_grid; but said, as gdal_grid does not). */
        snprintf(job->warning, sizeof job->warning,
                 "linear: the %zu point(s) have no triangle (fewer than 3 distinct points, or "
                 "all on one line): every node gets the nearest point's value, as outside the "
                 "hull (radius=%.15g)",
                 n, job->alg.radius);
        free(tri.vertex);
        free(tri.neighbor);
        gk_error_clear(ctx);
        tin->need_tree = 1;
        if (!job->tree && !(tin->tree = gk_kdtree_build(pts->x, pts->y, n))) {
            gk_tin_free(tin);
            return gk_error(ctx, GK_ERR_NOMEM, "linear: out of memory for %zu points", n);
        }
        job->tin = tin;
        return GK_OK;
    }
    if (rc != GK_OK) {
        free(tri.vertex);
        free(tri.neighbor);
        gk_tin_free(tin);
        if (rc == GK_ERR_NOMEM)
            return gk_error(ctx, GK_ERR_NOMEM, "linear: out of memory triangulating %zu points", n);
        return gk_error(ctx, rc == GK_ERR_UNSUPPORTED ? GK_ERR_UNSUPPORTED : GK_ERR_INTERNAL,
                        "linear: Delaunay triangulation of %zu points failed%s", n,
                        rc == GK_ERR_UNSUPPORTED ? " (GDAL was built without qhull)" : "");
    }
    tin->n_tri = tri.n_tri;
    tin->vertex = tri.vertex;
    tin->neighbor = tri.neighbor;
    uint64_t *key = malloc((size_t)tri.n_tri * sizeof *key);
    tin_pt *byid = malloc(n * sizeof *byid);
    if (!key || !byid || !make_levels(tin, xmin, xmax, ymin, ymax) ||
        !tin_renumber(tin, pts, byid, nth)) {
        free(key);
        free(byid);
        gk_tin_free(tin);
        return gk_error(ctx, GK_ERR_NOMEM, "linear: out of memory for %d triangles", tri.n_tri);
    }
    int valid = tin_orient(tin, key, byid, nth);
    free(byid);
    if (!valid) {
        free(key);
        gk_tin_free(tin);
        return gk_error(ctx, GK_ERR_INTERNAL,
                        "linear: the triangulator returned an invalid vertex or neighbour index");
    }
    int ok = tin_sort(tin, key, nth);
    free(key);
    /* A straight walk crosses O(sqrt(n_tri)) triangles; beyond a generous
     * multiple something is wrong (a roundoff cycle): scan instead. */
    tin->walk_cap = 64 + 8 * (int)sqrt((double)tri.n_tri);
    if (!ok || !tin_seeds(tin) || !tin_duplicates(tin, nth) ||
        (tin->need_tree && !job->tree && !(tin->tree = gk_kdtree_build(pts->x, pts->y, n)))) {
        gk_tin_free(tin);
        return gk_error(ctx, GK_ERR_NOMEM, "linear: out of memory for %d triangles", tri.n_tri);
    }
    job->tin = tin;
    return GK_OK;
}

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
            return LOC_INSIDE;
        }
    return LOC_DEGENERATE;
}

/* Brute force, after a walk that did not converge. */
static int scan(const gk_tin *tin, int *t, double px, double py)
{
    int degen = -1;
    for (int u = 0; u < tin->n_tri; u++)
        if (tri_contains(tin, u, px, py)) {
            if (!isnan(tin->plane[3 * (size_t)u + 1])) {
                *t = u;
                return LOC_INSIDE;
            }
            degen = u;
        }
    if (degen >= 0) {
        *t = degen;
        return LOC_DEGENERATE;
    }
    return LOC_OUTSIDE;
}

/* Visibility walk from *t towards (px, py) (local coordinates). Leaves *t at
 * the triangle found, or the last one visited when the node is outside. */
static int locate(const gk_tin *tin, int *t, double px, double py)
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
            return LOC_OUTSIDE; /* the hull is convex: beyond one hull edge is outside */
        if (isnan(tin->plane[3 * (size_t)cur + 1]))
            return degenerate_escape(tin, t, px, py);
        return LOC_INSIDE;
    }
    return scan(tin, t, px, py);
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
#define FOR_FAN(tin, v, t, BODY)                                                          \
    do {                                                                                  \
        for (int dir_ = 0; dir_ < 2; dir_++) {                                            \
            int u_ = (t), first_ = 1, cap_ = (tin)->n_tri;                                \
            while (u_ >= 0 && (first_ || u_ != (t)) && cap_-- > 0) {                      \
                const int *q_ = (tin)->vertex + 3 * (size_t)u_;                           \
                int k_ = q_[0] == (v) ? 0 : q_[1] == (v) ? 1 : 2;                         \
                if (first_ && dir_ == 1) {                                                \
                    u_ = (tin)->neighbor[3 * (size_t)u_ + (k_ + 2) % 3];                  \
                    first_ = 0;                                                           \
                    continue;                                                             \
                }                                                                         \
                for (int s_ = 1; s_ <= 2; s_++) {                                         \
                    int w = q_[(k_ + s_) % 3], u = u_;                                    \
                    (void)u;                                                              \
                    BODY                                                                  \
                }                                                                         \
                first_ = 0;                                                               \
                u_ = (tin)->neighbor[3 * (size_t)u_ + (dir_ == 0 ? (k_ + 1) % 3           \
                                                                 : (k_ + 2) % 3)];        \
            }                                                                             \
            if (u_ == (t) && dir_ == 0)                                                   \
                break; /* went all the way round: an interior vertex */                   \
        }                                                                                 \
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

/* Value of a node outside the hull (or of any node without triangles). */
static int outside_value(const gk_job *job, const gk_tin *tin, int t, double x, double y,
                         double *val)
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
    const gk_tin *tin = job->tin;
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
            int where = LOC_OUTSIDE, tri = -1;
            if (tin && tin->n_tri > 0) {
                tri = seed_at(tin, x, y);
                where = locate(tin, &tri, lxs[i], lys[j]);
            }
            if (where == LOC_INSIDE) {
                v = plane_at(tin, tri, x, y);
            } else if (where == LOC_DEGENERATE) {
                /* Inside the hull but on a sliver: the nearest data point. */
                double d2;
                int k = nearest(job, tin, tri, x, y, INFINITY, &d2);
                if (k >= 0)
                    v = job->pts->z[k];
                else
                    nodata_nodes++;
            } else if (!tin || !outside_value(job, tin, tri, x, y, &v)) {
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
    const gk_tin *tin = job->tin;
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
                    xs[0], xs[w - 1], ys[h - 1], ys[0], out};
        for (int l = 0; l < tin->nlev; l++) {
            const tin_level *lv = &tin->lev[l];
            /* A triangle's bucket is that of its lower-left corner, and it
             * spans at most one more each way. */
            int bx0 = bucket_of((r.xlo - lv->x0) * lv->inv, lv->nx) - 1;
            int bx1 = bucket_of((r.xhi - lv->x0) * lv->inv, lv->nx);
            int by0 = bucket_of((r.ylo - lv->y0) * lv->inv, lv->ny) - 1;
            int by1 = bucket_of((r.yhi - lv->y0) * lv->inv, lv->ny);
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
    double *xs = tile_nodes(job->tin, t, &s);
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
static void tin_gpu_desc(const gk_tin *tin, gk_gpu_job_desc *d)
{
    d->lin_nv = tin->n_tri > 0 ? tin->n : 0;
    d->lin_nt = tin->n_tri > 0 ? (size_t)tin->n_tri : 0;
    d->lin_xy = tin->xy;
    d->lin_vertex = tin->vertex;
    d->lin_plane = tin->plane;
    d->lin_nlev = tin->n_tri > 0 ? tin->nlev : 0;
    d->lin_nbuckets = 0;
    for (int l = 0; l < d->lin_nlev; l++) {
        const tin_level *lv = &tin->lev[l];
        gk_gpu_lin_level *o = &d->lin_lev[l];
        o->x0 = lv->x0;
        o->y0 = lv->y0;
        o->inv = lv->inv;
        o->nx = lv->nx;
        o->ny = lv->ny;
        d->lin_nbuckets += (size_t)lv->nx * lv->ny;
    }
    d->lin_bstart = tin->bstart;
}

/* ---- the registry's row ------------------------------------------------ */

static void linear_release(gk_job *job)
{
    gk_tin_free(job->tin);
    job->tin = NULL;
}

static int linear_canonical(const gk_algorithm *a, char *buf, size_t cap)
{
    return snprintf(buf, cap, ":radius=%.17g", a->radius);
}

/* The GPU rasterises the tin's triangles; the nodes they leave are located
 * on the CPU (gk_linear_finish). */
static const char *linear_gpu(const gk_job *job, gk_gpu_job_desc *d)
{
    if (!job->tin)
        return "linear without its triangulation";
    d->op = GK_GPU_LINEAR;
    tin_gpu_desc(job->tin, d);
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
    .keys = GK_KEY_RADIUS | GK_KEY_NODATA,
    .flags = GK_M_OWN_RADIUS | GK_M_GPU_EXPLICIT | GK_M_GPU_CPU_TAIL,
    .canonical = linear_canonical,
    .build = gk_tin_build,
    .release = linear_release,
    .cpu_tile = gk_linear_tile,
    .gpu_describe = linear_gpu,
    .gpu_finish = gk_linear_finish,
};
