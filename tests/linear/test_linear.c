/* SPDX-License-Identifier: MIT */
/* test_linear.c - the linear algorithm: plane reproduction, hull rules,
 * lat/lon-scale data, degenerate and duplicate input. */
#include "linear/delaunay.h"
#include "core/gk_internal.h"
#include "linear/linear.h"
#include "search/kdtree.h"
#include "io/triangulate_gdal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gk_check.h"

#define NODATA -9999.0

static uint64_t rng = 88172645463325252ull;
static double urand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (rng >> 11) * (1.0 / 9007199254740992.0);
}

/* linear:radius=R:nodata=NODATA on the CPU, through the API. */
static gk_job *make_job(gk_context *ctx, const gk_points *pts, double radius)
{
    char spec[96];
    snprintf(spec, sizeof spec, "linear:radius=%.17g:nodata=%.17g", radius, NODATA);
    gk_context_set_device(ctx, "cpu");
    gk_algorithm *alg = gk_algorithm_parse(ctx, spec);
    gk_job *job = alg ? gk_job_new(ctx, pts, alg) : NULL;
    if (!job)
        fprintf(stderr, "%s: %s\n", spec, gk_errmsg(ctx));
    gk_algorithm_free(alg);
    return job;
}

static void free_job(gk_job *job) { gk_job_free(job); }

/* The whole grid, in tiles of tw x th. */
static uint64_t compute(const gk_job *job, const gk_grid *g, int tw, int th, double *out)
{
    gk_scratch s;
    memset(&s, 0, sizeof s);
    uint64_t nd = 0;
    double *buf = malloc(sizeof(double) * (size_t)tw * th);
    for (int y0 = 0; y0 < g->ny; y0 += th)
        for (int x0 = 0; x0 < g->nx; x0 += tw) {
            gk_tile t = {g,
                         x0,
                         y0,
                         x0 + tw > g->nx ? g->nx - x0 : tw,
                         y0 + th > g->ny ? g->ny - y0 : th,
                         gk_hit_threshold2(g)};
            nd += gk_linear_tile(job, &t, buf, &s);
            for (int j = 0; j < t.h; j++)
                memcpy(out + (size_t)(y0 + j) * g->nx + x0, buf + (size_t)j * t.w,
                       sizeof(double) * t.w);
        }
    free(buf);
    gk_scratch_free(&s);
    return nd;
}

/* Convex hull (monotone chain, CCW) to classify nodes independently. */
static int cmp_pt(const void *a, const void *b)
{
    const double *p = a, *q = b;
    return p[0] < q[0] ? -1 : p[0] > q[0] ? 1 : (p[1] < q[1] ? -1 : p[1] > q[1]);
}
static double cross(const double *o, const double *a, const double *b)
{
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}
static int hull(const gk_points *pts, double *h /* 2*(n+1) */)
{
    size_t n = pts->n;
    double *p = malloc(sizeof(double) * 2 * n);
    for (size_t i = 0; i < n; i++)
        p[2 * i] = pts->x[i], p[2 * i + 1] = pts->y[i];
    qsort(p, n, 2 * sizeof(double), cmp_pt);
    int k = 0;
    for (size_t i = 0; i < n; i++) {
        while (k >= 2 && cross(h + 2 * (k - 2), h + 2 * (k - 1), p + 2 * i) <= 0)
            k--;
        h[2 * k] = p[2 * i], h[2 * k + 1] = p[2 * i + 1], k++;
    }
    for (long i = (long)n - 2, t = k + 1; i >= 0; i--) {
        while (k >= t && cross(h + 2 * (k - 2), h + 2 * (k - 1), p + 2 * i) <= 0)
            k--;
        h[2 * k] = p[2 * i], h[2 * k + 1] = p[2 * i + 1], k++;
    }
    free(p);
    return k - 1;
}
/* Signed distance-ish: > m inside by at least m (relative to edge length), < -m outside. */
static double hull_margin(const double *h, int m, double x, double y)
{
    double best = INFINITY;
    for (int i = 0; i < m; i++) {
        const double *a = h + 2 * i, *b = h + 2 * (i + 1);
        double q[2] = {x, y};
        double len = hypot(b[0] - a[0], b[1] - a[1]);
        double d = cross(a, b, q) / len;
        if (d < best)
            best = d;
    }
    return best;
}

