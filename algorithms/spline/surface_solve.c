/* SPDX-License-Identifier: MIT */
/*
 * spline/surface_solve.c - the equations of GMT 6.4's surface (src/surface.c;
 * Smith & Wessel 1990, appendix), solved on a cascade of grids.
 *
 * Away from data a node satisfies the 12-neighbour finite-difference form of
 * (1 - T) D4 u - T D2 u = 0; the node nearest a datum takes Briggs's
 * Taylor form towards it instead, or the datum itself (less the
 * plane between them) when it lies within 0.05 of a cell in x and y; two
 * ghost rows and columns carry the edge conditions. As in GMT
 * the data are first detrended by their least-squares plane (in node units)
 * and divided by the residuals' rms, and pixel registration is GMT's: nodes
 * at the cell centres plus one more column east and one more row north,
 * dropped at the end.
 *
 * The solution of those equations does not depend on how they are iterated,
 * so the sweep order is ours: five colours, (col + 2 row) mod 5, which no
 * node's stencil mixes, so that a colour's nodes are updated independently on
 * any number of threads and the result is the same for all. GMT sweeps in
 * place row by row (Gauss-Seidel); converged, both reach the same grid.
 * The coarser grids halve the cells per axis (any size, not only GMT's common
 * factors) and give the next grid its first guess, bilinearly.
 */
#include "core/gk_internal.h"
#include "surface_solve.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { N2, NW, N1, NE, W2, W1, E1, E2, SW, S1, SE, S2 };
enum { ST_FREE = 0, ST_FIXED = 5 }; /* 1..4: the quadrant of the node's datum */

/* The nodes A-D of Briggs's figure A-1 per quadrant (GMT's p[][]). */
static const int quad_nodes[5][4] = {
    {0, 0, 0, 0}, {NW, W1, S1, SE}, {SW, S1, E1, NE}, {SE, E1, N1, NW}, {NE, N1, W1, SW}};

#define CLOSENESS 0.05 /* a datum this close (in cells) fixes its node */

/* The data after detrending, in final-node units (col east, row up). */
typedef struct {
    size_t n;
    double *fc, *fr, *z;
    double icept, sx, sy; /* the plane, per final node */
    double zrms, rzrms;
    double dx, dy; /* the final cell */
} surf_data;

typedef struct {
    int nx, ny, mx;      /* nodes; mx = nx + 4 (two ghosts a side) */
    double rx, ry;       /* final cells per cell */
    double *u;           /* (ny + 4) * mx, row 0 north */
    unsigned char *st;   /* ST_* per node (same layout) */
    int32_t *bi;         /* Briggs row of a node with a datum in a quadrant */
    double (*b)[6];      /* b1..b4, b5 z, 1 / normaliser */
    int off[12];
    double coef[2][12]; /* [0]: with a datum (partial sum), [1]: free (normalised) */
    double a0c1, a0c2;
    double alpha;
} level;

#define U(L, r, c) ((L)->u[(size_t)((r) + 2) * (L)->mx + (size_t)((c) + 2)])
#define AT(L, r, c) ((size_t)((r) + 2) * (L)->mx + (size_t)((c) + 2))

static void level_free(level *L)
{
    free(L->u), free(L->st), free(L->bi), free(L->b);
    memset(L, 0, sizeof *L);
}

/* GMT's surface_set_coefficients for tension t and aspect alpha. */
static void set_coefficients(level *L, double t)
{
    const double a = L->alpha, a2 = a * a, a4 = a2 * a2, loose = 1.0 - t;
    const double one_plus_e2 = 1.0 + a2;
    const double a0 = 1.0 / ((6 * a4 * loose + 10 * a2 * loose + 8 * loose - 2 * one_plus_e2) +
                             4 * t * one_plus_e2);
    L->a0c1 = 2.0 * loose * (1.0 + a4);
    L->a0c2 = 2.0 - t + 2 * loose * a2;
    double *c = L->coef[0], *f = L->coef[1];
    c[W2] = c[E2] = -loose;
    c[N2] = c[S2] = -loose * a4;
    f[W2] = f[E2] = -loose * a0;
    f[N2] = f[S2] = -loose * a4 * a0;
    c[W1] = c[E1] = 2 * loose * one_plus_e2;
    f[W1] = f[E1] = (2 * c[W1] + t) * a0;
    c[N1] = c[S1] = c[W1] * a2;
    f[N1] = f[S1] = f[W1] * a2;
    c[NW] = c[NE] = c[SW] = c[SE] = -2 * loose * a2;
    f[NW] = f[NE] = f[SW] = f[SE] = c[NW] * a0;
    const int m = L->mx;
    const int off[12] = {-2 * m, -m - 1, -m, -m + 1, -2, -1, 1, 2, m - 1, m, m + 1, 2 * m};
    memcpy(L->off, off, sizeof off);
}

