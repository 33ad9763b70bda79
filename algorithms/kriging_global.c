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
 * threaded: the engine's threads are the parallelism, and the doubles do not
 * depend on the thread count or the tiling (solve_panels).
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
/* CBLAS's dgemm (OpenBLAS has it; weak: without it the solves start at row 0) */
extern void cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha,
                        const double *a, int lda, const double *b, int ldb, double beta,
                        double *c, int ldc) __attribute__((weak));
#define KG_COLMAJOR 102
#define KG_NOTRANS 111
#define KG_NB 128 /* rows per panel of the blocked solve */

#define CHOL_TOL 1e-12
#define SCHUR_TOL 1e-11

/* The points are ordered by y, and a second factor holds the reverse order:
 * a block of nodes (rows of a tile) has zero covariance with the points
 * beyond the model's range, and the rows of L^-1 c0 before its first non-zero
 * entry stay zero, so the solve starts there, in whichever order puts more of
 * those points first (a compact-support model only; others solve in full). */
typedef struct {
    double *L; /* n x n, column-major lower factor (LAPACK's layout) */
    double *B; /* p columns of n: L^-1 F */
} gfactor;

struct gk_krige_global {
    size_t n;
    int p;
    int nf;        /* factors: 1, or 2 with the reverse order */
    gfactor f[2];
    double *px, *py; /* the points, ordered by y */
    double *wd;    /* n: dual weights C^-1 (z - F beta), in that order */
    double S[GK_KRIGE_MAX_P * GK_KRIGE_MAX_P], Sinv[GK_KRIGE_MAX_P];
    double beta[GK_KRIGE_MAX_P];
    double ox, oy, sc; /* drift origin and scale */
};