static int nearest_brute(const gk_points *pts, double x, double y, double *d2)
{
    int best = -1;
    double bd = INFINITY;
    for (size_t i = 0; i < pts->n; i++) {
        double d = (pts->x[i] - x) * (pts->x[i] - x) + (pts->y[i] - y) * (pts->y[i] - y);
        if (d <= bd)
            bd = d, best = (int)i;
    }
    *d2 = bd;
    return best;
}

/* Plane reproduced inside the hull; radius rule outside. */
static void test_plane_and_hull(gk_context *ctx, double ox, double oy, double scale,
                                const char *what)
{
    const double a = 3.25, b = 0.5 / scale, c = -0.75 / scale;
    gk_points *pts = gk_points_new(ctx);
    int n = 400;
    for (int i = 0; i < n; i++) {
        double x = ox + scale * urand(), y = oy + scale * urand();
        gk_points_add(pts, x, y, a + b * (x - ox) + c * (y - oy));
    }
    double *h = malloc(sizeof(double) * 2 * (n + 2));
    int m = hull(pts, h);
    /* Grid wider than the data so that some nodes are outside the hull. */
    gk_grid g = {ox - 0.1 * scale, ox + 1.1 * scale, oy - 0.1 * scale, oy + 1.1 * scale, 157, 143};
    size_t nn = (size_t)g.nx * g.ny;
    double *out = malloc(sizeof(double) * nn), *out2 = malloc(sizeof(double) * nn);
    double radii[3] = {-1.0, 0.0, 0.05 * scale};
    for (int r = 0; r < 3; r++) {
        gk_job *job = make_job(ctx, pts, radii[r]);
        CHECKF(job != NULL, "%s: job", what);
        if (!job)
            break;
        uint64_t nd = compute(job, &g, g.nx, g.ny, out);
        uint64_t nd2 = compute(job, &g, 17, 11, out2); /* tiling must not matter */
        CHECKF(nd == nd2, "%s: nodata counts %llu vs %llu", what, (unsigned long long)nd,
               (unsigned long long)nd2);
        int inside = 0, outside = 0, bad = 0, nd_seen = 0;
        double maxerr = 0.0;
        for (int j = 0; j < g.ny; j++)
            for (int i = 0; i < g.nx; i++) {
                double x = gk_grid_node_x(&g, i), y = gk_grid_node_y(&g, j);
                double v = out[(size_t)j * g.nx + i], v2 = out2[(size_t)j * g.nx + i];
                if (!(fabs(v - v2) <= 1e-9 * (1 + fabs(v))))
                    bad++;
                if (v == NODATA)
                    nd_seen++;
                double mg = hull_margin(h, m, x, y);
                if (mg > 1e-9 * scale) {
                    inside++;
                    double e = fabs(v - (a + b * (x - ox) + c * (y - oy)));
                    maxerr = e > maxerr ? e : maxerr;
                } else if (mg < -1e-9 * scale) {
                    outside++;
                    double d2, want = NODATA;
                    int k = nearest_brute(pts, x, y, &d2);
                    if (radii[r] < 0 || (radii[r] > 0 && d2 <= radii[r] * radii[r]))
                        want = pts->z[k];
                    if (v != want)
                        bad++;
                }
            }
        CHECKF(maxerr <= 1e-9, "%s radius=%g: plane error %g", what, radii[r], maxerr);
        CHECKF(bad == 0, "%s radius=%g: %d nodes wrong outside the hull or tiling-dependent", what,
               radii[r], bad);
        CHECKF(inside > 1000 && outside > 1000, "%s: %d inside, %d outside", what, inside, outside);
        CHECKF(nd == (uint64_t)nd_seen, "%s: reported %llu nodata, saw %d", what,
               (unsigned long long)nd, nd_seen);
        if (radii[r] < 0)
            CHECKF(nd == 0, "%s: radius<0 wrote %llu nodata", what, (unsigned long long)nd);
        if (radii[r] == 0)
            CHECKF(nd >= (uint64_t)outside, "%s: radius=0 nodata %llu < outside %d", what,
                   (unsigned long long)nd, outside);
        printf("%s radius=%g: %d inside (max plane error %.3g), %d outside, %llu nodata\n", what,
               radii[r], inside, maxerr, outside, (unsigned long long)nd);
        free_job(job);
    }
    free(out);
    free(out2);
    free(h);
    gk_points_free(pts);
}

