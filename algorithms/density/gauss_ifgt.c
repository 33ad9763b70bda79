/*
 * density/gauss_ifgt.c - gauss with method=ifgt: the improved fast Gauss
 * transform (Yang, Duraiswami and Gumerov; the error bound of Raykar, Yang,
 * Duraiswami and Gumerov), for bandwidths wide against the points' spread,
 * where the cut-off keeps most points for every node.
 *
 * With h = sqrt(2) sigma the kernel is exp(-|y - x|^2 / h^2). The points are
 * clustered (farthest point first: K centres c, every point within r_x of
 * its centre). About a centre, with a = (x - c) / h and b = (y - c) / h,
 *     exp(-|y - x|^2 / h^2) = exp(-|a|^2) exp(-|b|^2) exp(2 a.b),
 * and exp(2 a.b) = sum over alpha of 2^|alpha| / alpha! a^alpha b^alpha,
 * cut after |alpha| < p. A cluster's coefficients
 *     C_alpha = 2^|alpha| / alpha! sum_i w_i exp(-|a_i|^2) a_i^alpha
 * are summed once; a node adds exp(-|b|^2) sum C_alpha b^alpha over the
 * clusters whose centre is within r_y of it.
 *
 * The bound, per unit of sum|w|: a skipped cluster's points are farther
 * than r_y - r_x, so they miss less than exp(-(r_y - r_x)^2 / h^2); the
 * cut series misses at most (2 |a| |b|)^p / p! e^{2 a.b} per point, which
 * with the factors exp(-|a|^2 - |b|^2) is at most
 * (2 r_x r_y / h^2)^p / p!. Rounding: every partial sum, of the
 * coefficients over a cluster's points and of a series, is below
 * e^{2 r_x r_y / h^2} sum|w| in magnitudes, so the error stays within
 * (n + T + 8) 2^-52 times that (n points, T terms; Horner's rule for the
 * series, below, errs less than a sum of its T terms). E is split: a quarter to the reach, half to the series, a quarter
 * to rounding; the smallest cost that meets all three is chosen among
 * K = 1, 2, 4, ... Everything is summed in input and centre order: the same
 * bytes for any threads or tiles. On the GPU (gpu/density.cu) a thread a
 * node sums the CPU's expansions in the same order, each series by
 * density_sum.h's gk_ds_ifgt_series: the same bytes.
 */
#include "core/method.h"
#include "density/density_sum.h"
#include "density/gauss.h"

#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define IFGT_KMAX 4096 /* clusters at most */
#define IFGT_PMAX 40   /* truncation order at most */

typedef struct gk_ifgt {
    int k, p;        /* clusters, the largest order */
    double h;
    double *cx, *cy; /* centres */
    int *pk, *off;   /* each cluster's order p_k, and where its coefficients start */
    double *ry2;     /* each cluster's squared reach (r_x,k + reach)^2, widened */
    size_t ncoef;
    double *coef;    /* cluster k's C_(i, j) (the power of x, of y) at off[k] + j (2 p_k - j +
                      * 1) / 2 + i, i + j < p_k */
} gk_ifgt;

void gk_ifgt_free(gk_ifgt *g)
{
    if (!g)
        return;
    free(g->cx);
    free(g->cy);
    free(g->pk);
    free(g->ry2);
    free(g->coef);
    free(g);
}

/* Farthest-point clustering, grown a centre at a time (first: point 0;
 * ties: the lowest index): after cluster_to(.., K, ..) rx[k] is the largest
 * distance to the nearest of the first k + 1 centres, k < K. */
typedef struct {
    double *d2; /* each point's squared distance to its nearest centre so far */
    size_t next; /* the next centre: the farthest point */
    int k;       /* centres so far */
} fp_state;

/* Each centre's pass shared by the threads in FP_CHUNKS fixed chunks, each
 * finding its own farthest point (the first of equals); the chunks' answers
 * compared in order give the one pass's answer, whatever the threads. */
#define FP_CHUNKS 64
#define FP_PAR ((size_t)1 << 15)

