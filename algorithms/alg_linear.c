/*
 * alg_linear.c - gdal_grid's `linear`: barycentric interpolation in a
 * Delaunay triangulation (gdal_grid.md 4.2; section 8 items 5 and 17).
 *
 * The triangulation is the core's own (delaunay.c), or the context's hook
 * when one is installed; this file only prepares it for point location and
 * evaluates it.
 * Differences from gdal_grid 3.6, on purpose:
 *  - degenerate triangles are found by a RELATIVE test (|2A| small against
 *    the squared longest edge), not |2A| < 1e-5 absolute, which turns linear
 *    into nearest for lat/lon data;
 *  - outside the hull, radius < 0 is the exact nearest point (gdal: nearest
 *    in a doubling square) and radius > 0 a circle (gdal: a square).
 * Fewer than 3 distinct non-collinear points cannot be triangulated: every
 * node then gets the nearest-point rule, as if it were outside the hull
 * (so radius = 0 gives nodata everywhere).
 */
#include "delaunay.h"
#include "gk_internal.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>

/* |2A| <= GK_DEGEN_REL * (longest edge)^2: a sliver whose plane is meaningless. */
#define GK_DEGEN_REL 1e-12
/* A node this far outside a hull edge (relative to its length) is still in. */
#define GK_HULL_TOL 1e-10

struct gk_tin {
    int n_tri;
    int *vertex;     /* 3 per triangle, counter-clockwise */
    int *neighbor;   /* 3 per triangle, across the edge opposite vertex k; -1 = hull */
    double *plane;   /* 3 per triangle: z = c + gx*lx + gy*ly; gx NaN = degenerate */
    int *vtri;       /* per point: one incident triangle, -1 if not a vertex */
    double ox, oy;   /* local origin (bbox centre) */
    double *lx, *ly; /* point coordinates relative to (ox, oy) */
    int walk_cap;    /* steps before a walk gives up and scans */
};