void gk_krige_global_free(gk_krige_global *g)
{
    if (!g)
        return;
    for (int i = 0; i < 2; i++) {
        free(g->f[i].L);
        free(g->f[i].B);
    }
    free(g->px);
    free(g->py);
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

static const double *sort_key;
static int cmp_key(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    double u = sort_key[i], v = sort_key[j];
    return u < v ? -1 : u > v ? 1 : (i > j) - (i < j);
}

/* Lower factor of the covariance of the points in order (rev: reversed);
 * 0, or 1 when singular. */
static lapack_int factor(const gk_krige_state *k, const gk_krige_global *g, double *L, int rev)
{
    size_t n = g->n;
    for (size_t j = 0; j < n; j++) {
        size_t a = rev ? n - 1 - j : j;
        L[j + j * n] = k->A;
        for (size_t i = j + 1; i < n; i++) {
            size_t b = rev ? n - 1 - i : i;
            L[i + j * n] = gk_krige_cov(k, g->px[b] - g->px[a], g->py[b] - g->py[a]);
        }
    }
    lapack_int info = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', (lapack_int)n, L, (lapack_int)n);
    for (size_t i = 0; info == 0 && i < n; i++)
        if (!(L[i + i * n] * L[i + i * n] > CHOL_TOL * k->A))
            info = (lapack_int)i + 1;
    return info;
}

/* Is the model's covariance zero beyond some distance (worth the reverse order)? */
static int compact_support(const gk_krige_state *k)
{
    if (!gk_vmodel_bounded(&k->model))
        return 0;
    for (int s = 0; s < k->ns; s++) {
        gk_vm_type t = k->st[s].type;
        if (!(t == GK_VM_NUG || t == GK_VM_SPH))
            return 0;
    }
    return 1;
}

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
    g->nf = 1;
    g->f[0].L = malloc(n * n * sizeof(double));
    g->f[0].B = malloc((n * (p ? p : 1)) * sizeof(double));
    g->wd = malloc(n * sizeof *g->wd);
    g->px = malloc(n * sizeof *g->px);
    g->py = malloc(n * sizeof *g->py);
    size_t *perm = malloc(n * sizeof *perm);
    if (!g->f[0].L || !g->f[0].B || !g->wd || !g->px || !g->py || !perm) {
        free(perm);
        return gk_error(ctx, GK_ERR_NOMEM,
                        "out of memory: global kriging of %zu points needs %.2f GB (give "
                        "max_points= for a local neighbourhood)",
                        n, (double)n * n * 8 / 1e9);
    }
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    sort_key = Y; /* prepare runs on one thread */
    qsort(perm, n, sizeof *perm, cmp_key);
    for (size_t i = 0; i < n; i++) {
        g->px[i] = X[perm[i]];
        g->py[i] = Y[perm[i]];
    }
    /* the reverse order's factor where it pays and memory allows (<= 512 MB) */
    if (compact_support(k) && (double)n * n * 8 <= 512e6) {
        g->f[1].L = malloc(n * n * sizeof(double));
        g->f[1].B = malloc((n * (p ? p : 1)) * sizeof(double));
        if (g->f[1].L && g->f[1].B)
            g->nf = 2;
    }

    /* one BLAS thread, here too: a threaded factor's rounding depends on the
     * thread count, and the tiles' threads are the parallelism */
    if (openblas_set_num_threads)
        openblas_set_num_threads(1);
    lapack_int info = factor(k, g, g->f[0].L, 0);
    if (info < 0) {
        free(perm);
        return gk_error(ctx, GK_ERR_INTERNAL, "dpotrf: bad argument %d", (int)-info);
    }
    if (info > 0 || (p > 0 && n < (size_t)p)) {
        free(perm);
        k->global_singular = 1; /* every node nodata, counted */
        return GK_OK;
    }
    if (g->nf == 2 && factor(k, g, g->f[1].L, 1) != 0)
        g->nf = 1;
    const double *L = g->f[0].L;

    /* w = L^-1 z (or L^-1 (z - mean)) */
    double *w = g->wd;
    for (size_t i = 0; i < n; i++)
        w[i] = Z[perm[i]] - (k->type == GK_KRIGE_SIMPLE ? k->mean : 0.0);
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
        for (int fi = 0; fi < g->nf; fi++) {
            double *B = g->f[fi].B;
            for (size_t i = 0; i < n; i++) {
                size_t o = perm[fi ? n - 1 - i : i];
                gk_krige_poly(k->poly, (X[o] - ox) / sc, (Y[o] - oy) / sc, f);
                for (int c = 0; c < np; c++)
                    B[i + (size_t)c * n] = f[c];
                for (int r = 0; r < k->nr; r++)
                    B[i + (size_t)(np + r) * n] = k->gpts[(size_t)r * n + o];
            }
            LAPACKE_dtrtrs(LAPACK_COL_MAJOR, 'L', 'N', 'N', (lapack_int)n, p, g->f[fi].L,
                           (lapack_int)n, B, (lapack_int)n);
        }
        const double *B = g->f[0].B;
        double btw[GK_KRIGE_MAX_P];
        for (int c = 0; c < p; c++) {
            const double *bc = B + (size_t)c * n;
            for (int d = 0; d <= c; d++) {
                const double *bd = B + (size_t)d * n;
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
            free(perm);
            k->global_singular = 1;
            return GK_OK;
        }
        memcpy(g->beta, btw, (size_t)p * sizeof *btw);
        gk_krige_fwd(g->S, p, p, g->Sinv, g->beta);
        gk_krige_bwd(g->S, p, p, g->Sinv, g->beta);
        /* w - B beta, then L^-T: the dual weights */
        for (int c = 0; c < p; c++) {
            const double *bc = B + (size_t)c * n;
            for (size_t i = 0; i < n; i++)
                w[i] -= bc[i] * g->beta[c];
        }
    }
    free(perm);
    LAPACKE_dtrtrs(LAPACK_COL_MAJOR, 'L', 'T', 'N', (lapack_int)n, 1, L, (lapack_int)n, w,
                   (lapack_int)n);
    return GK_OK;
}

/* ~4 MB of right-hand sides per thread: enough columns for BLAS-3 speed, few
 * enough rows of the tile that many points are out of range of them all. */
size_t gk_krige_global_block_cols(const gk_job *job, size_t nodes)
{
    size_t n = job->pts->n, m = ((size_t)512 << 10) / (n ? n : 1);
    if (m < 64)
        m = 64;
    if (m > 1024)
        m = 1024;
    if (m > nodes)
        m = nodes;
    return m ? m : 1;
}