/* The ghost rows and columns (GMT's surface_set_BCs): (1 - T) d2u/dn2 +
 * T du/dn = 0 on the edges, d2u/dxdy = 0 at the corners, d(D2 u)/dn = 0. */
static void set_bcs(level *L, double tb)
{
    const int nx = L->nx, ny = L->ny;
    const double a = L->alpha;
    const double x0c = 4.0 * (1.0 - tb) / (2.0 - tb), x1c = (3 * tb - 2.0) / (2.0 - tb);
    const double yden = 2 * a * (1.0 - tb) + tb;
    const double y0c = 4 * a * (1.0 - tb) / yden, y1c = (tb - 2 * a * (1.0 - tb)) / yden;
    const double ep2 = a * a, em2 = 1.0 / (a * a);
    const double tpep2 = 2.0 + 2.0 * ep2, tpem2 = 2.0 + 2.0 * em2;
    for (int c = 0; c < nx; c++) {
        U(L, ny, c) = y0c * U(L, ny - 1, c) + y1c * U(L, ny - 2, c);
        U(L, -1, c) = y0c * U(L, 0, c) + y1c * U(L, 1, c);
    }
    for (int r = 0; r < ny; r++) {
        U(L, r, -1) = x1c * U(L, r, 1) + x0c * U(L, r, 0);
        U(L, r, nx) = x1c * U(L, r, nx - 2) + x0c * U(L, r, nx - 1);
    }
    U(L, ny, -1) = U(L, ny, 1) + U(L, ny - 2, -1) - U(L, ny - 2, 1);
    U(L, -1, -1) = U(L, -1, 1) + U(L, 1, -1) - U(L, 1, 1);
    U(L, ny, nx) = U(L, ny, nx - 2) + U(L, ny - 2, nx) - U(L, ny - 2, nx - 2);
    U(L, -1, nx) = U(L, -1, nx - 2) + U(L, 1, nx) - U(L, 1, nx - 2);
    for (int c = 0; c < nx; c++) {
        U(L, ny + 1, c) = U(L, ny - 3, c) +
                          em2 * (U(L, ny - 2, c - 1) + U(L, ny - 2, c + 1) - U(L, ny, c - 1) -
                                 U(L, ny, c + 1)) +
                          tpem2 * (U(L, ny, c) - U(L, ny - 2, c));
        U(L, -2, c) = U(L, 2, c) +
                      em2 * (U(L, 1, c - 1) + U(L, 1, c + 1) - U(L, -1, c - 1) - U(L, -1, c + 1)) +
                      tpem2 * (U(L, -1, c) - U(L, 1, c));
    }
    for (int r = 0; r < ny; r++) {
        U(L, r, -2) = U(L, r, 2) +
                      ep2 * (U(L, r - 1, 1) + U(L, r + 1, 1) - U(L, r - 1, -1) - U(L, r + 1, -1)) +
                      tpep2 * (U(L, r, -1) - U(L, r, 1));
        U(L, r, nx + 1) = U(L, r, nx - 3) +
                          ep2 * (U(L, r - 1, nx - 2) + U(L, r + 1, nx - 2) - U(L, r - 1, nx) -
                                 U(L, r + 1, nx)) +
                          tpep2 * (U(L, r, nx) - U(L, r, nx - 2));
    }
}

/* Briggs's coefficients for a datum at (xx, yy) cells in the first quadrant
 * (GMT's surface_solve_Briggs_coefficients, in doubles). */
static void briggs(const level *L, double xx, double yy, double z, double b[6])
{
    const double s = xx + yy, inv1 = 1.0 / (1.0 + s), invd = inv1 / s;
    const double xx2 = xx * xx, yy2 = yy * yy;
    b[0] = (xx2 + 2.0 * xx * yy + xx - yy2 - yy) * invd;
    b[1] = 2.0 * (yy - xx + 1.0) * inv1;
    b[2] = 2.0 * (xx - yy + 1.0) * inv1;
    b[3] = (-xx2 + 2.0 * xx * yy - xx + yy2 + yy) * invd;
    const double b4 = 4.0 * invd;
    const double sum = b[0] + b[1] + b[2] + b[3] + b4;
    b[4] = b4 * z;
    b[5] = 1.0 / (L->a0c1 + L->a0c2 * sum);
}