/* Lat/lon-scale data (0.001 deg spacing): gdal_grid's absolute |2A| < 1e-5
 * makes every triangle degenerate there, i.e. nearest; we must interpolate. */
static void test_latlon(gk_context *ctx)
{
    gk_points *pts = gk_points_new(ctx);
    for (int j = 0; j < 20; j++)
        for (int i = 0; i < 20; i++) {
            double x = 10.0 + 0.001 * (i + 0.3 * (urand() - 0.5));
            double y = 45.0 + 0.001 * (j + 0.3 * (urand() - 0.5));
            gk_points_add(pts, x, y, 100.0 + 2000.0 * (x - 10.0) + 3000.0 * (y - 45.0));
        }
    gk_job *job = make_job(ctx, pts, 0.0);
    CHECKF(job && gk_tin_triangles(gk_linear_tin(job)) > 600, "lat/lon: triangulation");
    if (!job)
        return;
    gk_grid g = {10.002, 10.017, 45.002, 45.017, 97, 89};
    double *out = malloc(sizeof(double) * g.nx * g.ny);
    uint64_t nd = compute(job, &g, 32, 32, out);
    double maxerr = 0.0;
    int nearest_like = 0;
    for (int j = 0; j < g.ny; j++)
        for (int i = 0; i < g.nx; i++) {
            double x = gk_grid_node_x(&g, i), y = gk_grid_node_y(&g, j);
            double want = 100.0 + 2000.0 * (x - 10.0) + 3000.0 * (y - 45.0);
            double v = out[(size_t)j * g.nx + i], e = fabs(v - want);
            maxerr = e > maxerr ? e : maxerr;
            double d2;
            int k = nearest_brute(pts, x, y, &d2);
            if (v == pts->z[k] && d2 > 1e-12)
                nearest_like++;
        }
    CHECKF(nd == 0, "lat/lon: %llu nodata inside the hull", (unsigned long long)nd);
    CHECKF(maxerr <= 1e-9, "lat/lon: plane error %g (nearest would be ~1)", maxerr);
    CHECKF(nearest_like == 0, "lat/lon: %d nodes got a nearest value", nearest_like);
    printf("lat/lon 0.001 deg: %d nodes, max plane error %.3g\n", g.nx * g.ny, maxerr);
    free(out);
    free_job(job);
    gk_points_free(pts);
}

/* Every node against brute force: inside a triangle the plane of the (any)
 * triangle that holds it, outside the hull the nearest point (ties to the
 * last in input order) within the radius. The triangles are the core's own.
 * Also: the same bits for any tiling. */
