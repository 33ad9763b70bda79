/* SPDX-License-Identifier: MIT */
/* triangulate_gdal.c - Delaunay triangulation through GDAL (qhull "d Qbb Qc Qz Qt"). */
#include "io/triangulate_gdal.h"

#include <cpl_error.h>
#include <gdal_alg.h>

#include <math.h>
#include <stdlib.h>

/* Same relative collinearity tolerance as the core (linear/linear.c): qhull
 * fails ("initial simplex is flat") on such input anyway, noisily. */
#define GK_COLLINEAR_REL 1e-10

/* 1 when the (local-origin) points have 3 distinct non-collinear members. */
static int has_area(int n, const double *x, const double *y)
{
    if (n < 3)
        return 0;
    /* Farthest point from point 0, then the largest offset from that line. */
    int far = 0;
    double l2 = 0.0;
    for (int i = 1; i < n; i++) {
        double dx = x[i] - x[0], dy = y[i] - y[0], d = dx * dx + dy * dy;
        if (d > l2) {
            l2 = d;
            far = i;
        }
    }
    if (!(l2 > 0.0))
        return 0;
    double ex = x[far] - x[0], ey = y[far] - y[0], amax = 0.0;
    for (int i = 1; i < n; i++) {
        double a = fabs(ex * (y[i] - y[0]) - ey * (x[i] - x[0]));
        if (a > amax)
            amax = a;
    }
    return amax > GK_COLLINEAR_REL * l2;
}

int gk_gdal_triangulate(void *user, int n, const double *x, const double *y, gk_triangulation *tri)
{
    (void)user;
    tri->n_tri = 0;
    tri->vertex = tri->neighbor = NULL;
    if (n < 3)
        return GK_ERR_ARG;
    if (!GDALHasTriangulation())
        return GK_ERR_UNSUPPORTED;

    /* qhull is better conditioned around a local origin (bbox centre). */
    double xmin = x[0], xmax = x[0], ymin = y[0], ymax = y[0];
    for (int i = 1; i < n; i++) {
        xmin = x[i] < xmin ? x[i] : xmin;
        xmax = x[i] > xmax ? x[i] : xmax;
        ymin = y[i] < ymin ? y[i] : ymin;
        ymax = y[i] > ymax ? y[i] : ymax;
    }
    double ox = 0.5 * (xmin + xmax), oy = 0.5 * (ymin + ymax);
    double *lx = malloc(sizeof(double) * (size_t)n), *ly = malloc(sizeof(double) * (size_t)n);
    if (!lx || !ly) {
        free(lx);
        free(ly);
        return GK_ERR_NOMEM;
    }
    for (int i = 0; i < n; i++) {
        lx[i] = x[i] - ox;
        ly[i] = y[i] - oy;
    }
    if (!has_area(n, lx, ly)) {
        free(lx);
        free(ly);
        return GK_ERR_ARG;
    }

    /* The caller reports failures with its own message. */
    CPLPushErrorHandler(CPLQuietErrorHandler);
    GDALTriangulation *dt = GDALTriangulationCreateDelaunay(n, lx, ly);
    CPLPopErrorHandler();
    if (!dt) {
        free(lx);
        free(ly);
        return GK_ERR_INTERNAL;
    }

    int nt = dt->nFacets, rc = GK_OK;
    int *v = malloc(sizeof(int) * 3 * (size_t)(nt > 0 ? nt : 1));
    int *nb = malloc(sizeof(int) * 3 * (size_t)(nt > 0 ? nt : 1));
    if (!v || !nb)
        rc = GK_ERR_NOMEM;
    for (int t = 0; rc == GK_OK && t < nt; t++) {
        const GDALTriFacet *f = &dt->pasFacets[t];
        /* gdal_alg.h: anNeighborIdx[k] is across the edge opposite anVertexIdx[k]
         * (qhull's simplicial-facet convention), -1 beyond the hull. */
        for (int k = 0; k < 3; k++) {
            int vi = f->anVertexIdx[k], ni = f->anNeighborIdx[k];
            if (vi < 0 || vi >= n || ni < -1 || ni >= nt) {
                rc = GK_ERR_INTERNAL; /* e.g. Qz's point at infinity: never expected */
                break;
            }
            v[3 * t + k] = vi;
            nb[3 * t + k] = ni;
        }
        if (rc != GK_OK)
            break;
        /* qhull's facet orientation is arbitrary: make every triangle
         * counter-clockwise (swapping vertices 1 and 2 with their neighbours). */
        int a = v[3 * t], b = v[3 * t + 1], c = v[3 * t + 2];
        double o = (lx[b] - lx[a]) * (ly[c] - ly[a]) - (ly[b] - ly[a]) * (lx[c] - lx[a]);
        if (o < 0.0) {
            v[3 * t + 1] = c;
            v[3 * t + 2] = b;
            int s = nb[3 * t + 1];
            nb[3 * t + 1] = nb[3 * t + 2];
            nb[3 * t + 2] = s;
        }
    }
    GDALTriangulationFree(dt);
    free(lx);
    free(ly);
    if (rc != GK_OK || nt == 0) {
        free(v);
        free(nb);
        return rc != GK_OK ? rc : GK_ERR_ARG;
    }
    tri->n_tri = nt;
    tri->vertex = v;
    tri->neighbor = nb;
    return GK_OK;
}
