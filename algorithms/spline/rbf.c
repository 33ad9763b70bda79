/* SPDX-License-Identifier: MIT */
/*
 * spline/rbf.c - -a rbf: radial basis function interpolation, SciPy 1.10's
 * RBFInterpolator with its names, defaults and meanings (kernel, epsilon,
 * smoothing, degree, neighbors).
 *
 * Without neighbors= every point is in one system, solved when the job is
 * prepared (rbf_global.c); each node is then a sum over the points. With
 * neighbors=k a node's system holds its k nearest points (ranked by
 * (distance, input order): the rule where ties make "the k nearest"
 * ambiguous), taken in input order as SciPy sorts them, with shift and scale
 * from those points; nodes with the same k points share one solve.
 *
 * A singular system (coincident points with smoothing=0, points that cannot
 * carry the polynomial) is an error for the global system, as SciPy's
 * LinAlgError, and nodata for a local one, counted
 * (gk_run_stats.singular_nodes).
 */
#include "core/cpu_level.h"
#include "core/method.h"
#include "rbf.h"
#include "search/index.h"
#include "search/kdtree.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* a local system's points at most: k^3 work a node */
#define GK_RBF_MAX_NEIGHBORS 1000
/* the global system's points at most: an N^2 matrix (3.2 GB) and N^3 work */
#define GK_RBF_MAX_GLOBAL 20000

static const char *const kernel_name[GK_RBF_N_KERNELS] = {"linear",
                                                          "thin_plate_spline",
                                                          "cubic",
                                                          "quintic",
                                                          "multiquadric",
                                                          "inverse_multiquadric",
                                                          "inverse_quadratic",
                                                          "gaussian"};

typedef struct {
    gk_rbf_spec sp;
    int neighbors;    /* 0: one global system */
    int have_epsilon; /* given (the scale-dependent kernels need it) */
    int have_degree;
} rbf_params;
GK_ALG_OWN_FITS(rbf_params);

static rbf_params *params_of(gk_algorithm *a) { return GK_ALG_OWN(rbf_params, a); }
static const rbf_params *cparams_of(const gk_algorithm *a)
{
    return GK_ALG_OWN(const rbf_params, a);
}

/* ---- parameters -------------------------------------------------------- */

static int num(gk_context *ctx, const char *key, const char *s, double *out)
{
    return gk_param_finite(ctx, "rbf", key, s, out);
}

static int key(gk_context *ctx, const char *spec, const char *k, const char *val, gk_algorithm *a)
{
    rbf_params *p = params_of(a);
    double d;
    if (!strcasecmp(k, "kernel")) {
        for (int i = 0; i < GK_RBF_N_KERNELS; i++)
            if (!strcasecmp(val, kernel_name[i])) {
                p->sp.kernel = i;
                return GK_OK;
            }
        return gk_error(ctx, GK_ERR_ARG,
                        "-a rbf: kernel=%s is not one of linear, thin_plate_spline, cubic, "
                        "quintic, multiquadric, inverse_multiquadric, inverse_quadratic, gaussian",
                        val);
    } else if (!strcasecmp(k, "epsilon")) {
        if (num(ctx, k, val, &p->sp.epsilon))
            return GK_ERR_ARG;
        if (!(p->sp.epsilon > 0))
            return gk_error(ctx, GK_ERR_ARG, "-a rbf: epsilon=%s must be > 0", val);
        p->have_epsilon = 1;
    } else if (!strcasecmp(k, "smoothing")) {
        if (num(ctx, k, val, &p->sp.smoothing))
            return GK_ERR_ARG;
        if (!(p->sp.smoothing >= 0))
            return gk_error(ctx, GK_ERR_ARG, "-a rbf: smoothing=%s must be >= 0", val);
    } else if (!strcasecmp(k, "degree")) {
        if (num(ctx, k, val, &d))
            return GK_ERR_ARG;
        if (d != floor(d) || d < -1 || d > GK_RBF_MAX_DEGREE)
            return gk_error(ctx, GK_ERR_ARG,
                            "-a rbf: degree=%s must be -1 (no polynomial), 0, 1, 2 or 3", val);
        p->sp.degree = (int)d;
        p->have_degree = 1;
    } else if (!strcasecmp(k, "neighbors")) {
        if (num(ctx, k, val, &d) || gk_param_count(ctx, "rbf", k, d, &p->neighbors))
            return GK_ERR_ARG;
        if (p->neighbors < 1 || p->neighbors > GK_RBF_MAX_NEIGHBORS)
            return gk_error(ctx, GK_ERR_ARG, "-a rbf: neighbors=%s must be 1 to %d", val,
                            GK_RBF_MAX_NEIGHBORS);
    } else if (!strcasecmp(k, "nodata")) {
        a->nodata_given = 1;
        return num(ctx, "nodata", val, &a->nodata);
    } else {
        return gk_error(ctx, GK_ERR_ARG,
                        "-a %s: algorithm rbf has no parameter '%s' (kernel, epsilon, smoothing, "
                        "degree, neighbors, nodata)",
                        spec, k);
    }
    return GK_OK;
}