typedef struct {
    int lower, upper; /* active */
    double lo, hi;    /* z units */
} bounds;

/* A bound at final node (fc, fr), in the normalised residual's units. */
static double bound_at(const surf_data *d, double v, double fc, double fr)
{
    return (v - (d->icept + d->sx * fc + d->sy * fr)) * d->rzrms;
}

static double clamp_node(const surf_data *d, const bounds *bd, double u, double fc, double fr)
{
    if (bd->lower) {
        const double lo = bound_at(d, bd->lo, fc, fr);
        if (u < lo)
            return lo;
    }
    if (bd->upper) {
        const double hi = bound_at(d, bd->hi, fc, fr);
        if (u > hi)
            return hi;
    }
    return u;
}

/* Each node's nearest datum (GMT's surface_find_nearest_constraint): fixed
 * nodes take it, the others its quadrant and Briggs row. Ties: the earlier
 * point. 0, -1 out of memory. */
static int assign_data(level *L, const surf_data *d, const bounds *bd)
{
    const size_t nn = (size_t)L->nx * L->ny;
    int32_t *best = malloc(nn * sizeof *best);
    double *bd2 = malloc(nn * sizeof *bd2);
    if (!best || !bd2) {
        free(best), free(bd2);
        return -1;
    }
    for (size_t k = 0; k < nn; k++)
        best[k] = -1;
    const double hx = L->rx * d->dx, hy = L->ry * d->dy;
    for (size_t k = 0; k < d->n; k++) {
        const double fc = d->fc[k] / L->rx, fr = d->fr[k] / L->ry;
        const double col = floor(fc + 0.5), rup = floor(fr + 0.5);
        if (!(col >= 0 && col < L->nx && rup >= 0 && rup < L->ny))
            continue;
        const size_t node = (size_t)(L->ny - 1 - (int)rup) * L->nx + (size_t)col;
        const double ex = (fc - col) * hx, ey = (fr - rup) * hy, e2 = ex * ex + ey * ey;
        if (best[node] < 0 || e2 < bd2[node]) {
            best[node] = (int32_t)k;
            bd2[node] = e2;
        }
    }
    size_t nb = 0;
    for (size_t k = 0; k < nn; k++)
        nb += best[k] >= 0;
    free(L->b);
    L->b = nb ? malloc(nb * sizeof *L->b) : NULL;
    if (nb && !L->b) {
        free(best), free(bd2);
        return -1;
    }
    nb = 0;
    for (int r = 0; r < L->ny; r++)
        for (int c = 0; c < L->nx; c++) {
            const size_t at = AT(L, r, c);
            const int32_t k = best[(size_t)r * L->nx + c];
            L->st[at] = ST_FREE;
            L->bi[at] = -1;
            if (k < 0)
                continue;
            const int rup = L->ny - 1 - r;
            const double dx = d->fc[k] / L->rx - c, dy = d->fr[k] / L->ry - rup;
            if (fabs(dx) < CLOSENESS && fabs(dy) < CLOSENESS) {
                /* the datum moved to the node: less the plane between them */
                double v = d->z[k] + d->rzrms * (d->sx * dx * L->rx + d->sy * dy * L->ry);
                if (bd->lower || bd->upper) {
                    const double fc = c * L->rx, fr = rup * L->ry;
                    if (bd->lower && v < bound_at(d, bd->lo, fc, fr))
                        v = bound_at(d, bd->lo, fc, fr);
                    else if (bd->upper && v > bound_at(d, bd->hi, fc, fr))
                        v = bound_at(d, bd->hi, fc, fr);
                }
                L->u[at] = v;
                L->st[at] = ST_FIXED;
                continue;
            }
            double xx, yy;
            int q;
            if (dy >= 0.0) {
                if (dx >= 0.0)
                    q = 1, xx = dx, yy = dy;
                else
                    q = 2, xx = dy, yy = -dx;
            } else {
                if (dx >= 0.0)
                    q = 4, xx = -dy, yy = dx;
                else
                    q = 3, xx = -dx, yy = -dy;
            }
            L->st[at] = (unsigned char)q;
            L->bi[at] = (int32_t)nb;
            briggs(L, xx, yy, d->z[k], L->b[nb++]);
        }
    free(best), free(bd2);
    return 0;
}

