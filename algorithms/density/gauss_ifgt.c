/* SPDX-License-Identifier: MIT */
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
#include <stdint.h>
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
    int k, p; /* clusters, the largest order */
    double h;
    double *cx, *cy; /* centres */
    int *pk, *off;   /* each cluster's order p_k, and where its coefficients start */
    double *ry2;     /* each cluster's squared reach (r_x,k + reach)^2, widened */
    size_t ncoef;
    double *coef; /* cluster k's C_(i, j) (the power of x, of y) at off[k] + j (2 p_k - j +
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
 * distance to the nearest of the first k + 1 centres, k < K.
 *
 * The points are kept in the cells of a grid (in index order within each),
 * each cell with its box and its largest distance so far. A new centre
 * changes no point of a cell whose box is at least that far from it: the
 * distance to the box, rounded as a point's own (the same operations on
 * the box's nearer side: rounding is monotonic), is a lower bound on every
 * point's, so the cell is skipped, exactly. After the first few centres
 * only the cells near the new one are read, and the centres, distances and
 * plan are the same as a pass over every point would give. */
typedef struct {
    size_t n;
    int nc;             /* cells */
    size_t *start;      /* nc + 1: each cell's points */
    double *x, *y, *d2; /* the points by cell, and their squared distance to the nearest centre */
    uint32_t *id;       /* their input index */
    double *bx0, *by0, *bx1, *by1, *cmax; /* each cell's box and largest d2 */
    size_t *carg;                         /* input index of its first point at cmax */
    size_t next;                          /* the next centre: the farthest point (input index) */
    int k;                                /* centres so far */
} fp_state;

/* fixed chunks of cells, whatever the threads */
#define FP_CHUNKS 64
#define FP_PAR ((size_t)1 << 15)
#define FP_CELL_PTS 128 /* points a cell, about */

static void fp_free(fp_state *st)
{
    free(st->start), free(st->x), free(st->y), free(st->d2), free(st->id);
    free(st->bx0), free(st->by0), free(st->bx1), free(st->by1), free(st->cmax), free(st->carg);
}

/* the cell of (x, y) in a side x side grid from (xmin, ymin), sx and sy
 * cells a unit */
static uint32_t cell_of(double x, double y, double xmin, double ymin, double sx, double sy,
                        int side)
{
    int cx = (int)((x - xmin) * sx), cy = (int)((y - ymin) * sy);
    cx = cx < 0 ? 0 : cx >= side ? side - 1 : cx;
    cy = cy < 0 ? 0 : cy >= side ? side - 1 : cy;
    return (uint32_t)(cy * side + cx);
}

/* the points into cells of a grid over their box, in index order within
 * each (a counting sort in fixed chunks); -1 when out of memory */