static int check(gk_context *ctx, gk_algorithm *a)
{
    rbf_params *p = params_of(a);
    const int k = p->sp.kernel, scale_free = gk_rbf_min_degree(k) >= 0;
    if (!p->have_epsilon && !scale_free)
        return gk_error(ctx, GK_ERR_ARG,
                        "-a rbf: kernel=%s depends on the scale of the distances: it needs "
                        "epsilon= (as SciPy's)",
                        kernel_name[k]);
    if (!p->have_degree) /* SciPy's default: the kernel's minimum, at least 0 */
        p->sp.degree = gk_rbf_min_degree(k) > 0 ? gk_rbf_min_degree(k) : 0;
    const int m = gk_rbf_terms(p->sp.degree);
    if (p->neighbors && p->neighbors < m)
        return gk_error(ctx, GK_ERR_ARG,
                        "-a rbf: degree=%d has %d monomials: neighbors=%d must be at least that",
                        p->sp.degree, m, p->neighbors);
    return GK_OK;
}

static void canonical(gk_algorithm *a)
{
    const rbf_params *p = cparams_of(a);
    gk_strbuf sb = {a->canonical, sizeof a->canonical, 0};
    gk_strbuf_add(&sb, "rbf:kernel=%s:epsilon=%.17g:smoothing=%.17g:degree=%d",
                  kernel_name[p->sp.kernel], p->sp.epsilon, p->sp.smoothing, p->sp.degree);
    if (p->neighbors)
        gk_strbuf_add(&sb, ":neighbors=%d", p->neighbors);
    gk_strbuf_add(&sb, ":nodata=%.17g", a->nodata);
}

static int rbf_parse(gk_context *ctx, const char *spec, char *save, gk_algorithm *a)
{
    rbf_params *p = params_of(a);
    memset(p, 0, sizeof *p);
    p->sp.kernel = GK_RBF_TPS;
    p->sp.epsilon = 1.0;
    if (gk_param_pairs(ctx, spec, save, a, key))
        return GK_ERR_ARG;
    if (check(ctx, a))
        return GK_ERR_ARG;
    canonical(a);
    return GK_OK;
}

/* ---- the method ---------------------------------------------------------- */

static void rbf_release(gk_job *job)
{
    gk_rbf_global *g = job->state;
    if (g)
        free(g->coef);
    free(g);
    job->state = NULL;
}

/* The warning SciPy gives for a degree below the kernel's minimum. */
static void warn_degree(gk_job *job, const rbf_params *p)
{
    const int md = gk_rbf_min_degree(p->sp.kernel);
    if (p->sp.degree < md)
        snprintf(job->warning, sizeof job->warning,
                 "rbf: degree=%d is below %s's minimum degree %d: the system may be singular "
                 "(SciPy warns alike)",
                 p->sp.degree, kernel_name[p->sp.kernel], md);
}

/* The global system's outcome as an error in the job's context. */
static int global_error(gk_job *job, int rc)
{
    const rbf_params *p = cparams_of(&job->alg);
    const size_t n = job->pts->n, N = n + (size_t)gk_rbf_terms(p->sp.degree);
    if (rc < 0)
        return gk_error(job->ctx, GK_ERR_NOMEM,
                        "rbf: out of memory for the system of %zu points (%.2f GB)", n,
                        (double)N * N * 8 / 1e9);
    if (rc == GK_RBF_NO_RANK)
        return gk_error(job->ctx, GK_ERR_ARG,
                        "rbf: the %zu points cannot carry degree=%d's monomials (on a line, "
                        "or too few distinct): give a lower degree",
                        n, p->sp.degree);
    if (rc == GK_RBF_SINGULAR)
        return gk_error(job->ctx, GK_ERR_ARG,
                        "rbf: the system of the %zu points is singular (coincident points need "
                        "smoothing > 0)",
                        n);
    return GK_OK;
}