static void cluster_to(const gk_points *pts, fp_state *st, int K, int *centre, double *rx,
                       int threads)
{
    const size_t n = pts->n;
    const double *px = pts->x, *py = pts->y;
    double *d2 = st->d2;
    const int nt = threads > 0 ? threads : omp_get_num_procs();
    for (; st->k < K; st->k++) {
        const size_t c = st->next;
        centre[st->k] = (int)c;
        const double x = px[c], y = py[c];
        double cfar[FP_CHUNKS];
        size_t carg[FP_CHUNKS];
#pragma omp parallel for if (n >= FP_PAR && nt > 1) num_threads(nt) schedule(static)
        for (int t = 0; t < FP_CHUNKS; t++) {
            const size_t lo = n * (size_t)t / FP_CHUNKS, hi = n * (size_t)(t + 1) / FP_CHUNKS;
            double far = -1.0;
            size_t arg = lo;
            for (size_t i = lo; i < hi; i++) {
                double dx = px[i] - x, dy = py[i] - y, e = dx * dx + dy * dy;
                if (e < d2[i])
                    d2[i] = e;
                if (d2[i] > far)
                    far = d2[i], arg = i;
            }
            cfar[t] = far, carg[t] = arg;
        }
        double far = -1.0;
        size_t arg = 0;
        for (int t = 0; t < FP_CHUNKS; t++)
            if (cfar[t] > far)
                far = cfar[t], arg = carg[t];
        rx[st->k] = sqrt(far);
        st->next = arg;
    }
}

/* The smallest p with (2 r_x r_y / h^2)^p / p! <= tol once the terms fall,
 * or 0 when none up to IFGT_PMAX. */
static int order_for(double q, double tol)
{
    double term = 1.0; /* q^p / p! */
    for (int p = 1; p <= IFGT_PMAX; p++) {
        term *= q / p;
        if (p >= q && term <= tol)
            return p;
    }
    return 0;
}