static int fp_init(fp_state *st, const gk_points *pts, double xmin, double ymin, double xmax,
                   double ymax, int threads)
{
    const size_t n = pts->n;
    memset(st, 0, sizeof *st);
    st->n = n;
    int side = (int)sqrt((double)n / FP_CELL_PTS);
    side = side < 1 ? 1 : side > 1024 ? 1024 : side;
    const int nc = side * side;
    st->nc = nc;
    st->start = calloc((size_t)nc + 1, sizeof *st->start);
    st->x = malloc(n * sizeof *st->x), st->y = malloc(n * sizeof *st->y);
    st->d2 = malloc(n * sizeof *st->d2), st->id = malloc(n * sizeof *st->id);
    st->bx0 = malloc(nc * sizeof(double)), st->by0 = malloc(nc * sizeof(double));
    st->bx1 = malloc(nc * sizeof(double)), st->by1 = malloc(nc * sizeof(double));
    st->cmax = malloc(nc * sizeof(double)), st->carg = malloc(nc * sizeof(size_t));
    uint32_t *cell = malloc(n * sizeof *cell);
    size_t *cc = calloc((size_t)FP_CHUNKS * nc, sizeof *cc); /* chunk t's cell c: t * nc + c */
    if (!st->start || !st->x || !st->y || !st->d2 || !st->id || !st->bx0 || !st->by0 || !st->bx1 ||
        !st->by1 || !st->cmax || !st->carg || !cell || !cc) {
        free(cell), free(cc);
        fp_free(st);
        return -1;
    }
    const double sx = xmax > xmin ? side / (xmax - xmin) : 0;
    const double sy = ymax > ymin ? side / (ymax - ymin) : 0;
    const int nt = threads > 0 ? threads : omp_get_num_procs();
    const int par = n >= FP_PAR && nt > 1;
#pragma omp parallel for if (par) num_threads(nt) schedule(static)
    for (int t = 0; t < FP_CHUNKS; t++) {
        const size_t lo = n * (size_t)t / FP_CHUNKS, hi = n * (size_t)(t + 1) / FP_CHUNKS;
        size_t *ct = cc + (size_t)t * nc;
        for (size_t i = lo; i < hi; i++)
            ct[cell[i] = cell_of(pts->x[i], pts->y[i], xmin, ymin, sx, sy, side)]++;
    }
    /* places: cell by cell, chunk by chunk (a cell's points in input order) */
    size_t at = 0;
    for (int c = 0; c < nc; c++) {
        st->start[c] = at;
        for (int t = 0; t < FP_CHUNKS; t++) {
            size_t m = cc[(size_t)t * nc + c];
            cc[(size_t)t * nc + c] = at;
            at += m;
        }
    }
    st->start[nc] = at;
#pragma omp parallel for if (par) num_threads(nt) schedule(static)
    for (int t = 0; t < FP_CHUNKS; t++) {
        const size_t lo = n * (size_t)t / FP_CHUNKS, hi = n * (size_t)(t + 1) / FP_CHUNKS;
        size_t *ct = cc + (size_t)t * nc;
        for (size_t i = lo; i < hi; i++) {
            size_t q = ct[cell[i]]++;
            st->x[q] = pts->x[i], st->y[q] = pts->y[i], st->id[q] = (uint32_t)i;
            st->d2[q] = INFINITY;
        }
    }
    free(cell), free(cc);
#pragma omp parallel for if (par) num_threads(nt) schedule(static)
    for (int c = 0; c < nc; c++) {
        double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
        for (size_t q = st->start[c]; q < st->start[c + 1]; q++) {
            x0 = fmin(x0, st->x[q]), x1 = fmax(x1, st->x[q]);
            y0 = fmin(y0, st->y[q]), y1 = fmax(y1, st->y[q]);
        }
        st->bx0[c] = x0, st->by0[c] = y0, st->bx1[c] = x1, st->by1[c] = y1;
        st->cmax[c] = st->start[c] < st->start[c + 1] ? INFINITY : -1.0;
        st->carg[c] = st->start[c] < st->start[c + 1] ? st->id[st->start[c]] : 0;
    }
    return 0;
}

/* the distance from the centre to a box, rounded as a point's: no point of
 * the box is nearer, as the program computes it */
static double box_d2(double x, double y, double x0, double y0, double x1, double y1)
{
    double dx = x < x0 ? x0 - x : x > x1 ? x1 - x : 0.0;
    double dy = y < y0 ? y0 - y : y > y1 ? y1 - y : 0.0;
    return dx * dx + dy * dy;
}