/* One colour's nodes of row r: the largest change. */
static double sweep_row(level *L, const surf_data *d, const bounds *bd, double relax, int colour,
                        int r)
{
    const int nx = L->nx;
    const double keep = 1.0 - relax;
    double maxch = 0.0;
    int c = ((colour - 2 * r) % 5 + 5) % 5;
    for (; c < nx; c += 5) {
        const size_t n = AT(L, r, c);
        const unsigned char st = L->st[n];
        if (st == ST_FIXED)
            continue;
        const double *u = L->u + n;
        const double *cf = L->coef[st == ST_FREE];
        double s = 0.0;
        for (int k = 0; k < 12; k++)
            s += u[L->off[k]] * cf[k];
        if (st != ST_FREE) {
            const double *b = L->b[L->bi[n]];
            double sb = 0.0;
            for (int k = 0; k < 4; k++)
                sb += b[k] * u[L->off[quad_nodes[st][k]]];
            s = (s + L->a0c2 * (sb + b[4])) * b[5];
        }
        s = u[0] * keep + s * relax;
        if (bd->lower || bd->upper)
            s = clamp_node(d, bd, s, c * L->rx, (L->ny - 1 - r) * L->ry);
        const double ch = fabs(s - u[0]);
        if (ch > maxch)
            maxch = ch;
        L->u[n] = s;
    }
    return maxch;
}

/* Sweeps until the largest change is at most limit or maxit sweeps: the
 * sweeps made; *converged. */
static int iterate(level *L, const surf_data *d, const bounds *bd, const gk_surface_params *p,
                   double limit, long maxit, int *converged)
{
    const int threads = p->threads > 0 ? p->threads : 1;
    long it = 0;
    *converged = 0;
    while (it < maxit) {
        double maxch = 0.0;
        for (int colour = 0; colour < 5; colour++) {
            set_bcs(L, p->btension);
#pragma omp parallel for num_threads(threads) schedule(static) reduction(max : maxch) \
    if (threads > 1 && (size_t)L->nx * L->ny > 4096)
            for (int r = 0; r < L->ny; r++) {
                const double ch = sweep_row(L, d, bd, p->relax, colour, r);
                if (ch > maxch)
                    maxch = ch;
            }
        }
        it++;
        if (maxch <= limit) {
            *converged = 1;
            break;
        }
    }
    return (int)it;
}

static int level_alloc(level *L)
{
    const size_t nt = (size_t)(L->ny + 4) * L->mx;
    L->u = calloc(nt, sizeof *L->u);
    L->st = calloc(nt, 1);
    L->bi = malloc(nt * sizeof *L->bi);
    return L->u && L->st && L->bi ? 0 : -1;
}

/* The first guess of fine from coarse, bilinearly, both in final-node units. */
static void fill_from(level *fine, const level *coarse)
{
    for (int r = 0; r < fine->ny; r++) {
        const double Y = (fine->ny - 1 - r) * fine->ry / coarse->ry;
        int j = (int)floor(Y);
        if (j > coarse->ny - 2)
            j = coarse->ny - 2;
        const double fy = Y - j;
        const int r0 = coarse->ny - 1 - j, r1 = r0 - 1; /* rows of j and j + 1 */
        for (int c = 0; c < fine->nx; c++) {
            const double X = c * fine->rx / coarse->rx;
            int i = (int)floor(X);
            if (i > coarse->nx - 2)
                i = coarse->nx - 2;
            const double fx = X - i;
            const double v0 = U(coarse, r0, i) + fx * (U(coarse, r0, i + 1) - U(coarse, r0, i));
            const double v1 = U(coarse, r1, i) + fx * (U(coarse, r1, i + 1) - U(coarse, r1, i));
            U(fine, r, c) = v0 + fy * (v1 - v0);
        }
    }
}

/* The least-squares plane in node units (GMT's surface_remove_planar_trend:
 * its closed form, and no plane when the system is singular). */
static void fit_plane(surf_data *d)
{
    double sx = 0, sy = 0, sz = 0, sxx = 0, sxy = 0, sxz = 0, syy = 0, syz = 0;
    const double n = (double)d->n;
    for (size_t k = 0; k < d->n; k++) {
        const double x = d->fc[k], y = d->fr[k], z = d->z[k];
        sx += x, sy += y, sz += z, sxx += x * x, sxy += x * y, sxz += x * z, syy += y * y,
            syz += y * z;
    }
    const double den = n * sxx * syy + 2 * sx * sy * sxy - n * sxy * sxy - sx * sx * syy -
                       sy * sy * sxx;
    d->icept = d->sx = d->sy = 0.0;
    if (den == 0.0)
        return;
    d->icept = (sz * sxx * syy + sx * sxy * syz + sy * sxy * sxz - sz * sxy * sxy -
                sx * sxz * syy - sy * syz * sxx) /
               den;
    d->sx = (n * sxz * syy + sz * sy * sxy + sy * sx * syz - n * sxy * syz - sz * sx * syy -
             sy * sy * sxz) /
            den;
    d->sy = (n * sxx * syz + sx * sy * sxz + sz * sx * sxy - n * sxy * sxz - sx * sx * syz -
             sz * sy * sxx) /
            den;
}