static void check_against_brute(gk_context *ctx, const char *what, const gk_points *pts,
                                const gk_grid *g, double radius, double tol)
{
    size_t nn = (size_t)g->nx * g->ny;
    double *a = malloc(nn * sizeof *a), *b = malloc(nn * sizeof *b), *c = malloc(nn * sizeof *c);
    gk_job *job = make_job(ctx, pts, radius);
    CHECKF(job != NULL, "%s: job", what);
    if (!job) {
        free(a), free(b), free(c);
        return;
    }
    uint64_t nd = compute(job, g, g->nx, g->ny, a);
    uint64_t nd2 = compute(job, g, 7, 5, b);
    compute(job, g, 64, 3, c);
    CHECKF(nd == nd2 && !memcmp(a, b, nn * sizeof *a) && !memcmp(a, c, nn * sizeof *a),
           "%s: the result depends on the tiling", what);
    gk_triangulation tri;
    CHECKF(gk_delaunay(ctx, (int)pts->n, pts->x, pts->y, &tri) == GK_OK, "%s: delaunay", what);
    int bad = 0, inside = 0, outside = 0;
    double maxerr = 0.0;
    for (int j = 0; j < g->ny; j++)
        for (int i = 0; i < g->nx; i++) {
            double x = gk_grid_node_x(g, i), y = gk_grid_node_y(g, j), v = a[(size_t)j * g->nx + i];
            /* Exact containment in some triangle (closed). */
            int in = -1;
            for (int t = 0; t < tri.n_tri && in < 0; t++) {
                const int *tv = tri.vertex + 3 * t;
                int ok = 1;
                for (int k = 0; k < 3 && ok; k++) {
                    const double pa[2] = {pts->x[tv[(k + 1) % 3]], pts->y[tv[(k + 1) % 3]]};
                    const double pb[2] = {pts->x[tv[(k + 2) % 3]], pts->y[tv[(k + 2) % 3]]};
                    const double pc[2] = {x, y};
                    ok = gk_orient(pa, pb, pc) >= 0;
                }
                if (ok)
                    in = t;
            }
            if (in >= 0) {
                inside++;
                /* the plane through the triangle, from its vertices */
                const int *tv = tri.vertex + 3 * in;
                double ax = pts->x[tv[0]], ay = pts->y[tv[0]], bx = pts->x[tv[1]] - ax,
                       by = pts->y[tv[1]] - ay, cx = pts->x[tv[2]] - ax, cy = pts->y[tv[2]] - ay;
                double za = pts->z[tv[0]], zb = pts->z[tv[1]] - za, zc = pts->z[tv[2]] - za;
                double det = bx * cy - by * cx;
                double u = ((x - ax) * cy - (y - ay) * cx) / det;
                double w = (bx * (y - ay) - by * (x - ax)) / det;
                double e = fabs(v - (za + u * zb + w * zc));
                maxerr = e > maxerr ? e : maxerr;
            } else {
                outside++;
                double d2, want = NODATA;
                int k = nearest_brute(pts, x, y, &d2);
                if (radius < 0 || (radius > 0 && d2 <= radius * radius))
                    want = pts->z[k];
                bad += v != want;
            }
        }
    CHECKF(maxerr <= tol, "%s: plane error %g", what, maxerr);
    CHECKF(bad == 0, "%s: %d nodes outside the hull differ from the brute-force nearest", what,
           bad);
    printf("%s radius=%g: %d inside (max error %.3g), %d outside, all as brute force\n", what,
           radius, inside, maxerr, outside);
    free(tri.vertex);
    free(tri.neighbor);
    free_job(job);
    free(a), free(b), free(c);
}

/* The core triangulation on awkward inputs: lattices (nodes on vertices and
 * edges, cocircular cells, equidistant nearest points), duplicates with
 * different values, near-ties on an arc. */
static void test_core(void)
{
    gk_context *ctx = gk_context_new(); /* no hook: the core's Delaunay */
    gk_points *pts = gk_points_new(ctx);
    for (int i = 0; i < 300; i++) /* random, z not a plane */
        gk_points_add(pts, 100.0 * urand(), 100.0 * urand(), urand());
    gk_grid g1 = {-20, 120, -10, 110, 71, 67};
    check_against_brute(ctx, "core random", pts, &g1, -1.0, 1e-9);
    check_against_brute(ctx, "core random", pts, &g1, 7.0, 1e-9);
    gk_points_free(pts);

    /* A 12 x 9 lattice of step 10, z in input order; nodes every 2.5 (on
     * vertices, edges and diagonals) and beyond, equidistant from 2 or 4. */
    pts = gk_points_new(ctx);
    for (int j = 0; j < 9; j++)
        for (int i = 0; i < 12; i++)
            gk_points_add(pts, 10.0 * i, 10.0 * j, sin(0.7 * i) + cos(1.3 * j));
    gk_grid g2 = {-21.25, 131.25, -21.25, 101.25, 61, 49};
    check_against_brute(ctx, "core lattice", pts, &g2, -1.0, 1e-12);
    check_against_brute(ctx, "core lattice", pts, &g2, 15.0, 1e-12);
    /* Every point twice more, with other values: ties to the last copy. */
    size_t n0 = pts->n;
    for (int r = 0; r < 2; r++)
        for (size_t i = 0; i < n0; i++)
            gk_points_add(pts, pts->x[i], pts->y[i], 10.0 * (r + 1) + (double)i);
    check_against_brute(ctx, "core lattice, copies", pts, &g2, -1.0, 1e-12);
    gk_points_free(pts);

    /* 200 points on an arc round the origin (rounded: near-ties), one inside
     * it; nodes near the centre are outside the hull. */
    pts = gk_points_new(ctx);
    for (int i = 0; i < 200; i++) {
        double a = -0.5 + i / 199.0;
        gk_points_add(pts, 10.0 * cos(a), 10.0 * sin(a), (double)i);
    }
    gk_points_add(pts, 9.9, 0.01, -1.0);
    gk_grid g3 = {-1.0, 1.0, -1.0, 1.0, 9, 9};
    check_against_brute(ctx, "core arc", pts, &g3, -1.0, 1e-9);
    gk_points_free(pts);
    gk_context_free(ctx);
}

