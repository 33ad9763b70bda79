/*
 * kriging_global.c - kriging with every point in one system (max_points=0
 * and no radius: gstat's default global neighbourhood).
 *
 * The n x n covariance matrix is factorised once with LAPACK (dpotrf); the
 * estimate then uses the dual form, O(n) per node: z0 = c0'w + f0'beta with
 * w = C^-1 (z - F beta) and beta the GLS drift coefficients. The variance
 * needs L^-1 c0 per node, O(n^2): done for a block of nodes at once, one
 * triangular solve with many right-hand sides (BLAS-3, tens of GFLOP/s where
 * a solve per node is memory-bound), then column norms. OpenBLAS runs single
 * threaded inside the tiles: the engine's threads are the parallelism.
 * A singular system (coincident points without nugget, a drift that cannot
 * be estimated) makes every node nodata, as gstat skips every location.
 */
#include "kriging.h"
#include "kriging_kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef GK_HAVE_LAPACK
#include <lapacke.h>
#endif

/* OpenBLAS's thread count, where the BLAS is OpenBLAS (weak: absent elsewhere) */
extern void openblas_set_num_threads(int) __attribute__((weak));

#define CHOL_TOL 1e-12
#define SCHUR_TOL 1e-11

struct gk_krige_global {
    size_t n;
    int p;
    double *L;    /* n x n, column-major lower factor (LAPACK's layout) */
    double *B;    /* p columns of n: L^-1 F */
    double *wd;   /* n: dual weights C^-1 (z - F beta) */
    double S[GK_KRIGE_MAX_P * GK_KRIGE_MAX_P], Sinv[GK_KRIGE_MAX_P];
    double beta[GK_KRIGE_MAX_P];
    double ox, oy, sc; /* drift origin and scale */
};

void gk_krige_global_free(gk_krige_global *g)
{
    if (!g)
        return;
    free(g->L);
    free(g->B);
    free(g->wd);
    free(g);
}

#ifndef GK_HAVE_LAPACK
int gk_krige_global_build(gk_job *job)
{
    return gk_error(job->ctx, GK_ERR_UNSUPPORTED,
                    "global kriging (max_points=0 and no radius) needs LAPACK, and this build "
                    "has none: give max_points= and/or radius= for a local neighbourhood");
}

int gk_krige_global_node(const gk_job *job, double x0, double y0, const double *g0, double *est,
                         double *var, double *ws)
{
    (void)job, (void)x0, (void)y0, (void)g0, (void)est, (void)var, (void)ws;
    return 0;
}

size_t gk_krige_global_block_cols(const gk_job *job, size_t nodes)
{
    (void)job;
    return nodes ? nodes : 1;
}

void gk_krige_global_block(const gk_job *job, int m, const double *x0, const double *y0,
                           const double *g0, size_t ldg, double *est, double *var, double *ws)
{
    (void)job, (void)m, (void)x0, (void)y0, (void)g0, (void)ldg, (void)est, (void)var, (void)ws;
}
#else