/* The data: points reaching a node of the (nx+1) x (ny+1) node grid, the
 * nearest of each final node kept (GMT's read and throw-away steps). */
static int gather(gk_context *ctx, const gk_points *pts, const gk_grid *g, int NX, int NY,
                  surf_data *d, gk_surface_info *info, double *zmin, double *zmax)
{
    const double dx = (g->xmax - g->xmin) / g->nx, dy = (g->ymax - g->ymin) / g->ny;
    const size_t nn = (size_t)NX * NY;
    int64_t *best = malloc(nn * sizeof *best);
    double *bd2 = malloc(nn * sizeof *bd2);
    if (!best || !bd2) {
        free(best), free(bd2);
        return gk_error(ctx, GK_ERR_NOMEM, "-a surface: out of memory for a %dx%d grid", g->nx,
                        g->ny);
    }
    for (size_t k = 0; k < nn; k++)
        best[k] = -1;
    size_t inside = 0;
    *zmin = INFINITY, *zmax = -INFINITY;
    for (size_t k = 0; k < pts->n; k++) {
        const double fc = (pts->x[k] - g->xmin) / dx - 0.5, fr = (pts->y[k] - g->ymin) / dy - 0.5;
        const double col = floor(fc + 0.5), rup = floor(fr + 0.5);
        if (!isfinite(pts->z[k]) || !(col >= 0 && col < NX && rup >= 0 && rup < NY))
            continue;
        inside++;
        if (pts->z[k] < *zmin)
            *zmin = pts->z[k];
        if (pts->z[k] > *zmax)
            *zmax = pts->z[k];
        const size_t node = (size_t)rup * NX + (size_t)col;
        /* GMT ranks a node's points by their distance to the cell's south-west
         * corner, half a cell from the node (its pixel registration shifts
         * the nodes but not the origin its sort measures from) */
        const double ex = (fc - col + 0.5) * dx, ey = (fr - rup + 0.5) * dy;
        const double e2 = ex * ex + ey * ey;
        if (best[node] < 0 || e2 < bd2[node]) {
            best[node] = (int64_t)k;
            bd2[node] = e2;
        }
    }
    size_t n = 0;
    for (size_t k = 0; k < nn; k++)
        n += best[k] >= 0;
    info->outside = pts->n - inside;
    info->unusable = inside - n;
    info->used = n;
    if (n == 0) {
        free(best), free(bd2);
        return gk_error(ctx, GK_ERR_ARG,
                        "-a surface: none of the %zu points lies within half a cell of the grid "
                        "(or all their z are NaN)",
                        pts->n);
    }
    d->fc = malloc(n * sizeof *d->fc);
    d->fr = malloc(n * sizeof *d->fr);
    d->z = malloc(n * sizeof *d->z);
    if (!d->fc || !d->fr || !d->z) {
        free(best), free(bd2);
        return gk_error(ctx, GK_ERR_NOMEM, "-a surface: out of memory for %zu points", n);
    }
    /* in the order of the nodes, so that ties between levels' nearest
     * data resolve the same way for any input order of distinct points */
    d->n = 0;
    for (size_t k = 0; k < nn; k++)
        if (best[k] >= 0) {
            const size_t i = (size_t)best[k];
            d->fc[d->n] = (pts->x[i] - g->xmin) / dx - 0.5;
            d->fr[d->n] = (pts->y[i] - g->ymin) / dy - 0.5;
            d->z[d->n++] = pts->z[i];
        }
    d->dx = dx, d->dy = dy;
    free(best), free(bd2);
    return GK_OK;
}