/* The global system solved on the CPU's threads, once (prepare, or the CPU's
 * share of a GPU job: cpu_index; the caller serialises). */
static int global_solve(gk_job *job)
{
    const rbf_params *p = cparams_of(&job->alg);
    gk_rbf_global *g = job->state;
    if (g->coef || !job->pts->n)
        return GK_OK;
    const gk_points *pts = job->pts;
    return global_error(job, gk_rbf_global_solve(&p->sp, pts->x, pts->y, pts->z, (int)pts->n,
                                                 gk_context_threads(job->ctx), g));
}

static int rbf_prepare(gk_job *job)
{
    const rbf_params *p = cparams_of(&job->alg);
    const gk_points *pts = job->pts;
    const size_t n = pts->n;
    const int m = gk_rbf_terms(p->sp.degree);
    warn_degree(job, p);
    if (n && n < (size_t)m)
        return gk_error(job->ctx, GK_ERR_ARG,
                        "rbf: degree=%d has %d monomials: it needs at least %d points, the input "
                        "has %zu",
                        p->sp.degree, m, m, n);
    if (p->neighbors)
        return gk_method_tree(job);
    if (n > GK_RBF_MAX_GLOBAL)
        return gk_error(job->ctx, GK_ERR_ARG,
                        "rbf: %zu points are too many for one global system (at most %d: an "
                        "N^2 matrix and N^3 work); give neighbors=K (50, say) for local systems",
                        n, GK_RBF_MAX_GLOBAL);
    gk_rbf_global *g = calloc(1, sizeof *g);
    if (!g)
        return gk_error(job->ctx, GK_ERR_NOMEM, "rbf: out of memory");
    job->state = g;
    g->n = (int)n;
    if (job->gpu) /* the GPU solves it (gpu/rbf.cu); the same refusals first */
        return n ? global_error(job, gk_rbf_global_check(&p->sp, pts->x, pts->y, (int)n)) : GK_OK;
    return global_solve(job);
}

/* The CPU's share of a GPU job: the k-d tree, or the global system. */
static int rbf_cpu_index(gk_job *job)
{
    if (cparams_of(&job->alg)->neighbors)
        return gk_index_tree(job);
    return global_solve(job);
}

/* One core: the k nearest's search and a system of N unknowns a node (about
 * N^3 / 8 ns, the VM's 17.5 us at N = 53), or the global factor once (2/3 N^3
 * multiply-adds at about 0.06 ns each on the cores together) and a sum over
 * the points a node. */
static double rbf_cost(const gk_algorithm *a, double n, double area, double *setup_ns)
{
    (void)area;
    const rbf_params *p = cparams_of(a);
    const double m = gk_rbf_terms(p->sp.degree);
    if (p->neighbors) {
        const double k = fmin(n, p->neighbors), N = k + m;
        *setup_ns = n * GK_NS_TREE_PER_POINT;
        return gk_cost_select_ns(k, k) + N * N * N / 8.0 + 40.0 * k;
    }
    const double N = n + m;
    *setup_ns = 0.06 * (2.0 / 3.0) * N * N * N;
    return 25.0 * n;
}

static int cmp_int(const void *a, const void *b)
{
    const int u = *(const int *)a, v = *(const int *)b;
    return (u > v) - (u < v);
}

static void sort_ints(int *v, int n)
{
    if (n > 64) {
        qsort(v, (size_t)n, sizeof *v, cmp_int);
        return;
    }
    for (int i = 1; i < n; i++) {
        const int x = v[i];
        int j = i - 1;
        for (; j >= 0 && v[j] > x; j--)
            v[j + 1] = v[j];
        v[j + 1] = x;
    }
}

/* Are two of a node's k nearest at one place? They are equally far from
 * it, so next to each other in the list sorted by distance, or among a run
 * of equal distances. */
static int coincident(const gk_points *pts, const int *idx, const double *d2, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i - 1; j >= 0 && d2[j] == d2[i]; j--)
            if (pts->x[idx[i]] == pts->x[idx[j]] && pts->y[idx[i]] == pts->y[idx[j]])
                return 1;
    return 0;
}

/* A thread's last local system: its points (input order), whether it was
 * singular, its coefficients; and the kernel's values between its points
 * (K, n x n below the diagonal), which the next set mostly shares: a node's
 * neighbours change by a point or two from the last node's. */