int gk_krige_global_build(gk_job *job)
{
    gk_context *ctx = job->ctx;
    gk_krige_state *k = job->krige;
    const double *X = job->pts->x, *Y = job->pts->y, *Z = job->pts->z;
    size_t n = job->pts->n;
    int p = k->p;
    if (n > 46340) /* n^2 must fit LAPACK's 32-bit integers */
        return gk_error(ctx, GK_ERR_NOMEM,
                        "global kriging of %zu points needs a %.0f GB covariance matrix: give "
                        "max_points= (a local neighbourhood)",
                        n, (double)n * n * 8 / 1e9);
    gk_krige_global *g = calloc(1, sizeof *g);
    if (!g)
        return gk_error(ctx, GK_ERR_NOMEM, "out of memory");
    k->g = g;
    g->n = n;
    g->p = p;
    g->L = malloc(n * n * sizeof *g->L);
    g->B = malloc((n * (p ? p : 1)) * sizeof *g->B);
    g->wd = malloc(n * sizeof *g->wd);
    if (!g->L || !g->B || !g->wd)
        return gk_error(ctx, GK_ERR_NOMEM,
                        "out of memory: global kriging of %zu points needs %.2f GB (give "
                        "max_points= for a local neighbourhood)",
                        n, (double)n * n * 8 / 1e9);
    double *L = g->L;
    for (size_t j = 0; j < n; j++) {
        L[j + j * n] = k->A;
        for (size_t i = j + 1; i < n; i++)
            L[i + j * n] = gk_krige_cov(k, X[i] - X[j], Y[i] - Y[j]);
    }
    /* the factorisation with the job's threads; one each inside the tiles */
    if (openblas_set_num_threads && ctx->threads > 0)
        openblas_set_num_threads(ctx->threads);
    lapack_int info = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', (lapack_int)n, L, (lapack_int)n);
    if (info < 0)
        return gk_error(ctx, GK_ERR_INTERNAL, "dpotrf: bad argument %d", (int)-info);
    for (size_t i = 0; info == 0 && i < n; i++)
        if (!(L[i + i * n] * L[i + i * n] > CHOL_TOL * k->A))
            info = (lapack_int)i + 1;
    if (info > 0 || (p > 0 && n < (size_t)p)) {
        k->global_singular = 1; /* every node nodata, counted */
        return GK_OK;
    }

    /* w = L^-1 z (or L^-1 (z - mean)) */
    double *w = g->wd;
    for (size_t i = 0; i < n; i++)
        w[i] = Z[i] - (k->type == GK_KRIGE_SIMPLE ? k->mean : 0.0);
    LAPACKE_dtrtrs(LAPACK_COL_MAJOR, 'L', 'N', 'N', (lapack_int)n, 1, L, (lapack_int)n, w,
                   (lapack_int)n);
    if (p > 0) {
        double ox = 0, oy = 0, sc = 0;
        for (size_t i = 0; i < n; i++)
            ox += X[i], oy += Y[i];
        ox /= (double)n;
        oy /= (double)n;
        for (size_t i = 0; i < n; i++)
            sc = fmax(sc, hypot(X[i] - ox, Y[i] - oy));
        if (!(sc > 0))
            sc = 1.0;
        g->ox = ox, g->oy = oy, g->sc = sc;
        int np = 1 + k->poly;
        double f[6];
        for (size_t i = 0; i < n; i++) {
            gk_krige_poly(k->poly, (X[i] - ox) / sc, (Y[i] - oy) / sc, f);
            for (int c = 0; c < np; c++)
                g->B[i + (size_t)c * n] = f[c];
            for (int r = 0; r < k->nr; r++)
                g->B[i + (size_t)(np + r) * n] = k->gpts[(size_t)r * n + i];
        }
        LAPACKE_dtrtrs(LAPACK_COL_MAJOR, 'L', 'N', 'N', (lapack_int)n, p, L, (lapack_int)n,
                       g->B, (lapack_int)n);
        double btw[GK_KRIGE_MAX_P];
        for (int c = 0; c < p; c++) {
            const double *bc = g->B + (size_t)c * n;
            for (int d = 0; d <= c; d++) {
                const double *bd = g->B + (size_t)d * n;
                double s = 0;
                for (size_t i = 0; i < n; i++)
                    s += bc[i] * bd[i];
                g->S[c * p + d] = s;
            }
            double s = 0;
            for (size_t i = 0; i < n; i++)
                s += bc[i] * w[i];
            btw[c] = s;
        }
        if (gk_krige_chol(g->S, p, p, g->Sinv, SCHUR_TOL)) {
            k->global_singular = 1;
            return GK_OK;
        }
        memcpy(g->beta, btw, (size_t)p * sizeof *btw);
        gk_krige_fwd(g->S, p, p, g->Sinv, g->beta);
        gk_krige_bwd(g->S, p, p, g->Sinv, g->beta);
        /* w - B beta, then L^-T: the dual weights */
        for (int c = 0; c < p; c++) {
            const double *bc = g->B + (size_t)c * n;
            for (size_t i = 0; i < n; i++)
                w[i] -= bc[i] * g->beta[c];
        }
    }
    LAPACKE_dtrtrs(LAPACK_COL_MAJOR, 'L', 'T', 'N', (lapack_int)n, 1, L, (lapack_int)n, w,
                   (lapack_int)n);
    if (openblas_set_num_threads)
        openblas_set_num_threads(1);
    return GK_OK;
}

/* ~32 MB of right-hand sides per thread: big enough for BLAS-3 speed. */
size_t gk_krige_global_block_cols(const gk_job *job, size_t nodes)
{
    size_t n = job->pts->n, m = ((size_t)4 << 20) / (n ? n : 1);
    if (m < 16)
        m = 16;
    if (m > nodes)
        m = nodes;
    return m ? m : 1;
}

