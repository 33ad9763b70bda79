/* SPDX-License-Identifier: MIT */
/*
 * kriging_global.c - kriging with every point in one system (max_points=0
 * and no radius: gstat's default global neighbourhood).
 *
 * The n x n covariance matrix is factorised once (Cholesky); the estimate
 * then uses the dual form, O(n) per node: z0 = c0'w + f0'beta with
 * w = C^-1 (z - F beta) and beta the GLS drift coefficients. The variance
 * needs L^-1 c0 per node, O(n^2): done for four nodes at a time, each row of
 * L read once for the four.
 *
 * Every double here comes from one fixed order of operations: each entry of
 * the factor and of a solve is its row's dot product (four partial sums by
 * index mod 4, then (s0 + s2) + (s1 + s3)), the same whatever the tiling, the
 * thread count, the CPU or its vector width (LAPACK's dpotrf and BLAS's GEMM
 * round differently with the block's shape and the CPU's kernels: one ulp of
 * variance between the plugin's blocks and the CLI's tiles on one machine).
 * The factor costs n^3/6 multiply-adds once (n = 2000: about a second); the
 * per-node solves are the same work as a library's.
 * A singular system (coincident points without nugget, a drift that cannot
 * be estimated) makes every node nodata, as gstat skips every location.
 */
#include "kriging.h"
#include "kriging_kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The points are ordered by y, and a second factor holds the reverse order:
 * a block of nodes (rows of a tile) has zero covariance with the points
 * beyond the model's range, and the rows of L^-1 c0 before its first non-zero
 * entry stay zero, so the solve starts there, in whichever order puts more of
 * those points first (a compact-support model only; others solve in full). */
typedef struct {
    double *L;   /* n x n, lower factor by rows: L[i * n + k], k <= i */
    double *inv; /* n: 1 / L_ii */
    double *B;   /* p columns of n: L^-1 F */
} gfactor;

struct gk_krige_global {
    size_t n;
    int p;
    int nf; /* factors: 1, or 2 with the reverse order */
    gfactor f[2];
    double *px, *py; /* the points, ordered by y */
    double *wd;      /* n: dual weights C^-1 (z - F beta), in that order */
    double S[GK_KRIGE_MAX_P * GK_KRIGE_MAX_P], Sinv[GK_KRIGE_MAX_P];
    double beta[GK_KRIGE_MAX_P];
    double ox, oy, sc; /* drift origin and scale */
    size_t *perm;      /* the input index of each point in that order */
};

void gk_krige_global_free(gk_krige_global *g)
{
    if (!g)
        return;
    for (int i = 0; i < 2; i++) {
        free(g->f[i].L);
        free(g->f[i].inv);
        free(g->f[i].B);
    }
    free(g->perm);
    free(g->px);
    free(g->py);
    free(g->wd);
    free(g);
}

/* ---- the fixed-order kernels ---------------------------------------------- */

/* dot(a, b[r], len) for r < 4, each with the one order every entry uses:
 * partial sums by index mod 4, the tail into the first, (s0 + s2) + (s1 + s3).
 * Leading exact zeros in b may be skipped from an index that is a multiple
 * of 4: they add +0 to sums that are still +0. */
/* four doubles, one per lane (GCC's and clang's vector extension: SSE2 pairs
 * or one AVX register, the same lane-wise IEEE operations either way) */
typedef double kg_v4 __attribute__((vector_size(32)));

#define KG_LOAD(v, p) memcpy(&(v), (p), sizeof(kg_v4))

/* dot(a, b[r], len) for r < nb (at most 8), each in the one order every
 * entry uses: four partial sums, lane l taking the indices k = l (mod 4) in
 * ascending order (the last, partial vector too), then (s0 + s2) + (s1 + s3).
 * Lanes past len add +0 to sums that are never -0: nothing. */
static inline __attribute__((always_inline)) void dot_lanes(const double *a, const double *const *b,
                                                            int nb, size_t len, kg_v4 *s)
{
    for (int r = 0; r < nb; r++)
        s[r] = (kg_v4){0, 0, 0, 0};
    size_t k = 0;
    for (; k + 4 <= len; k += 4) {
        kg_v4 x, y;
        KG_LOAD(x, a + k);
        for (int r = 0; r < nb; r++) {
            KG_LOAD(y, b[r] + k);
            s[r] += x * y;
        }
    }
    if (k < len) {
        kg_v4 x = {0, 0, 0, 0};
        for (size_t l = 0; l < len - k; l++)
            x[l] = a[k + l];
        for (int r = 0; r < nb; r++) {
            kg_v4 y = {0, 0, 0, 0};
            for (size_t l = 0; l < len - k; l++)
                y[l] = b[r][k + l];
            s[r] += x * y;
        }
    }
}