static void cluster_to(const gk_points *pts, fp_state *st, int K, int *centre, double *rx,
                       int threads)
{
    const int nc = st->nc;
    const int nt = threads > 0 ? threads : omp_get_num_procs();
    const int par = st->n >= FP_PAR && nt > 1;
    for (; st->k < K; st->k++) {
        const size_t c = st->next;
        centre[st->k] = (int)c;
        const double x = pts->x[c], y = pts->y[c];
        double cfar[FP_CHUNKS];
        size_t carg[FP_CHUNKS];
#pragma omp parallel for if (par) num_threads(nt) schedule(static)
        for (int t = 0; t < FP_CHUNKS; t++) {
            const int lo = (int)((long long)nc * t / FP_CHUNKS),
                      hi = (int)((long long)nc * (t + 1) / FP_CHUNKS);
            double far = -1.0;
            size_t arg = SIZE_MAX;
            for (int b = lo; b < hi; b++) {
                if (st->start[b] == st->start[b + 1])
                    continue;
                if (!(box_d2(x, y, st->bx0[b], st->by0[b], st->bx1[b], st->by1[b]) >=
                      st->cmax[b])) {
                    double m = -1.0;
                    size_t a = 0;
                    for (size_t q = st->start[b]; q < st->start[b + 1]; q++) {
                        double dx = st->x[q] - x, dy = st->y[q] - y, e = dx * dx + dy * dy;
                        if (e < st->d2[q])
                            st->d2[q] = e;
                        if (st->d2[q] > m)
                            m = st->d2[q], a = st->id[q];
                    }
                    st->cmax[b] = m, st->carg[b] = a;
                }
                if (st->cmax[b] > far || (st->cmax[b] == far && st->carg[b] < arg))
                    far = st->cmax[b], arg = st->carg[b];
            }
            cfar[t] = far, carg[t] = arg;
        }
        double far = -1.0;
        size_t arg = SIZE_MAX;
        for (int t = 0; t < FP_CHUNKS; t++)
            if (cfar[t] > far || (cfar[t] == far && carg[t] < arg))
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

/* A plan of k clusters of radius r_x on points of extent W x H: a node's
 * cost (ns), and its order in *p; INFINITY when no order up to IFGT_PMAX
 * meets the bound, or rounding would lose it. Never smaller for a larger
 * r_x (the order, the reach and the clusters seen only grow). */
static double plan_ns(double r_x, int k, double reach, double h, double E, size_t n, double W,
                      double H, int *p_out)
{
    const double r_y = r_x + reach, q = 2.0 * r_x * r_y / (h * h);
    const int p = order_for(q, E / 2.0);
    *p_out = p;
    if (!p || !(exp(q) * ((double)n + p * (p + 1) / 2 + 8) * DBL_EPSILON <= E / 4.0))
        return INFINITY;
    const double t = p * (p + 1) / 2.0;
    /* the clusters within r_y of a node: its box's share, of which the disc
     * takes pi / 4 while it is small */
    const double rho = fmax(r_y / fmax(W, H), 0.0);
    const double disc = rho >= 1.0 ? 1.0 : M_PI / 4.0 + (1.0 - M_PI / 4.0) * rho;
    double seen = k * gk_gauss_overlap(r_y, W) * gk_gauss_overlap(r_y, H) * disc + 1.0;
    seen = seen < k ? seen : k;
    /* a node's share of the expansions, and its clusters' series */
    return (t * 4.0 + seen * (t * 2.0 + 40.0)) * GK_IFGT_NS_UNIT;
}

/* Could a plan of the K that gk_ifgt_build tries beat cut_ns? A lower bound
 * on any k centres' radius, from the cells of a G x G grid the points
 * occupy: a disc of radius r meets at most (2r/sx + 2)(2r/sy + 2) cells,
 * and k discs holding every point meet every occupied one. Where even that
 * radius gives no plan cheaper than the cut-off, the clustering (a pass
 * over the points per centre) cannot find one either: plan_ns only grows
 * with the radius. 1 when some might (or the box is flat), else 0. */
#define MP_G 256
static int may_pay(const gk_points *pts, double xmin, double ymin, double xmax, double ymax,
                   int kmax, double reach, double h, double E, double cut_ns, int threads)
{
    const size_t n = pts->n;
    const double W = xmax - xmin, H = ymax - ymin;
    if (!(W > 0) || !(H > 0))
        return 1;
    const size_t words = (size_t)MP_G * MP_G / 64;
    uint64_t *bits = calloc((size_t)FP_CHUNKS * words, sizeof *bits);
    if (!bits)
        return 1; /* the clustering decides, as without the bound */
    const double sx = MP_G / W, sy = MP_G / H;
    const int nt = threads > 0 ? threads : omp_get_num_procs();
#pragma omp parallel for if (n >= FP_PAR && nt > 1) num_threads(nt) schedule(static)
    for (int t = 0; t < FP_CHUNKS; t++) {
        const size_t lo = n * (size_t)t / FP_CHUNKS, hi = n * (size_t)(t + 1) / FP_CHUNKS;
        uint64_t *b = bits + (size_t)t * words;
        for (size_t i = lo; i < hi; i++) {
            const uint32_t c = cell_of(pts->x[i], pts->y[i], xmin, ymin, sx, sy, MP_G);
            b[c >> 6] |= (uint64_t)1 << (c & 63);
        }
    }
    double occ = 0;
    for (size_t w = 0; w < words; w++) {
        uint64_t v = 0;
        for (int t = 0; t < FP_CHUNKS; t++)
            v |= bits[(size_t)t * words + w];
        occ += __builtin_popcountll(v);
    }
    free(bits);
    const double cw = W / MP_G, ch = H / MP_G;
    for (int k = 1; k <= kmax; k = k < kmax && 2 * k > kmax ? kmax : 2 * k) {
        if (k * GK_IFGT_NS_CLUSTER > 0.05 * cut_ns)
            break;
        /* the smallest r with k (2r/cw + 2)(2r/ch + 2) >= occ, shaved for rounding */
        const double A = 4.0 / (cw * ch), B = 4.0 / cw + 4.0 / ch, C = 4.0 - occ / k;
        const double r = C >= 0 ? 0.0 : 0.999 * (-B + sqrt(B * B - 4.0 * A * C)) / (2.0 * A);
        int p;
        if (plan_ns(r, k, reach, h, E, n, W, H, &p) < cut_ns)
            return 1;
        if (k == kmax)
            break;
    }
    return 0;
}

int gk_ifgt_build(gk_job *job, double cut_ns)
{
    gk_algorithm *a = &job->alg;
    const gk_points *pts = job->pts;
    const size_t n = pts->n;
    const double h = sqrt(2.0) * gk_gauss_of(a)->sigma, E = gk_gauss_of(a)->epsilon;
    /* no more centres than 4e8 / n (400 for a million points), nor than
     * the points */
    double kcap = fmax(64.0, 4e8 / fmax((double)n, 1.0));
    kcap = fmin(kcap, (double)IFGT_KMAX);
    int kmax = (double)n < kcap ? (int)(n ? n : 1) : (int)kcap;
    int *centre = malloc(kmax * sizeof *centre);
    double *rx = malloc(kmax * sizeof *rx);
    /* the extent, for the clusters a node sees */
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
    if (n)
        gk_points_bounds(pts, &xmin, &ymin, &xmax, &ymax);
    const double reach = h * sqrt(log(4.0 / E));
    /* auto: no clustering at all where no plan can beat the cut-off */
    if (cut_ns < INFINITY && n &&
        !may_pay(pts, xmin, ymin, xmax, ymax, kmax, reach, h, E, cut_ns, job->ctx->threads)) {
        free(centre), free(rx);
        return GK_IFGT_TAKE_CUTOFF;
    }
    fp_state st;
    if (!centre || !rx || (n && fp_init(&st, pts, xmin, ymin, xmax, ymax, job->ctx->threads))) {
        free(centre), free(rx);
        return gk_error(job->ctx, GK_ERR_NOMEM, "out of memory clustering %zu points", n);
    }
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
        int p;
        const double ns = plan_ns(rx[k - 1], k, reach, h, E, n, xmax - xmin, ymax - ymin, &p);
        if (ns < best_ns)
            best_ns = ns, best_k = k, best_p = p;
        if (k == kmax)
            break;
    }
    if (n)
        fp_free(&st);
    /* method=ifgt (cut_ns infinite) without a plan is an error; auto takes
     * the cut-off when no plan beats it, none found included */
    if (!best_k && !(cut_ns < INFINITY)) {
        free(centre), free(rx);
        return gk_error(job->ctx, GK_ERR_ARG,
                        "-a gauss: method=ifgt: no plan meets epsilon=%.15g with bandwidth "
                        "%.15g here (the expansions would need more than %d clusters or lose "
                        "the bound to rounding); use method=cutoff",
                        E, gk_gauss_of(a)->sigma, kmax);
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
    gk_gauss_of(a)->ifgt_k = K, gk_gauss_of(a)->ifgt_p = P, gk_gauss_of(a)->ifgt_pmin = P;
    for (int k = 0; k < K; k++)
        gk_gauss_of(a)->ifgt_pmin =
            g->pk[k] < gk_gauss_of(a)->ifgt_pmin ? g->pk[k] : gk_gauss_of(a)->ifgt_pmin;
    gk_gauss_of(a)->ifgt_rx = rx[K - 1], gk_gauss_of(a)->ifgt_ry = r_y;
    /* per unit of sum|w|: reach, series, rounding (each within its share of E) */
    gk_gauss_of(a)->ifgt_bound = exp(-(reach * reach) / (h * h)) + trunc +
                                 exp(qmax) * ((double)n + P * (P + 1) / 2 + 8) * DBL_EPSILON;
    free(centre), free(rx), free(own), free(rk);
    gk_dens_state *ds = gk_dens_state_make(job);
    if (!ds) {
        gk_ifgt_free(g);
        return GK_ERR_NOMEM;
    }
    ds->ifgt = g;
    return GK_OK;
}

void gk_ifgt_gpu_desc(const gk_ifgt *g, gk_gpu_job_desc *d)
{
    d->p.dens.form = GK_GPU_GS_IFGT;
    d->p.dens.ifgt_k = g->k, d->p.dens.ifgt_p = g->p;
    d->p.dens.ifgt_h = g->h;
    d->p.dens.ifgt_cx = g->cx, d->p.dens.ifgt_cy = g->cy, d->p.dens.ifgt_coef = g->coef;
    d->p.dens.ifgt_orders = g->pk, d->p.dens.ifgt_offs = g->off, d->p.dens.ifgt_reach2 = g->ry2;
    d->p.dens.ifgt_ncoef = g->ncoef;
}

static int ifgt_node(const gk_job *job, double nx, double ny, double hit2, gk_scratch *s, double *v)
{
    (void)hit2, (void)s;
    const gk_ifgt *g = gk_gauss_ifgt_of(job);
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
    if (gk_gauss_of(a)->normalize)
        sum = sum / (2.0 * M_PI * gk_gauss_of(a)->sigma * gk_gauss_of(a)->sigma);
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