/* A = L^-1 A in place for mg columns whose rows before `lead` are zero:
 * right-looking by panels of KG_NB rows aligned to row 0, from the panel that
 * holds `lead`. Skipped panels would only add exact zeros, so every column
 * gets the same doubles wherever the solve starts and whatever the other
 * columns: the result does not depend on the tiling. */
static void solve_panels(const double *L, size_t n, double *A, int mg, size_t lead)
{
    size_t s = cblas_dgemm ? lead / KG_NB * KG_NB : 0;
    for (size_t J = s; J < n; J += KG_NB) {
        size_t nb = n - J < KG_NB ? n - J : KG_NB;
        LAPACKE_dtrtrs_work(LAPACK_COL_MAJOR, 'L', 'N', 'N', (lapack_int)nb, mg, L + J + J * n,
                            (lapack_int)n, A + J, (lapack_int)n);
        if (J + nb < n)
            cblas_dgemm(KG_COLMAJOR, KG_NOTRANS, KG_NOTRANS, (int)(n - J - nb), mg, (int)nb, -1.0,
                        L + J + nb + J * n, (int)n, A + J, (int)n, 1.0, A + J + nb, (int)n);
    }
}

void gk_krige_global_block(const gk_job *job, int m, const double *x0, const double *y0,
                           const double *g0, size_t ldg, double *est, double *var, double *ws)
{
    const gk_krige_state *k = job->krige;
    const gk_krige_global *g = k->g;
    size_t n = g->n;
    int p = g->p;
    /* ws: C (n x m: the forward-order columns from the left, the reverse-order
     * ones from the right), h and cv (n each), F (p x m), node of each column (m) */
    double *C = ws, *h = ws + n * (size_t)m, *cv = h + n, *F = cv + n;
    double *node = F + (size_t)GK_KRIGE_MAX_P * m;
    size_t lead[2] = {n, n};
    int nfw = 0, nrv = 0;
    for (int c = 0; c < m; c++) {
        gk_kk_cov0(k, g->px, g->py, (int)n, x0[c], y0[c], cv, h);
        double e = 0.0;
        for (size_t i = 0; i < n; i++)
            e += cv[i] * g->wd[i];
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
        if (!var)
            continue;
        /* this node's zeros at either end pick its order */
        size_t zl = 0, zt = 0;
        while (zl < n && cv[zl] == 0.0)
            zl++;
        while (zt < n && cv[n - 1 - zt] == 0.0)
            zt++;
        int rv = g->nf == 2 && zt > zl;
        int col = rv ? m - 1 - nrv++ : nfw++;
        double *cc = C + (size_t)col * n;
        node[col] = c;
        if (rv)
            for (size_t i = 0; i < n; i++)
                cc[i] = cv[n - 1 - i];
        else
            memcpy(cc, cv, n * sizeof *cv);
        size_t z = rv ? zt : zl;
        if (z < lead[rv])
            lead[rv] = z;
    }
    if (!var)
        return;
    if (nfw)
        solve_panels(g->f[0].L, n, C, nfw, lead[0]);
    if (nrv)
        solve_panels(g->f[1].L, n, C + (size_t)nfw * n, nrv, lead[1]);
    for (int col = 0; col < m; col++) {
        int rv = col >= nfw, c = (int)node[col];
        const gfactor *fa = &g->f[rv];
        size_t s0r = cblas_dgemm ? lead[rv] / KG_NB * KG_NB : 0, nz = n - s0r;
        const double *a = C + (size_t)col * n + s0r;
        double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
        size_t i = 0;
        for (; i + 4 <= nz; i += 4) {
            s0 += a[i] * a[i];
            s1 += a[i + 1] * a[i + 1];
            s2 += a[i + 2] * a[i + 2];
            s3 += a[i + 3] * a[i + 3];
        }
        for (; i < nz; i++)
            s0 += a[i] * a[i];
        double v = k->c00 - ((s0 + s2) + (s1 + s3));
        if (p > 0) {
            const double *f0 = F + (size_t)c * p;
            double r[GK_KRIGE_MAX_P], t[GK_KRIGE_MAX_P];
            for (int q = 0; q < p; q++) {
                const double *bq = fa->B + (size_t)q * n + s0r;
                double s = 0.0;
                for (size_t j = 0; j < nz; j++)
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
#endif