void gk_tin_free(gk_tin *tin)
{
    if (!tin)
        return;
    free(tin->vertex);
    free(tin->neighbor);
    free(tin->plane);
    free(tin->vtri);
    free(tin->lx);
    free(tin->ly);
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

/* Orientation, vertex map and interpolation plane of every triangle. */
static int tin_prepare(gk_tin *tin, const double *z, size_t n)
{
    int nt = tin->n_tri;
    for (size_t i = 0; i < n; i++)
        tin->vtri[i] = -1;
    for (int t = 0; t < nt; t++) {
        int *v = tin->vertex + 3 * (size_t)t, *nb = tin->neighbor + 3 * (size_t)t;
        for (int k = 0; k < 3; k++)
            if (v[k] < 0 || (size_t)v[k] >= n || nb[k] < -1 || nb[k] >= nt)
                return 0;
        double ax = tin->lx[v[0]], ay = tin->ly[v[0]];
        double bx = tin->lx[v[1]], by = tin->ly[v[1]];
        double cx = tin->lx[v[2]], cy = tin->ly[v[2]];
        double a2 = orient(ax, ay, bx, by, cx, cy);
        if (a2 < 0.0) { /* the hook does not promise an orientation */
            int s = v[1];
            v[1] = v[2];
            v[2] = s;
            s = nb[1];
            nb[1] = nb[2];
            nb[2] = s;
            double tx = bx, ty = by;
            bx = cx, by = cy, cx = tx, cy = ty;
            a2 = -a2;
        }
        double e0 = (bx - cx) * (bx - cx) + (by - cy) * (by - cy);
        double e1 = (cx - ax) * (cx - ax) + (cy - ay) * (cy - ay);
        double e2 = (ax - bx) * (ax - bx) + (ay - by) * (ay - by);
        double emax = e0 > e1 ? (e0 > e2 ? e0 : e2) : (e1 > e2 ? e1 : e2);
        double *p = tin->plane + 3 * (size_t)t;
        if (!(a2 > GK_DEGEN_REL * emax)) {
            p[0] = 0.0;
            p[1] = NAN;
            p[2] = 0.0;
        } else {
            double za = z[v[0]], dzb = z[v[1]] - za, dzc = z[v[2]] - za;
            double gx = (dzb * (cy - ay) - dzc * (by - ay)) / a2;
            double gy = (dzc * (bx - ax) - dzb * (cx - ax)) / a2;
            p[0] = za - gx * ax - gy * ay;
            p[1] = gx;
            p[2] = gy;
        }
        for (int k = 0; k < 3; k++)
            tin->vtri[v[k]] = t;
    }
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

    gk_tin *tin = calloc(1, sizeof *tin);
    if (!tin)
        return gk_error(ctx, GK_ERR_NOMEM, "linear: out of memory");
    tin->lx = malloc(n * sizeof(double));
    tin->ly = malloc(n * sizeof(double));
    tin->vtri = malloc(n * sizeof(int));
    if (!tin->lx || !tin->ly || !tin->vtri) {
        gk_tin_free(tin);
        return gk_error(ctx, GK_ERR_NOMEM, "linear: out of memory for %zu points", n);
    }
    double xmin = pts->x[0], xmax = xmin, ymin = pts->y[0], ymax = ymin;
    for (size_t i = 1; i < n; i++) {
        xmin = fmin(xmin, pts->x[i]);
        xmax = fmax(xmax, pts->x[i]);
        ymin = fmin(ymin, pts->y[i]);
        ymax = fmax(ymax, pts->y[i]);
    }
    tin->ox = 0.5 * (xmin + xmax);
    tin->oy = 0.5 * (ymin + ymax);
    for (size_t i = 0; i < n; i++) {
        tin->lx[i] = pts->x[i] - tin->ox;
        tin->ly[i] = pts->y[i] - tin->oy;
        tin->vtri[i] = -1;
    }

    gk_triangulation tri = {0, NULL, NULL};
    /* A hook the caller installed, else the core's own (delaunay.c). */
    int rc = GK_ERR_ARG;
    if (n >= 3 && ctx->triangulate)
        rc = ctx->triangulate(ctx->triangulate_user, (int)n, pts->x, pts->y, &tri);
    else if (n >= 3)
        rc = gk_delaunay(ctx, (int)n, pts->x, pts->y, &tri);
    if (rc == GK_ERR_ARG || (rc == GK_OK && tri.n_tri <= 0)) {
        /* Too few or collinear points: nearest-point rule everywhere (not an error). */
        free(tri.vertex);
        free(tri.neighbor);
        gk_error_clear(ctx);
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
    tin->plane = malloc(3 * (size_t)tri.n_tri * sizeof(double));
    if (!tin->plane) {
        gk_tin_free(tin);
        return gk_error(ctx, GK_ERR_NOMEM, "linear: out of memory for %d triangles", tri.n_tri);
    }
    if (!tin_prepare(tin, pts->z, n)) {
        gk_tin_free(tin);
        return gk_error(ctx, GK_ERR_INTERNAL,
                        "linear: the triangulator returned an invalid vertex or neighbour index");
    }
    /* A straight walk crosses O(sqrt(n_tri)) triangles; beyond a generous
     * multiple something is wrong (a roundoff cycle): scan instead. */
    tin->walk_cap = 64 + 8 * (int)sqrt((double)tri.n_tri);
    job->tin = tin;
    return GK_OK;
}

enum { LOC_INSIDE, LOC_OUTSIDE, LOC_DEGENERATE };

/* Is (px, py) in triangle t (hull edges with a small tolerance)? */
static int tri_contains(const gk_tin *tin, int t, double px, double py)
{
    const int *v = tin->vertex + 3 * (size_t)t;
    for (int k = 0; k < 3; k++) {
        int a = v[(k + 1) % 3], b = v[(k + 2) % 3];
        double ex = tin->lx[b] - tin->lx[a], ey = tin->ly[b] - tin->ly[a];
        double o = orient(tin->lx[a], tin->ly[a], tin->lx[b], tin->ly[b], px, py);
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
            double o = orient(tin->lx[a], tin->ly[a], tin->lx[b], tin->ly[b], px, py);
            if (o >= 0.0)
                continue;
            if (nb[k] >= 0) {
                next = nb[k];
                break;
            }
            double ex = tin->lx[b] - tin->lx[a], ey = tin->ly[b] - tin->ly[a];
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

/* A triangle to start a row's walk: one incident to the nearest data point. */
static int start_triangle(const gk_job *job, const gk_tin *tin, double x, double y, int fallback)
{
    if (!job->tree)
        return fallback;
    double d2;
    int i = gk_kdtree_nearest(job->tree, x, y, INFINITY, &d2);
    if (i >= 0 && tin->vtri[i] >= 0)
        return tin->vtri[i];
    /* The nearest point was dropped by the triangulator (a coincident
     * duplicate): one of the next nearest is a vertex. */
    int idx[16];
    double dd[16];
    int m = gk_kdtree_knn(job->tree, x, y, 16, INFINITY, idx, dd);
    for (int k = 0; k < m; k++)
        if (tin->vtri[idx[k]] >= 0)
            return tin->vtri[idx[k]];
    return fallback;
}

/* Value of a node outside the hull (or of any node without triangles). */
static int outside_value(const gk_job *job, double x, double y, double *val)
{
    double r = job->alg.radius;
    if (r == 0.0 || !job->tree)
        return 0;
    double d2;
    int i = gk_kdtree_nearest(job->tree, x, y, r < 0.0 ? INFINITY : r * r, &d2);
    if (i < 0)
        return 0;
    *val = job->pts->z[i];
    return 1;
}

uint64_t gk_linear_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s)
{
    (void)s;
    const gk_tin *tin = job->tin;
    const gk_grid *g = t->g;
    const double nodata = job->alg.nodata;
    uint64_t nodata_nodes = 0;
    int tri = 0;
    for (int j = 0; j < t->h; j++) {
        double y = gk_grid_node_y(g, t->y0 + j);
        double *row = out + (size_t)j * (size_t)t->w;
        if (tin && tin->n_tri > 0)
            tri = start_triangle(job, tin, gk_grid_node_x(g, t->x0), y, tri);
        for (int i = 0; i < t->w; i++) {
            double x = gk_grid_node_x(g, t->x0 + i), v = nodata;
            int where = LOC_OUTSIDE;
            if (tin && tin->n_tri > 0)
                where = locate(tin, &tri, x - tin->ox, y - tin->oy);
            if (where == LOC_INSIDE) {
                const double *p = tin->plane + 3 * (size_t)tri;
                v = p[0] + p[1] * (x - tin->ox) + p[2] * (y - tin->oy);
            } else if (where == LOC_DEGENERATE) {
                /* Inside the hull but on a sliver: the nearest data point. */
                double d2;
                int k = job->tree ? gk_kdtree_nearest(job->tree, x, y, INFINITY, &d2) : -1;
                if (k >= 0)
                    v = job->pts->z[k];
                else
                    nodata_nodes++;
            } else if (!outside_value(job, x, y, &v)) {
                v = nodata;
                nodata_nodes++;
            }
            row[i] = v;
        }
    }
    return nodata_nodes;
}