int gk_surface_solve(gk_context *ctx, const gk_points *pts, const gk_grid *g,
                     const gk_surface_params *p, double *out, gk_surface_info *info)
{
    gk_surface_info local;
    if (!info)
        info = &local;
    memset(info, 0, sizeof *info);
    /* GMT's pixel registration: one more node east and north */
    const int NX = g->nx + 1, NY = g->ny + 1;
    if (NX < 4 || NY < 4)
        return gk_error(ctx, GK_ERR_ARG,
                        "-a surface: the grid must have at least 3x3 cells (GMT's 4 nodes a "
                        "side); it has %dx%d",
                        g->nx, g->ny);
    surf_data d = {0};
    double zmin = 0.0, zmax = 0.0;
    int rc = gather(ctx, pts, g, NX, NY, &d, info, &zmin, &zmax);
    if (rc) {
        free(d.fc), free(d.fr), free(d.z);
        return rc;
    }
    fit_plane(&d);
    double ssz = 0.0;
    for (size_t k = 0; k < d.n; k++) {
        d.z[k] -= d.icept + d.sx * d.fc[k] + d.sy * d.fr[k];
        ssz += d.z[k] * d.z[k];
    }
    d.zrms = sqrt(ssz / (double)d.n);
    level lv[32];
    int nl = 0;
    if (d.zrms < 1e-8) { /* GMT: the data lie on a plane, which is the answer */
        info->plane_only = 1;
        info->levels = 0;
        info->converged = 1;
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++)
                out[(size_t)j * g->nx + i] = d.icept + d.sx * i + d.sy * (NY - 2 - j);
        goto done;
    }
    d.rzrms = 1.0 / d.zrms;
    for (size_t k = 0; k < d.n; k++)
        d.z[k] *= d.rzrms;
    const bounds bd = {p->lower_mode != GK_SURF_LIMIT_NONE, p->upper_mode != GK_SURF_LIMIT_NONE,
                       p->lower_mode == GK_SURF_LIMIT_DATA ? zmin : p->lower,
                       p->upper_mode == GK_SURF_LIMIT_DATA ? zmax : p->upper};
    const double limit = (p->converge > 0 ? p->converge : 1e-4 * d.zrms) * d.rzrms;

    /* the cascade: cells halved per axis down to 3 */
    int cx = NX - 1, cy = NY - 1;
    for (;;) {
        level *L = &lv[nl++];
        memset(L, 0, sizeof *L);
        L->nx = cx + 1, L->ny = cy + 1, L->mx = cx + 5;
        L->rx = (double)(NX - 1) / cx, L->ry = (double)(NY - 1) / cy;
        const int ncx = cx > 3 ? (cx + 1) / 2 : cx, ncy = cy > 3 ? (cy + 1) / 2 : cy;
        if ((ncx == cx && ncy == cy) || nl == 32)
            break;
        cx = ncx < 3 ? 3 : ncx, cy = ncy < 3 ? 3 : ncy;
    }
    info->levels = nl;
    for (int k = nl - 1; k >= 0; k--) {
        level *L = &lv[k];
        /* the stencil's aspect on this grid's cells */
        L->alpha = p->aspect * L->rx / L->ry;
        if (level_alloc(L)) {
            rc = gk_error(ctx, GK_ERR_NOMEM, "-a surface: out of memory for a %dx%d grid", g->nx,
                          g->ny);
            goto done;
        }
        set_coefficients(L, p->tension);
        if (k < nl - 1) {
            fill_from(L, &lv[k + 1]);
            level_free(&lv[k + 1]);
        }
        if (assign_data(L, &d, &bd)) {
            rc = gk_error(ctx, GK_ERR_NOMEM, "-a surface: out of memory for a %dx%d grid", g->nx,
                          g->ny);
            goto done;
        }
        const double ratio = L->rx > L->ry ? L->rx : L->ry;
        int conv;
        const int it = iterate(L, &d, &bd, p, limit / ratio, (long)p->maxiter * (long)ceil(ratio),
                               &conv);
        if (k == 0)
            info->iterations = it, info->converged = conv;
    }
    /* the pixels: every node but the last column and the first row, with the
     * plane restored (and GMT's final clip to the bounds) */
    for (int j = 0; j < g->ny; j++)
        for (int i = 0; i < g->nx; i++) {
            double v = U(&lv[0], j + 1, i) * d.zrms + d.icept + d.sx * i + d.sy * (NY - 2 - j);
            if (bd.lower && v < bd.lo)
                v = bd.lo;
            if (bd.upper && v > bd.hi)
                v = bd.hi;
            out[(size_t)j * g->nx + i] = v;
        }
done:
    for (int k = 0; k < nl; k++)
        level_free(&lv[k]);
    free(d.fc), free(d.fr), free(d.z);
    return rc;
}