/* By pointer: clang rejects a 256-bit vector argument in the default
 * (non-AVX) clone, even inlined ("changes the ABI"). */
static inline __attribute__((always_inline)) double kg_fold(const kg_v4 *s)
{
    return ((*s)[0] + (*s)[2]) + ((*s)[1] + (*s)[3]);
}

/* dot_lanes' lanes for two rows a0 and a1 against the same four vectors b[r]
 * (each b loaded once for both): the factor's two columns and the solve's
 * two rows share it. */
static inline __attribute__((always_inline)) void dot_lanes2(const double *a0, const double *a1,
                                                             const double *const *b, size_t len,
                                                             kg_v4 s0[4], kg_v4 s1[4])
{
    for (int r = 0; r < 4; r++)
        s0[r] = s1[r] = (kg_v4){0, 0, 0, 0};
    size_t k = 0;
    for (; k + 4 <= len; k += 4) {
        kg_v4 x0, x1, y;
        KG_LOAD(x0, a0 + k);
        KG_LOAD(x1, a1 + k);
        for (int r = 0; r < 4; r++) {
            KG_LOAD(y, b[r] + k);
            s0[r] += x0 * y;
            s1[r] += x1 * y;
        }
    }
    if (k < len) {
        kg_v4 x0 = {0, 0, 0, 0}, x1 = x0;
        for (size_t l = 0; l < len - k; l++)
            x0[l] = a0[k + l], x1[l] = a1[k + l];
        for (int r = 0; r < 4; r++) {
            kg_v4 y = {0, 0, 0, 0};
            for (size_t l = 0; l < len - k; l++)
                y[l] = b[r][k + l];
            s0[r] += x0 * y;
            s1[r] += x1 * y;
        }
    }
}

static inline __attribute__((always_inline)) void dotn(const double *a, const double *const *b,
                                                       int nb, size_t len, double *out)
{
    kg_v4 s[8];
    dot_lanes(a, b, nb, len, s);
    for (int r = 0; r < nb; r++)
        out[r] = kg_fold(&s[r]);
}

static inline __attribute__((always_inline)) void dot4(const double *a, const double *const b[4],
                                                       size_t len, double out[4])
{
    dotn(a, b, 4, len, out);
}

static double dot1(const double *a, const double *b, size_t len)
{
    const double *bb[4] = {b, b, b, b};
    double out[4];
    dot4(a, bb, len, out);
    return out[0];
}

/* Cholesky by rows, four rows at a time (each row j read once for the four):
 * L_ij = (A_ij - dot(L_i, L_j, j)) / L_jj. 0, or i + 1 when pivot i is too
 * small (singular). */
#if defined(__x86_64__) && defined(__GNUC__) && !GK_TSAN
__attribute__((target_clones("avx2", "default")))
#endif
static size_t
chol_rows(double *L, size_t n, double *inv, double tol)
{
    for (size_t i0 = 0; i0 < n; i0 += 4) {
        size_t nr = n - i0 < 4 ? n - i0 : 4;
        double *ri[4];
        for (size_t r = 0; r < 4; r++)
            ri[r] = L + (i0 + (r < nr ? r : 0)) * n;
        /* columns j and j + 1 share the loads of the four rows: j + 1's lanes
         * take the indices j's take, then index j (the last of its lane)
         * once L_rj is known: the order of dot4 */
        size_t j = 0;
        for (; j + 1 < i0; j += 2) {
            const double *a0 = L + j * n, *a1 = L + (j + 1) * n;
            kg_v4 s0[4], s1[4];
            dot_lanes2(a0, a1, (const double *const *)ri, j, s0, s1);
            for (size_t r = 0; r < nr; r++) {
                double v = (ri[r][j] - kg_fold(&s0[r])) * inv[j];
                ri[r][j] = v;
                s1[r][j % 4] += a1[j] * v;
                ri[r][j + 1] = (ri[r][j + 1] - kg_fold(&s1[r])) * inv[j + 1];
            }
        }
        for (; j < i0; j++) {
            double d[4];
            dot4(L + j * n, (const double *const *)ri, j, d);
            for (size_t r = 0; r < nr; r++)
                ri[r][j] = (ri[r][j] - d[r]) * inv[j];
        }
        for (size_t r = 0; r < nr; r++) { /* the block's own triangle */
            size_t i = i0 + r;
            for (size_t jj = i0; jj < i; jj++)
                ri[r][jj] = (ri[r][jj] - dot1(L + jj * n, ri[r], jj)) * inv[jj];
            double a = ri[r][i], t = a - dot1(ri[r], ri[r], i);
            if (!(t > tol * fabs(a)))
                return i + 1;
            ri[r][i] = sqrt(t);
            inv[i] = 1.0 / ri[r][i];
        }
    }
    return 0;
}