void gk_krige_global_block(const gk_job *job, int m, const double *x0, const double *y0,
                           const double *g0, size_t ldg, double *est, double *var, double *ws)
{
    const gk_krige_state *k = job->krige;
    const gk_krige_global *g = k->g;
    const double *X = job->pts->x, *Y = job->pts->y;
    size_t n = g->n;
    int p = g->p;
    double *C = ws, *h = ws + n * (size_t)m, *F = h + n; /* n x m, n, p x m */
    for (int c = 0; c < m; c++) {
        double *cc = C + (size_t)c * n, e = 0.0;
        gk_kk_cov0(k, X, Y, (int)n, x0[c], y0[c], cc, h);
        for (size_t i = 0; i < n; i++)
            e += cc[i] * g->wd[i];
        if (p > 0) {
            double *f0 = F + (size_t)c * p, gc[GK_KRIGE_MAX_DRIFT_RASTERS];
            for (int r = 0; r < k->nr; r++)
                gc[r] = g0[(size_t)r * ldg + c];
            gk_krige_f0(k, (x0[c] - g->ox) / g->sc, (y0[c] - g->oy) / g->sc, g->sc, gc, f0);
            for (int q = 0; q < p; q++)
                e += f0[q] * g->beta[q];
        } else {
            e += k->mean;
        }
        est[c] = e;
    }
    if (!var)
        return;
    /* A = L^-1 C0 for the whole block (the _work call skips the NaN scan of L) */
    LAPACKE_dtrtrs_work(LAPACK_COL_MAJOR, 'L', 'N', 'N', (lapack_int)n, (lapack_int)m, g->L,
                        (lapack_int)n, C, (lapack_int)n);
    for (int c = 0; c < m; c++) {
        const double *a = C + (size_t)c * n;
        double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
        size_t i = 0;
        for (; i + 4 <= n; i += 4) {
            s0 += a[i] * a[i];
            s1 += a[i + 1] * a[i + 1];
            s2 += a[i + 2] * a[i + 2];
            s3 += a[i + 3] * a[i + 3];
        }
        for (; i < n; i++)
            s0 += a[i] * a[i];
        double v = k->c00 - ((s0 + s2) + (s1 + s3));
        if (p > 0) {
            const double *f0 = F + (size_t)c * p;
            double r[GK_KRIGE_MAX_P], t[GK_KRIGE_MAX_P];
            for (int q = 0; q < p; q++) {
                const double *bq = g->B + (size_t)q * n;
                double s = 0.0;
                for (size_t j = 0; j < n; j++)
                    s += bq[j] * a[j];
                r[q] = t[q] = f0[q] - s;
            }
            gk_krige_fwd(g->S, p, p, g->Sinv, t);
            gk_krige_bwd(g->S, p, p, g->Sinv, t);
            for (int q = 0; q < p; q++)
                v += r[q] * t[q];
        }
        var[c] = v < 0.0 ? 0.0 : v;
    }
}

int gk_krige_global_node(const gk_job *job, double x0, double y0, const double *g0, double *est,
                         double *var, double *ws)
{
    const gk_krige_state *k = job->krige;
    const gk_krige_global *g = k->g;
    const double *X = job->pts->x, *Y = job->pts->y;
    size_t n = g->n;
    int p = g->p;
    double *c = ws, e = 0.0;
    for (size_t i = 0; i < n; i++) {
        c[i] = gk_krige_cov0(k, X[i] - x0, Y[i] - y0);
        e += c[i] * g->wd[i];
    }
    double f0[GK_KRIGE_MAX_P];
    if (p > 0) {
        gk_krige_f0(k, (x0 - g->ox) / g->sc, (y0 - g->oy) / g->sc, g->sc, g0, f0);
        for (int q = 0; q < p; q++)
            e += f0[q] * g->beta[q];
    } else {
        e += k->mean;
    }
    *est = e;
    if (!var)
        return isfinite(e) ? 1 : 2;
    /* a = L^-1 c0, column by column of the factor */
    const double *L = g->L;
    double aa = 0.0;
    for (size_t j = 0; j < n; j++) {
        const double *col = L + j * n;
        double aj = c[j] / col[j];
        c[j] = aj;
        aa += aj * aj;
        for (size_t i = j + 1; i < n; i++)
            c[i] -= col[i] * aj;
    }
    double v = k->c00 - aa;
    if (p > 0) {
        double r[GK_KRIGE_MAX_P], t[GK_KRIGE_MAX_P];
        for (int q = 0; q < p; q++) {
            const double *bq = g->B + (size_t)q * n;
            double s = 0.0;
            for (size_t i = 0; i < n; i++)
                s += bq[i] * c[i];
            r[q] = t[q] = f0[q] - s;
        }
        gk_krige_fwd(g->S, p, p, g->Sinv, t);
        gk_krige_bwd(g->S, p, p, g->Sinv, t);
        for (int q = 0; q < p; q++)
            v += r[q] * t[q];
    }
    *var = v < 0.0 ? 0.0 : v;
    return isfinite(e) && isfinite(v) ? 1 : 2;
}
#endif