typedef struct {
    int n, singular;
    int n_was;      /* the points of K (was), 0 before the first */
    int coincident; /* two of the points at one place (with smoothing=0) */
    int *idx, *was;
    double shift[2], scale[2];
    double *coef, *A, *K, *K2;
    int *piv;
} rbf_local;

/* K for the new set L->idx from the last one it was made for (L->was): the
 * pairs both sets hold are copied (the same doubles), the others computed. */
static void local_kernel(const gk_job *job, const gk_rbf_spec *sp, rbf_local *L)
{
    const gk_points *pts = job->pts;
    const int n = L->n, n_was = L->n_was;
    int *pos = L->piv; /* each new point's place in the last set, or -1 */
    for (int i = 0, o = 0; i < n; i++) {
        while (o < n_was && L->was[o] < L->idx[i])
            o++;
        pos[i] = o < n_was && L->was[o] == L->idx[i] ? o : -1;
    }
    for (int i = 0; i < n; i++) {
        double *row = L->K2 + (size_t)i * n;
        const double *old = pos[i] >= 0 ? L->K + (size_t)pos[i] * n_was : NULL;
        for (int j = 0; j < i; j++)
            row[j] = old && pos[j] >= 0 ? old[pos[j]]
                                        : gk_rbf_pair(sp, pts->x, pts->y, L->idx[i], L->idx[j]);
    }
    double *t = L->K;
    L->K = L->K2, L->K2 = t;
    memcpy(L->was, L->idx, (size_t)n * sizeof *L->idx);
    L->n_was = n;
}

/* The factor with the CPU's widest vectors: each entry's operations are
 * the same (no FMA), so are its doubles (tests/core/test_same_bytes.c). */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("avx2"))) static int lu_avx2(double *A, int N, int *piv)
{
    return gk_rbf_lu(A, N, piv);
}
#endif

static int lu(double *A, int N, int *piv)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (gk_cpu_level() >= GK_ISA_AVX2)
        return lu_avx2(A, N, piv);
#endif
    return gk_rbf_lu(A, N, piv);
}

static int local_solve(const gk_job *job, const gk_rbf_spec *sp, rbf_local *L)
{
    const gk_points *pts = job->pts;
    const int n = L->n, N = n + gk_rbf_terms(sp->degree);
    gk_rbf_frame(pts->x, pts->y, L->idx, n, L->shift, L->scale);
    if (L->coincident) /* two equal rows, which rounding may hide from LU */
        return 1;
    if (sp->degree >= 0 &&
        !gk_rbf_full_rank(pts->x, pts->y, L->idx, n, L->shift, L->scale, sp->degree, L->A))
        return 1;
    local_kernel(job, sp, L);
    gk_rbf_fill(sp, pts->x, pts->y, pts->z, L->idx, n, L->shift, L->scale, L->K, L->A, L->coef);
    return lu(L->A, N, L->piv) || gk_rbf_lu_solve(L->A, N, L->piv, L->coef);
}

static uint64_t local_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s)
{
    const rbf_params *p = cparams_of(&job->alg);
    const gk_points *pts = job->pts;
    const gk_grid *g = t->g;
    const double nodata = job->alg.nodata;
    const int k = p->neighbors < (int)pts->n ? p->neighbors : (int)pts->n;
    const int N = k + gk_rbf_terms(p->sp.degree);
    uint64_t nod = 0, sing = 0;
    if (k <= 0) {
        for (size_t q = 0; q < (size_t)t->w * t->h; q++)
            out[q] = nodata;
        return (uint64_t)t->w * t->h;
    }
    rbf_local L = {0};
    L.idx = malloc((size_t)k * sizeof *L.idx);
    L.was = malloc((size_t)k * sizeof *L.was);
    L.coef = malloc((size_t)N * sizeof *L.coef);
    L.A = malloc((size_t)N * N * sizeof *L.A);
    L.K = malloc((size_t)k * k * sizeof *L.K);
    L.K2 = malloc((size_t)k * k * sizeof *L.K2);
    L.piv = malloc((size_t)N * sizeof *L.piv);
    uint64_t rc = UINT64_MAX;
    if (gk_scratch_reserve(s, (size_t)k) || !L.idx || !L.was || !L.coef || !L.A || !L.K || !L.K2 ||
        !L.piv)
        goto done;
    for (int j = 0; j < t->h; j++) {
        const double ny = gk_grid_node_y(g, t->y0 + j);
        for (int i = 0; i < t->w; i++) {
            const double nx = gk_grid_node_x(g, t->x0 + i);
            int *idx = s->idx;
            const int got = gk_kdtree_knn(job->tree, nx, ny, k, INFINITY, idx, s->d2);
            const int dup = p->sp.smoothing == 0.0 && coincident(pts, idx, s->d2, got);
            sort_ints(idx, got); /* SciPy's order: the system's doubles follow the set */
            if (got != L.n || memcmp(idx, L.idx, (size_t)got * sizeof *idx)) {
                L.n = got;
                L.coincident = dup;
                memcpy(L.idx, idx, (size_t)got * sizeof *idx);
                L.singular = local_solve(job, &p->sp, &L);
            }
            double v = nodata;
            if (L.singular)
                sing++;
            else
                v = gk_rbf_value(&p->sp, pts->x, pts->y, L.idx, L.n, L.shift, L.scale, L.coef, nx,
                                 ny);
            if (L.singular || !isfinite(v)) {
                v = nodata;
                nod++;
            }
            out[(size_t)j * t->w + i] = v;
        }
    }
    rc = nod;
done:
    free(L.idx), free(L.was), free(L.coef), free(L.A), free(L.K), free(L.K2), free(L.piv);
    if (rc != UINT64_MAX)
        gk_job_add_singular(job, sing);
    return rc;
}