/* Rows [i0, i1) of b = L^-1 b for KG_NC columns (pointers may repeat) whose
 * entries before k0 (a multiple of 4) are zero; rows before i0 are done.
 * Two rows at a time share the loads of b: row i + 1's lanes take the same
 * indices as row i's, then index i (the last of its lane) once b_i is known.
 * Compiled for AVX2 too: each lane is its own sum, so the doubles are the
 * same at any vector width (and no contraction into FMA: -ffp-contract=off). */
#define KG_NC 4
#if defined(__x86_64__) && defined(__GNUC__) && !GK_TSAN
__attribute__((target_clones("avx2", "default")))
#endif
static void
fwd_rows(const gfactor *f, size_t n, double *const b[KG_NC], size_t k0, size_t i0, size_t i1)
{
    const double *bk[KG_NC];
    for (int r = 0; r < KG_NC; r++)
        bk[r] = b[r] + k0;
    size_t i = i0 > k0 ? i0 : k0;
    for (; i + 1 < i1; i += 2) {
        const double *a0 = f->L + i * n + k0, *a1 = f->L + (i + 1) * n + k0;
        const size_t len = i - k0;
        kg_v4 s0[KG_NC], s1[KG_NC];
        dot_lanes2(a0, a1, bk, len, s0, s1);
        const double li = a1[len]; /* L_{i+1, i} */
        for (int r = 0; r < KG_NC; r++) {
            double bi = (b[r][i] - kg_fold(&s0[r])) * f->inv[i];
            s1[r][len % 4] += li * bi;
            double bi1 = (b[r][i + 1] - kg_fold(&s1[r])) * f->inv[i + 1];
            if (r == 0 || b[r] != b[r - 1])
                b[r][i] = bi, b[r][i + 1] = bi1;
        }
    }
    for (; i < i1; i++) {
        double d[KG_NC];
        dotn(f->L + i * n + k0, bk, KG_NC, i - k0, d);
        for (int r = 0; r < KG_NC; r++)
            if (r == 0 || b[r] != b[r - 1])
                b[r][i] = (b[r][i] - d[r]) * f->inv[i];
    }
}

static void fwd1(const gfactor *f, size_t n, double *b)
{
    double *bb[KG_NC];
    for (int r = 0; r < KG_NC; r++)
        bb[r] = b;
    fwd_rows(f, n, bb, 0, 0, n);
}

/* b = L^-T b: each entry takes the later ones in descending order. */
static void bwd1(const gfactor *f, size_t n, double *b)
{
    for (size_t i = n; i-- > 0;) {
        double bi = b[i] * f->inv[i];
        b[i] = bi;
        const double *ri = f->L + i * n;
        for (size_t k = 0; k < i; k++)
            b[k] -= ri[k] * bi;
    }
}

/* ---- build ------------------------------------------------------------------ */

static const double *sort_key;
static int cmp_key(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    double u = sort_key[i], v = sort_key[j];
    return u < v ? -1 : u > v ? 1 : (i > j) - (i < j);
}

/* Factor of the covariance of the points in order (rev: reversed);
 * 0, or 1 when singular. */