/* 1, 2 or collinear points: no triangles, nearest rule everywhere. */
static void test_degenerate(gk_context *ctx)
{
    int counts[4] = {1, 2, 3, 50};
    for (int c = 0; c < 4; c++) {
        gk_points *pts = gk_points_new(ctx);
        for (int i = 0; i < counts[c]; i++)
            gk_points_add(pts, 100.0 + 2.0 * i, 50.0 + 1.0 * i, (double)i);
        if (counts[c] == 50) /* plus exact duplicates on the line */
            for (int i = 0; i < 10; i++)
                gk_points_add(pts, 100.0 + 2.0 * i, 50.0 + 1.0 * i, (double)i);
        gk_grid g = {90, 210, 40, 110, 60, 35};
        double *out = malloc(sizeof(double) * g.nx * g.ny);
        for (int r = 0; r < 2; r++) {
            gk_job *job = make_job(ctx, pts, r == 0 ? -1.0 : 0.0);
            CHECKF(job != NULL, "collinear n=%d: job: %s", counts[c], gk_errmsg(ctx));
            if (!job)
                continue;
            CHECKF(gk_tin_triangles(gk_linear_tin(job)) == 0, "collinear n=%d: %d triangles",
                   counts[c], gk_tin_triangles(gk_linear_tin(job)));
            uint64_t nd = compute(job, &g, 16, 16, out);
            int bad = 0;
            for (int j = 0; j < g.ny; j++)
                for (int i = 0; i < g.nx; i++) {
                    double d2, v = out[(size_t)j * g.nx + i];
                    int k = nearest_brute(pts, gk_grid_node_x(&g, i), gk_grid_node_y(&g, j), &d2);
                    double want = r == 0 ? pts->z[k] : NODATA;
                    bad += v != want;
                }
            CHECKF(bad == 0, "collinear n=%d radius=%d: %d nodes wrong", counts[c], -r, bad);
            CHECKF(r == 0 ? nd == 0 : nd == (uint64_t)g.nx * g.ny, "nodata count %llu",
                   (unsigned long long)nd);
            free_job(job);
        }
        free(out);
        gk_points_free(pts);
    }
    printf("1, 2, 3 and 60 collinear points: nearest rule everywhere\n");
}

/* Coincident points (same z, then different z): no crash, plane still exact. */
static void test_duplicates(gk_context *ctx)
{
    gk_points *pts = gk_points_new(ctx);
    for (int i = 0; i < 300; i++) {
        double x = 1000.0 * urand(), y = 1000.0 * urand();
        int copies = 1 + (i % 4);
        for (int k = 0; k < copies; k++)
            gk_points_add(pts, x, y, 7.0 + 0.01 * x + 0.02 * y);
    }
    gk_grid g = {0, 1000, 0, 1000, 101, 103};
    double *out = malloc(sizeof(double) * g.nx * g.ny);
    gk_job *job = make_job(ctx, pts, 0.0);
    CHECKF(job != NULL, "duplicates: job");
    if (job) {
        compute(job, &g, 25, 25, out);
        double maxerr = 0.0;
        int interp = 0;
        for (int j = 0; j < g.ny; j++)
            for (int i = 0; i < g.nx; i++) {
                double v = out[(size_t)j * g.nx + i];
                if (v == NODATA)
                    continue;
                interp++;
                double e =
                    fabs(v - (7.0 + 0.01 * gk_grid_node_x(&g, i) + 0.02 * gk_grid_node_y(&g, j)));
                maxerr = e > maxerr ? e : maxerr;
            }
        CHECKF(maxerr <= 1e-9, "duplicates: plane error %g", maxerr);
        CHECKF(interp > 8000, "duplicates: only %d nodes interpolated", interp);
        printf("%zu points with duplicates: %d triangles, %d nodes, max plane error %.3g\n", pts->n,
               gk_tin_triangles(gk_linear_tin(job)), interp, maxerr);
        free_job(job);
    }
    /* Coincident points with different z: any of them may win, nothing may break. */
    for (size_t i = 0; i < pts->n; i++)
        pts->z[i] = (double)(i % 7);
    job = make_job(ctx, pts, -1.0);
    CHECKF(job != NULL, "duplicates (different z): job");
    if (job) {
        compute(job, &g, 25, 25, out);
        int bad = 0;
        for (size_t i = 0; i < (size_t)g.nx * g.ny; i++)
            bad += !(out[i] >= 0.0 && out[i] <= 6.0);
        CHECKF(bad == 0, "duplicates (different z): %d values outside [0, 6]", bad);
        free_job(job);
    }
    free(out);
    gk_points_free(pts);
}