int gk_ifgt_build(gk_job *job, double cut_ns)
{
    gk_algorithm *a = &job->alg;
    const gk_points *pts = job->pts;
    const size_t n = pts->n;
    const double h = sqrt(2.0) * a->gauss.sigma, E = a->gauss.epsilon;
    /* no more centres than 4e8 / n (400 for a million points), nor than
     * the points */
    double kcap = fmax(64.0, 4e8 / fmax((double)n, 1.0));
    kcap = fmin(kcap, (double)IFGT_KMAX);
    int kmax = (double)n < kcap ? (int)(n ? n : 1) : (int)kcap;
    int *centre = malloc(kmax * sizeof *centre);
    double *rx = malloc(kmax * sizeof *rx);
    fp_state st = {malloc((n ? n : 1) * sizeof *st.d2), 0, 0};
    if (!centre || !rx || !st.d2) {
        free(centre), free(rx), free(st.d2);
        return gk_error(job->ctx, GK_ERR_NOMEM, "out of memory clustering %zu points", n);
    }
    for (size_t i = 0; i < n; i++)
        st.d2[i] = INFINITY;
    /* the extent, for the clusters a node sees */
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
    if (n)
        gk_points_bounds(pts, &xmin, &ymin, &xmax, &ymax);
    const double reach = h * sqrt(log(4.0 / E));
    int best_k = 0, best_p = 0;
    double best_ns = INFINITY;
    /* K = 1, 2, 4, ..., and kmax last (every point its own centre when
     * there are few: r_x = 0, the exact sum). Clustering to K costs about
     * K ns a node (as many nodes as points): once that is a twentieth of
     * the best plan's cost, or of the cut-off's (auto), more centres cannot
     * pay. */
    for (int k = 1; k <= kmax; k = k < kmax && 2 * k > kmax ? kmax : 2 * k) {
        if (k * GK_IFGT_NS_CLUSTER > 0.05 * fmin(best_ns, cut_ns))
            break;
        if (n)
            cluster_to(pts, &st, k, centre, rx, job->ctx->threads);
        else
            rx[k - 1] = 0, centre[k - 1] = 0;
        const double r_x = rx[k - 1], r_y = r_x + reach, q = 2.0 * r_x * r_y / (h * h);
        const int p = order_for(q, E / 2.0);
        if (p && exp(q) * ((double)n + p * (p + 1) / 2 + 8) * DBL_EPSILON <= E / 4.0) {
            const double t = p * (p + 1) / 2.0;
            /* the clusters within r_y of a node: its box's share, of which
             * the disc takes pi / 4 while it is small */
            const double rho = fmax(r_y / fmax(xmax - xmin, ymax - ymin), 0.0);
            const double disc = rho >= 1.0 ? 1.0 : M_PI / 4.0 + (1.0 - M_PI / 4.0) * rho;
            double seen = k * gk_gauss_overlap(r_y, xmax - xmin) *
                              gk_gauss_overlap(r_y, ymax - ymin) * disc +
                          1.0;
            seen = seen < k ? seen : k;
            /* a node's share of the expansions, and its clusters' series */
            const double ns = (t * 4.0 + seen * (t * 2.0 + 40.0)) * GK_IFGT_NS_UNIT;
            if (ns < best_ns)
                best_ns = ns, best_k = k, best_p = p;
        }
        if (k == kmax)
            break;
    }
    free(st.d2);
    /* method=ifgt (cut_ns infinite) without a plan is an error; auto takes
     * the cut-off when no plan beats it, none found included */
    if (!best_k && !(cut_ns < INFINITY)) {
        free(centre), free(rx);
        return gk_error(job->ctx, GK_ERR_ARG,
                        "-a gauss: method=ifgt: no plan meets epsilon=%.15g with bandwidth "
                        "%.15g here (the expansions would need more than %d clusters or lose "
                        "the bound to rounding); use method=cutoff",
                        E, a->gauss.sigma, kmax);
    }
    if (!best_k || best_ns >= cut_ns) { /* auto: the cut-off is cheaper */
        free(centre), free(rx);
        return GK_IFGT_TAKE_CUTOFF;
    }
    gk_ifgt *g = calloc(1, sizeof *g);
    const int K = best_k, P = best_p;
    if (g) {
        g->cx = malloc(K * sizeof *g->cx);
        g->cy = malloc(K * sizeof *g->cy);
        g->pk = malloc(2 * (size_t)K * sizeof *g->pk);
        g->ry2 = malloc(K * sizeof *g->ry2);
    }
    int *own = malloc((n ? n : 1) * sizeof *own);
    double *rk = calloc(K, sizeof *rk);
    if (!g || !g->cx || !g->cy || !g->pk || !g->ry2 || !own || !rk) {
        free(centre), free(rx), free(own), free(rk);
        gk_ifgt_free(g);
        return gk_error(job->ctx, GK_ERR_NOMEM, "out of memory for %d expansions", K);
    }
    g->k = K, g->p = P, g->h = h;
    g->off = g->pk + K;
    for (int k = 0; k < K; k++)
        g->cx[k] = pts->x[centre[k]], g->cy[k] = pts->y[centre[k]];
    /* each point's centre (the nearest; ties: the first chosen), and each
     * cluster's own radius */
    for (size_t i = 0; i < n; i++) {
        int best = 0;
        double bd = INFINITY;
        for (int k = 0; k < K; k++) {
            double dx = pts->x[i] - g->cx[k], dy = pts->y[i] - g->cy[k], e = dx * dx + dy * dy;
            if (e < bd)
                bd = e, best = k;
        }
        own[i] = best;
        rk[best] = fmax(rk[best], bd);
    }
    /* per-cluster truncation: each cluster's order from its own radius
     * (never above P, the order for the largest), its reach likewise */
    double trunc = 0.0, qmax = 0.0;
    size_t ncoef = 0;
    for (int k = 0; k < K; k++) {
        const double r_x = sqrt(rk[k]), r_y = r_x + reach, q = 2.0 * r_x * r_y / (h * h);
        int p = order_for(q, E / 2.0);
        p = p < 1 || p > P ? P : p;
        double term = 1.0;
        for (int u = 1; u <= p; u++)
            term *= q / u;
        trunc = fmax(trunc, term), qmax = fmax(qmax, q);
        g->pk[k] = p;
        g->off[k] = (int)ncoef;
        ncoef += (size_t)p * (p + 1) / 2;
        g->ry2[k] = r_y * r_y * (1.0 + 1e-9); /* widened: rounding keeps more clusters */
    }
    g->ncoef = ncoef;
    g->coef = calloc(ncoef ? ncoef : 1, sizeof *g->coef);
    if (!g->coef) {
        free(centre), free(rx), free(own), free(rk);
        gk_ifgt_free(g);
        return gk_error(job->ctx, GK_ERR_NOMEM, "out of memory for %d expansions", K);
    }
    /* the coefficients in input order, then times 2^|alpha| / alpha! */
    double pa[IFGT_PMAX], pb[IFGT_PMAX], fac[IFGT_PMAX];
    for (size_t i = 0; i < n; i++) {
        const int k = own[i], pk = g->pk[k];
        const double ax = (pts->x[i] - g->cx[k]) / h, ay = (pts->y[i] - g->cy[k]) / h;
        const double wi = pts->z[i] * gk_ds_exp(-(ax * ax + ay * ay));
        pa[0] = pb[0] = 1.0;
        for (int u = 1; u < pk; u++)
            pa[u] = pa[u - 1] * ax, pb[u] = pb[u - 1] * ay;
        double *c = g->coef + g->off[k];
        for (int j = 0, m = 0; j < pk; j++)
            for (int i2 = 0; i2 + j < pk; i2++, m++)
                c[m] = c[m] + wi * (pa[i2] * pb[j]);
    }
    fac[0] = 1.0; /* 2^u / u! */
    for (int u = 1; u < IFGT_PMAX; u++)
        fac[u] = fac[u - 1] * (2.0 / u);
    for (int k = 0; k < K; k++) {
        double *c = g->coef + g->off[k];
        for (int j = 0, m = 0; j < g->pk[k]; j++)
            for (int i2 = 0; i2 + j < g->pk[k]; i2++, m++)
                c[m] *= fac[i2] * fac[j];
    }
    const double r_y = rx[K - 1] + reach;
    a->gauss.ifgt_k = K, a->gauss.ifgt_p = P, a->gauss.ifgt_pmin = P;
    for (int k = 0; k < K; k++)
        a->gauss.ifgt_pmin = g->pk[k] < a->gauss.ifgt_pmin ? g->pk[k] : a->gauss.ifgt_pmin;
    a->gauss.ifgt_rx = rx[K - 1], a->gauss.ifgt_ry = r_y;
    /* per unit of sum|w|: reach, series, rounding (each within its share of E) */
    a->gauss.ifgt_bound = exp(-(reach * reach) / (h * h)) + trunc +
                          exp(qmax) * ((double)n + P * (P + 1) / 2 + 8) * DBL_EPSILON;
    free(centre), free(rx), free(own), free(rk);
    job->ifgt = g;
    return GK_OK;
}