static uint64_t rbf_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s)
{
    const rbf_params *p = cparams_of(&job->alg);
    if (p->neighbors)
        return local_tile(job, t, out, s);
    const gk_rbf_global *gl = job->state;
    const gk_points *pts = job->pts;
    const gk_grid *g = t->g;
    const double nodata = job->alg.nodata;
    uint64_t nod = 0;
    for (int j = 0; j < t->h; j++) {
        const double ny = gk_grid_node_y(g, t->y0 + j);
        for (int i = 0; i < t->w; i++) {
            const double nx = gk_grid_node_x(g, t->x0 + i);
            double v = nodata;
            if (gl->n > 0)
                v = gk_rbf_value(&p->sp, pts->x, pts->y, NULL, gl->n, gl->shift, gl->scale,
                                 gl->coef, nx, ny);
            if (gl->n <= 0 || !isfinite(v)) {
                v = nodata;
                nod++;
            }
            out[(size_t)j * t->w + i] = v;
        }
    }
    return nod;
}

/* On the GPU (gpu/rbf.cu): local systems a warp a node with the same
 * decisions (the k nearest over every point, as the k-d tree ranks them),
 * or the global system factorised by cuSOLVER. */
static const char *rbf_gpu(const gk_job *job, gk_gpu_job_desc *d)
{
    const rbf_params *p = cparams_of(&job->alg);
    d->p.rbf = (gk_gpu_rbf){p->sp.kernel, p->sp.degree, p->sp.epsilon, p->sp.smoothing, 0.0};
    d->op = GK_GPU_RBF;
    if (!p->neighbors) { /* one system, factorised by cuSOLVER */
        d->max_points = 0;
        return NULL;
    }
    const int k = p->neighbors < (int)job->pts->n ? p->neighbors : (int)job->pts->n;
    if (k + gk_rbf_terms(p->sp.degree) > GK_GPU_RBF_MAX_N)
        return "the GPU takes local systems of at most " GK_STR(GK_GPU_RBF_MAX_N) " unknowns";
    d->max_points = k;
    d->min_points = 0;
    d->window = GK_GPU_WIN_ALL;
    return NULL;
}

const gk_method gk_method_rbf = {
    .name = "rbf",
    .kind = GK_ALG_RBF,
    .summary = "radial basis functions as SciPy's RBFInterpolator: one global system, or the "
               "k nearest points' (neighbors=k)",
    .parse = rbf_parse,
    .own_keys = "kernel=thin_plate_spline|cubic|quintic|linear|multiquadric|"
                "inverse_multiquadric|inverse_quadratic|gaussian, epsilon, smoothing, degree, "
                "neighbors, nodata",
    .prepare = rbf_prepare,
    .release = rbf_release,
    .cpu_index = rbf_cpu_index,
    .cpu_tile = rbf_tile,
    .gpu_describe = rbf_gpu,
    .cost_ns = rbf_cost,
    .singular_form = "a singular RBF system (coincident points with smoothing=0, or points that "
                     "cannot carry the polynomial)",
};