/* No hook installed: the core's own Delaunay (delaunay.c) is used. */
static void test_no_triangulator(void)
{
    gk_context *ctx = gk_context_new();
    gk_points *pts = gk_points_new(ctx);
    gk_points_add(pts, 0, 0, 0);
    gk_points_add(pts, 1, 0, 0);
    gk_points_add(pts, 0, 1, 0);
    gk_algorithm *alg = gk_algorithm_parse(ctx, "linear");
    gk_job *job = alg ? gk_job_new(ctx, pts, alg) : NULL;
    CHECKF(job && gk_tin_triangles(gk_linear_tin(job)) == 1, "core triangulator: %s",
           gk_errmsg(ctx));
    gk_job_free(job);
    gk_algorithm_free(alg);
    gk_points_free(pts);
    gk_context_free(ctx);
}

/* The hook itself: counter-clockwise triangles, neighbours opposite vertex k. */
static void test_hook(void)
{
    double x[5] = {0, 1, 1, 0, 0.5}, y[5] = {0, 0, 1, 1, 0.5};
    gk_triangulation tri;
    CHECKF(gk_gdal_triangulate(NULL, 5, x, y, &tri) == GK_OK, "hook on a square");
    CHECKF(tri.n_tri == 4, "square + centre: %d triangles", tri.n_tri);
    for (int t = 0; t < tri.n_tri; t++) {
        int *v = tri.vertex + 3 * t;
        double o =
            (x[v[1]] - x[v[0]]) * (y[v[2]] - y[v[0]]) - (y[v[1]] - y[v[0]]) * (x[v[2]] - x[v[0]]);
        CHECKF(o > 0, "triangle %d not counter-clockwise", t);
        for (int k = 0; k < 3; k++) {
            int u = tri.neighbor[3 * t + k];
            if (u < 0)
                continue;
            /* The neighbour shares exactly the two other vertices. */
            int shared = 0;
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++)
                    shared += a != k && tri.vertex[3 * u + b] == v[a];
            int has_k = 0;
            for (int b = 0; b < 3; b++)
                has_k += tri.vertex[3 * u + b] == v[k];
            CHECKF(shared == 2 && !has_k, "triangle %d edge %d: wrong neighbour %d", t, k, u);
        }
    }
    free(tri.vertex);
    free(tri.neighbor);
    double cx[4] = {0, 1, 2, 3}, cy[4] = {0, 1, 2, 3};
    CHECKF(gk_gdal_triangulate(NULL, 4, cx, cy, &tri) == GK_ERR_ARG && tri.n_tri == 0,
           "collinear input must be refused");
    CHECKF(gk_gdal_triangulate(NULL, 2, cx, cy, &tri) == GK_ERR_ARG, "2 points must be refused");
}

int main(void)
{
    gk_context *ctx = gk_context_new();
    gk_context_set_triangulator(ctx, gk_gdal_triangulate, NULL);
    test_hook();
    test_no_triangulator();
    test_plane_and_hull(ctx, 0.0, 0.0, 1000.0, "unit-ish");
    test_plane_and_hull(ctx, 500000.0, 5000000.0, 1000.0, "UTM offset");
    test_latlon(ctx);
    test_degenerate(ctx);
    test_duplicates(ctx);
    gk_context_free(ctx);
    test_core();
    if (failures)
        fprintf(stderr, "%d failure(s) of %d checks\n", failures, checks);
    else
        printf("all linear tests passed (%d checks)\n", checks);
    return failures ? 1 : 0;
}