void gk_ifgt_gpu_desc(const gk_ifgt *g, gk_gpu_job_desc *d)
{
    d->dens_form = GK_GPU_GS_IFGT;
    d->ifgt_k = g->k, d->ifgt_p = g->p;
    d->ifgt_h = g->h;
    d->ifgt_cx = g->cx, d->ifgt_cy = g->cy, d->ifgt_coef = g->coef;
    d->ifgt_orders = g->pk, d->ifgt_offs = g->off, d->ifgt_reach2 = g->ry2;
    d->ifgt_ncoef = g->ncoef;
}

static int ifgt_node(const gk_job *job, double nx, double ny, double hit2, gk_scratch *s,
                     double *v)
{
    (void)hit2, (void)s;
    const gk_ifgt *g = job->ifgt;
    const gk_algorithm *a = &job->alg;
    double sum = 0.0;
    for (int k = 0; k < g->k; k++) {
        const double dx = nx - g->cx[k], dy = ny - g->cy[k];
        if (!(dx * dx + dy * dy <= g->ry2[k]))
            continue;
        const double bx = dx / g->h, by = dy / g->h;
        const int p = g->pk[k];
        const double e = gk_ds_ifgt_series(g->coef + g->off[k], p, p * (p + 1) / 2, bx, by);
        sum = sum + gk_ds_exp(-(bx * bx + by * by)) * e;
    }
    if (a->gauss.normalize)
        sum = sum / (2.0 * M_PI * a->gauss.sigma * a->gauss.sigma);
    *v = sum;
    return 1;
}

uint64_t gk_ifgt_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s)
{
    uint64_t nodata = 0;
    for (int j = 0; j < t->h; j++)
        for (int i = 0; i < t->w; i++) {
            double v = job->alg.nodata;
            if (ifgt_node(job, gk_grid_node_x(t->g, t->x0 + i), gk_grid_node_y(t->g, t->y0 + j),
                          t->hit2, s, &v) != 1)
                nodata++;
            out[(size_t)j * t->w + i] = v;
        }
    return nodata;
}