static int factor(const gk_krige_state *k, const gk_krige_global *g, gfactor *f, int rev)
{
    size_t n = g->n;
    for (size_t i = 0; i < n; i++) {
        size_t a = rev ? n - 1 - i : i;
        double *ri = f->L + i * n;
        for (size_t j = 0; j < i; j++) {
            size_t b = rev ? n - 1 - j : j;
            ri[j] = gk_krige_cov(k, g->px[a] - g->px[b], g->py[a] - g->py[b]);
        }
        ri[i] = k->A;
    }
    return chol_rows(f->L, n, f->inv, GK_KRIGE_CHOL_TOL) != 0;
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

static int alloc_factor(gfactor *f, size_t n, int p)
{
    f->L = malloc(n * n * sizeof(double));
    f->inv = malloc(n * sizeof(double));
    f->B = malloc((n * (p ? p : 1)) * sizeof(double));
    return f->L && f->inv && f->B;
}

int gk_krige_global_build(gk_job *job)
{
    gk_context *ctx = job->ctx;
    gk_krige_state *k = gk_krige_of(job);
    const double *X = job->pts->x, *Y = job->pts->y, *Z = job->pts->z;
    size_t n = job->pts->n;
    int p = k->p;
    if (n > 46340) /* n^2 doubles: 17 GB; beyond, a local neighbourhood */
        return gk_error(ctx, GK_ERR_NOMEM,
                        "global kriging of %zu points needs a %.0f GB covariance matrix (at most "
                        "46340 points): give max_points= (a local neighbourhood)",
                        n, (double)n * n * 8 / 1e9);
    gk_krige_global *g = calloc(1, sizeof *g);
    if (!g)
        return gk_error(ctx, GK_ERR_NOMEM, "out of memory");
    k->g = g;
    g->n = n;
    g->p = p;
    g->nf = 1;
    int ok = alloc_factor(&g->f[0], n, p);
    g->wd = malloc(n * sizeof *g->wd);
    g->px = malloc(n * sizeof *g->px);
    g->py = malloc(n * sizeof *g->py);
    size_t *perm = g->perm = malloc(n * sizeof *perm);
    if (!ok || !g->wd || !g->px || !g->py || !perm) {
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
    /* the reverse order's factor where it pays (<= 512 MB). Which factor a
     * node uses changes its last bits, so a failed allocation is an error,
     * not a quiet fall-back to one factor: the bytes depend on the inputs only */
    if (compact_support(k) && (double)n * n * 8 <= 512e6) {
        if (!alloc_factor(&g->f[1], n, p))
            return gk_error(ctx, GK_ERR_NOMEM,
                            "out of memory: global kriging of %zu points with a compact model "
                            "needs %.2f GB (give max_points= for a local neighbourhood)",
                            n, 2.0 * n * n * 8 / 1e9);
        g->nf = 2;
    }

    if (factor(k, g, &g->f[0], 0) || (p > 0 && n < (size_t)p)) {
        k->global_singular = 1; /* every node nodata, counted */
        return GK_OK;
    }
    if (g->nf == 2 && factor(k, g, &g->f[1], 1) != 0)
        g->nf = 1;
    const gfactor *f0 = &g->f[0];

    /* w = L^-1 z (or L^-1 (z - mean)) */
    double *w = g->wd;
    for (size_t i = 0; i < n; i++)
        w[i] = Z[perm[i]] - (k->type == GK_KRIGE_SIMPLE ? k->mean : 0.0);
    fwd1(f0, n, w);
    if (p > 0) {
        double ox, oy, sc;
        gk_drift_frame(X, Y, n, &ox, &oy, &sc);
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
            for (int c = 0; c < p; c++)
                fwd1(&g->f[fi], n, B + (size_t)c * n);
        }
        const double *B = f0->B;
        double btw[GK_KRIGE_MAX_P];
        for (int c = 0; c < p; c++) {
            const double *bc = B + (size_t)c * n;
            for (int d = 0; d <= c; d++)
                g->S[c * p + d] = dot1(bc, B + (size_t)d * n, n);
            btw[c] = dot1(bc, w, n);
        }
        if (gk_krige_chol(g->S, p, p, g->Sinv, GK_KRIGE_SCHUR_TOL)) {
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
    bwd1(f0, n, w);
    return GK_OK;
}

/* ---- cross-validation in closed form ------------------------------------------ *
 * With K the system of every point ([C F; F' 0], or C for simple kriging)
 * and Q the top left block of K^-1, the fold F's errors are
 * e_F = Q_FF^-1 w_F and its kriging variances diag(Q_FF^-1), w = Q z the
 * dual weights (Dubrule 1983; docs/dev/geostatistics.md). Q's entries are
 * Q_ij = (L^-1 e_i).(L^-1 e_j) - h_i.h_j, with C = L L', h_i the i-th row of
 * C^-1 F = L^-T B, times the inverse factor of S = B'B. A fold costs its
 * points' columns of L^-1 (n^2/2 each), not a factorisation (n^3/6). */

/* The fold's Q_FF (lower, m x m) from its columns Y (m of n) and rows H. */
static void fold_q(const gk_krige_global *g, const size_t *pos, int m, const double *Y,
                   const double *H, double *Q)
{
    size_t n = g->n;
    int p = g->p;
    for (int j = 0; j < m; j++)
        for (int l = 0; l <= j; l++) {
            size_t lo = pos[j] > pos[l] ? pos[j] : pos[l];
            double q = dot1(Y + (size_t)j * n + lo, Y + (size_t)l * n + lo, n - lo);
            for (int c = 0; c < p; c++)
                q -= H[pos[j] * (size_t)p + c] * H[pos[l] * (size_t)p + c];
            Q[(size_t)j * m + l] = q;
        }
}

int gk_krige_global_cv(const gk_job *job, int nfold, const size_t *start, const size_t *member,
                       int part, int parts, int threads, double *pred, double *var)
{
    gk_context *ctx = job->ctx;
    const gk_krige_state *k = gk_krige_of(job);
    const gk_krige_global *g = k ? k->g : NULL;
    if (!k || !k->global)
        return gk_error(ctx, GK_ERR_INTERNAL, "closed-form cross-validation needs global kriging");
    if (k->global_singular || !g)
        return GK_OK; /* every prediction NaN, as every node of a grid */
    const size_t n = g->n;
    const int p = g->p;
    const gfactor *f = &g->f[0];
    size_t *at = malloc(n * sizeof *at);
    double *H = malloc(n * (size_t)(p ? p : 1) * sizeof *H);
    double *col = malloc(n * sizeof *col);
    if (!at || !H || !col) {
        free(at), free(H), free(col);
        return gk_error(ctx, GK_ERR_NOMEM, "out of memory for cross-validation");
    }
    for (size_t a = 0; a < n; a++)
        at[g->perm[a]] = a;
    for (int c = 0; c < p; c++) {
        memcpy(col, f->B + (size_t)c * n, n * sizeof *col);
        bwd1(f, n, col);
        for (size_t a = 0; a < n; a++)
            H[a * (size_t)p + c] = col[a];
    }
    free(col);
    if (p > 0)
        for (size_t a = 0; a < n; a++)
            gk_krige_fwd(g->S, p, p, g->Sinv, H + a * (size_t)p);

    int failed = 0;
#pragma omp parallel num_threads(threads)
    {
        double *Y = NULL, *Q = NULL, *qi = NULL, *e = NULL;
        size_t *pos = NULL;
        int cap = 0;
#pragma omp for schedule(dynamic, 1)
        for (int fo = 0; fo < nfold; fo++) {
            int m = (int)(start[fo + 1] - start[fo]);
            if (fo % parts != part || m == 0)
                continue;
            if (m > cap) {
                free(Y), free(Q), free(qi), free(e), free(pos);
                Y = malloc((size_t)m * n * sizeof *Y);
                Q = malloc((size_t)m * m * sizeof *Q);
                qi = malloc((size_t)m * sizeof *qi);
                e = malloc((size_t)m * sizeof *e);
                pos = malloc((size_t)m * sizeof *pos);
                cap = Y && Q && qi && e && pos ? m : 0;
                if (!cap) {
#pragma omp atomic write
                    failed = 1;
                    continue;
                }
            }
            const size_t *mem = member + start[fo];
            for (int j = 0; j < m; j++) {
                size_t a = pos[j] = at[mem[j]], k0 = a & ~(size_t)3;
                double *y = Y + (size_t)j * n, *yy[KG_NC] = {y, y, y, y};
                memset(y + k0, 0, (n - k0) * sizeof *y);
                y[a] = 1.0;
                fwd_rows(f, n, yy, k0, k0, n); /* L^-1 e_a: zero before a */
            }
            fold_q(g, pos, m, Y, H, Q);
            int ok = gk_krige_chol(Q, m, m, qi, GK_KRIGE_CHOL_TOL) == 0;
            for (int j = 0; j < m; j++)
                e[j] = g->wd[pos[j]];
            if (ok) {
                gk_krige_fwd(Q, m, m, qi, e);
                gk_krige_bwd(Q, m, m, qi, e);
            }
            for (int j = 0; j < m; j++) {
                size_t i = mem[j];
                if (!ok) { /* the other folds cannot fit these: no prediction */
                    pred[i] = var[i] = NAN;
                    continue;
                }
                /* (Q_FF^-1)_jj = |R^-1 e_j|^2, R the factor of Q_FF */
                double *u = Y; /* column j of L^-1 is done with */
                memset(u, 0, (size_t)m * sizeof *u);
                u[j] = 1.0;
                gk_krige_fwd(Q, m, m, qi, u);
                double v = 0.0;
                for (int r = j; r < m; r++)
                    v += u[r] * u[r];
                pred[i] = job->pts->z[i] - e[j];
                var[i] = v;
            }
        }
        free(Y), free(Q), free(qi), free(e), free(pos);
    }
    free(at);
    free(H);
    if (failed)
        return gk_error(ctx, GK_ERR_NOMEM, "out of memory for cross-validation");
    return GK_OK;
}

/* ---- per node ------------------------------------------------------------------ */

/* ~4 MB of right-hand sides per thread: enough columns to reuse L's rows
 * from cache, few enough rows of the tile that many points are out of range
 * of them all. */
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

/* L^-1 c for the columns C[0..nc) of one factor, four at a time (neighbouring
 * nodes: about as many leading zeros), each group from its least leading
 * zeros rounded down to a multiple of 4: what is skipped adds exact zeros, so
 * a column's doubles do not depend on which columns share its group. */
static void solve_columns(const gfactor *f, size_t n, double *C, int nc, const double *lead)
{
    /* by panels of L's rows (~256 KB, kept in cache for every group) */
    size_t R = ((size_t)32 << 10) / (n ? n : 1);
    R = R < 4 ? 4 : R;
    for (size_t i0 = 0; i0 < n; i0 += R) {
        size_t i1 = n - i0 < R ? n : i0 + R;
        for (int c0 = 0; c0 < nc; c0 += KG_NC) {
            double *b[KG_NC];
            size_t k0 = n;
            for (int r = 0; r < KG_NC; r++) {
                int c = c0 + r < nc ? c0 + r : nc - 1;
                b[r] = C + (size_t)c * n;
                if ((size_t)lead[c] < k0)
                    k0 = (size_t)lead[c];
            }
            fwd_rows(f, n, b, k0 / 4 * 4, i0, i1);
        }
    }
}

void gk_krige_global_block(const gk_job *job, int m, const double *x0, const double *y0,
                           const double *g0, size_t ldg, double *est, double *var, double *ws)
{
    const gk_krige_state *k = gk_krige_of(job);
    const gk_krige_global *g = k->g;
    size_t n = g->n;
    int p = g->p;
    /* ws: C (n x m: the forward-order columns from the left, the reverse-order
     * ones from the right), h and cv (n each), F (p x m), then per column its
     * node and its leading zeros (m each) */
    double *C = ws, *h = ws + n * (size_t)m, *cv = h + n, *F = cv + n;
    double *node = F + (size_t)GK_KRIGE_MAX_P * m, *lead = node + m;
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
        lead[col] = (double)(rv ? zt : zl);
        if (rv)
            for (size_t i = 0; i < n; i++)
                cc[i] = cv[n - 1 - i];
        else
            memcpy(cc, cv, n * sizeof *cv);
    }
    if (!var)
        return;
    if (nfw)
        solve_columns(&g->f[0], n, C, nfw, lead);
    if (nrv)
        solve_columns(&g->f[1], n, C + (size_t)nfw * n, nrv, lead + nfw);
    for (int col = 0; col < m; col++) {
        int rv = col >= nfw, c = (int)node[col];
        const gfactor *fa = &g->f[rv];
        size_t s0 = (size_t)lead[col] / 4 * 4, nz = n - s0;
        const double *a = C + (size_t)col * n + s0;
        double v = k->c00 - dot1(a, a, nz);
        if (p > 0) {
            const double *f0 = F + (size_t)c * p;
            double r[GK_KRIGE_MAX_P], t[GK_KRIGE_MAX_P];
            for (int q = 0; q < p; q++)
                r[q] = t[q] = f0[q] - dot1(fa->B + (size_t)q * n + s0, a, nz);
            gk_krige_fwd(g->S, p, p, g->Sinv, t);
            gk_krige_bwd(g->S, p, p, g->Sinv, t);
            for (int q = 0; q < p; q++)
                v += r[q] * t[q];
        }
        var[c] = v > 0.0 ? v : 0.0; /* +0, whatever the sign of a zero */
    }
}
