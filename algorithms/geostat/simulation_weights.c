/* SPDX-License-Identifier: MIT */
/*
 * geostat/simulation_weights.c - the path of a simulation and each node's
 * kriging weights.
 *
 * One path serves every realization (gstat's way: "the same path serves
 * all n realisations"; Nussbaumer et al. 2018's constant path), so a node's
 * neighbourhood - the max_points nearest among the data and the nodes
 * before it on the path - and its weights do not depend on the values
 * drawn: every node's system is solved once, independently of the others
 * (on any thread, in any order), and a realization is then a forward
 * substitution along the path (simulation.c).
 */
#include "simulation.h"
#include "kriging_dense.h"
#include "simulation_node.h"
#include "core/random.h"
#include "search/kdtree.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* ---- the path ------------------------------------------------------------ */

typedef struct {
    uint64_t key; /* coarse grids first, then random */
    uint32_t node;
} path_key;

static int cmp_key(const void *a, const void *b)
{
    const path_key *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->node > y->node) - (x->node < y->node);
}

static int trailing_zeros(int v, int cap)
{
    if (v == 0)
        return cap;
    int t = 0;
    while (!(v & 1) && t < cap)
        v >>= 1, t++;
    return t;
}

int gk_sim_path(gk_context *ctx, gk_sim_geom *s, uint64_t seed, int path_random)
{
    const size_t N = (size_t)s->nx * s->ny;
    if (N >= UINT32_MAX)
        return gk_error(ctx, GK_ERR_ARG, "simulation: a %dx%d grid has too many nodes", s->nx,
                        s->ny);
    s->rank = malloc(N * sizeof *s->rank);
    s->datum = malloc(N * sizeof *s->datum);
    path_key *keys = malloc(N * sizeof *keys);
    if (!s->rank || !s->datum || !keys) {
        free(keys);
        gk_sim_path_free(s);
        return gk_error(ctx, GK_ERR_NOMEM, "simulation: out of memory for a %dx%d grid", s->nx,
                        s->ny);
    }
    for (size_t i = 0; i < N; i++)
        s->datum[i] = -1;
    /* a datum at a node's centre (within 1e-6 of a cell) is that node's
     * value: its kriging variance is 0 */
    const double tx = 1e-6 * s->cw, ty = 1e-6 * s->ch;
    for (size_t d = 0; d < s->nd; d++) {
        const double fi = (s->dx[d] - s->g.xmin) / s->cw - 0.5;
        const double fj = (s->g.ymax - s->dy[d]) / s->ch - 0.5;
        const double ri = floor(fi + 0.5), rj = floor(fj + 0.5);
        if (ri < 0 || rj < 0 || ri >= s->nx || rj >= s->ny)
            continue;
        const int i = (int)ri, j = (int)rj;
        if (fabs(s->dx[d] - gk_grid_node_x(&s->g, i)) <= tx &&
            fabs(s->dy[d] - gk_grid_node_y(&s->g, j)) <= ty)
            s->datum[(size_t)j * s->nx + i] = (int32_t)d; /* duplicates are merged */
    }
    /* coarse grids first (GSLIB's multiple grids): a node's level is how
     * many times 2 divides both its column and its row, up to the level
     * whose grid is about 4 nodes across */
    int lmax = 0;
    if (!path_random)
        while ((4 << (lmax + 1)) <= (s->nx < s->ny ? s->nx : s->ny))
            lmax++;
    size_t m = 0;
    for (int j = 0; j < s->ny; j++)
        for (int i = 0; i < s->nx; i++) {
            const size_t n = (size_t)j * s->nx + i;
            if (s->datum[n] >= 0)
                continue;
            int lt = trailing_zeros(i, lmax), lj = trailing_zeros(j, lmax);
            const uint64_t lev = (uint64_t)(lmax - (lt < lj ? lt : lj));
            keys[m].key = (lev << 58) | (gk_random_bits(seed, GK_SIM_STREAM_PATH, n, 0) >> 6);
            keys[m].node = (uint32_t)n;
            m++;
        }
    qsort(keys, m, sizeof *keys, cmp_key);
    s->path = malloc((m ? m : 1) * sizeof *s->path);
    if (!s->path) {
        free(keys);
        gk_sim_path_free(s);
        return gk_error(ctx, GK_ERR_NOMEM, "simulation: out of memory for a %dx%d grid", s->nx,
                        s->ny);
    }
    for (size_t i = 0; i < N; i++)
        s->rank[i] = UINT32_MAX;
    for (size_t p = 0; p < m; p++) {
        s->path[p] = keys[p].node;
        s->rank[keys[p].node] = (uint32_t)p;
    }
    s->npath = (uint32_t)m;
    free(keys);
    s->nbx = (s->nx + GK_SIM_BLOCK - 1) / GK_SIM_BLOCK;
    const int nby = (s->ny + GK_SIM_BLOCK - 1) / GK_SIM_BLOCK;
    s->bmin = malloc((size_t)s->nbx * nby * sizeof *s->bmin);
    if (!s->bmin)
        return gk_error(ctx, GK_ERR_NOMEM, "simulation: out of memory");
    for (size_t b = 0; b < (size_t)s->nbx * nby; b++)
        s->bmin[b] = UINT32_MAX;
    for (int j = 0; j < s->ny; j++)
        for (int i = 0; i < s->nx; i++) {
            uint32_t *b = s->bmin + (size_t)(j / GK_SIM_BLOCK) * s->nbx + i / GK_SIM_BLOCK;
            const uint32_t r = s->rank[(size_t)j * s->nx + i];
            if (r < *b)
                *b = r;
        }
    return gk_sim_cov_table(ctx, s);
}

int gk_sim_cov_table(gk_context *ctx, gk_sim_geom *s)
{
    /* most neighbours are nodes: their covariances from a table of offsets */
    const int span = s->nx > s->ny ? s->nx : s->ny;
    s->D = span - 1 < 128 ? span - 1 : 128;
    const size_t w = 2 * (size_t)s->D + 1;
    s->ctab = malloc(w * w * sizeof *s->ctab);
    if (!s->ctab)
        return gk_error(ctx, GK_ERR_NOMEM, "simulation: out of memory");
    for (int b = -s->D; b <= s->D; b++)
        for (int a = -s->D; a <= s->D; a++)
            s->ctab[(size_t)(b + s->D) * w + (size_t)(a + s->D)] =
                gk_krige_cov(s->k, (double)a * s->cw, (double)b * s->ch);
    return GK_OK;
}

/* The covariance between nodes (a, b) cells apart (b northwards). */
static inline double node_cov(const gk_sim_geom *s, int a, int b)
{
    if (a >= -s->D && a <= s->D && b >= -s->D && b <= s->D)
        return s->ctab[(size_t)(b + s->D) * (2 * (size_t)s->D + 1) + (size_t)(a + s->D)];
    return gk_krige_cov(s->k, (double)a * s->cw, (double)b * s->ch);
}

void gk_sim_path_free(gk_sim_geom *s)
{
    free(s->path);
    free(s->rank);
    free(s->datum);
    free(s->ctab);
    free(s->bmin);
    s->bmin = NULL;
    s->path = s->rank = NULL;
    s->datum = NULL;
    s->ctab = NULL;
}

/* ---- the weights ----------------------------------------------------------- */

int gk_sim_weights_alloc(gk_sim_weights *w, uint32_t cap, int K)
{
    memset(w, 0, sizeof *w);
    const size_t c = cap ? cap : 1;
    w->cst = malloc(c * sizeof *w->cst);
    w->sd = malloc(c * sizeof *w->sd);
    w->nn = malloc(c * sizeof *w->nn);
    w->nb = malloc(c * (size_t)K * sizeof *w->nb);
    w->w = malloc(c * (size_t)K * sizeof *w->w);
    if (!w->cst || !w->sd || !w->nn || !w->nb || !w->w) {
        gk_sim_weights_free(w);
        return -1;
    }
    return 0;
}

void gk_sim_weights_free(gk_sim_weights *w)
{
    free(w->cst);
    free(w->sd);
    free(w->nn);
    free(w->nb);
    free(w->w);
    memset(w, 0, sizeof *w);
}

/* A thread's workspace for one node's system. */
typedef struct {
    int *didx;
    double *dd2;
    uint32_t *nidx;
    double *nd2;
    /* the merged neighbourhood: offsets from the node, and what each is */
    double *ox, *oy;
    int64_t *who; /* >= 0: a datum; < 0: node -1 - who */
    int *ea, *eb; /* a node's offset in cells (columns east, rows north) */
    double *C, *inv, *a, *b, *c0;
} work;

static void work_free(work *t)
{
    free(t->didx), free(t->dd2), free(t->nidx), free(t->nd2), free(t->ox), free(t->oy);
    free(t->who), free(t->C), free(t->inv), free(t->a), free(t->b), free(t->c0);
    free(t->ea), free(t->eb);
}

static int work_alloc(work *t, int K)
{
    memset(t, 0, sizeof *t);
    const size_t k = (size_t)K, k2 = 2 * k;
    t->didx = malloc(k * sizeof *t->didx);
    t->dd2 = malloc(k * sizeof *t->dd2);
    t->nidx = malloc(k * sizeof *t->nidx);
    t->nd2 = malloc(k * sizeof *t->nd2);
    t->ox = malloc(k2 * sizeof *t->ox);
    t->oy = malloc(k2 * sizeof *t->oy);
    t->who = malloc(k2 * sizeof *t->who);
    t->C = malloc(k * k * sizeof *t->C);
    t->inv = malloc(k * sizeof *t->inv);
    t->a = malloc(k * sizeof *t->a);
    t->b = malloc(k * sizeof *t->b);
    t->c0 = malloc(k * sizeof *t->c0);
    t->ea = malloc(k2 * sizeof *t->ea);
    t->eb = malloc(k2 * sizeof *t->eb);
    if (!t->ea || !t->eb || !t->didx || !t->dd2 || !t->nidx || !t->nd2 || !t->ox || !t->oy ||
        !t->who || !t->C || !t->inv || !t->a || !t->b || !t->c0) {
        work_free(t);
        return -1;
    }
    return 0;
}

/* Position p's system: its neighbours, weights, constant and deviation.
 * Returns 1 when the system was singular with all its neighbours (fewer
 * were taken). */
static int node_weights(const gk_sim_geom *s, uint32_t p, work *t, gk_sim_weights *w)
{
    const gk_krige_state *k = s->k;
    const int K = s->K;
    const uint32_t node = s->path[p];
    const int i = (int)(node % (uint32_t)s->nx), j = (int)(node / (uint32_t)s->nx);
    const double x = gk_grid_node_x(&s->g, i), y = gk_grid_node_y(&s->g, j);

    /* the nodes first: late on the path their K nearest are a few cells
     * away and bound the data's search (any datum among the K nearest of
     * both is within the K-th node's distance) */
    const gk_simn_grid sg = {s->nx, s->ny, s->nbx, GK_SIM_BLOCK, s->cw, s->ch, s->rank, s->bmin};
    const int nn = gk_simn_near_nodes(&sg, i, j, p, s->r2max, K, t->nidx, t->nd2);
    double bound = s->r2max;
    if (nn == K && t->nd2[K - 1] < bound)
        bound = t->nd2[K - 1];
    int nd = 0;
    if (s->nd)
        nd = gk_kdtree_knn((const gk_kdtree *)s->tree, x, y, K, bound, t->didx, t->dd2);

    /* the K nearest of both, a datum before a node at equal distance */
    int m = 0, a = 0, b = 0;
    while (m < K && (a < nd || b < nn)) {
        if (b >= nn || (a < nd && t->dd2[a] <= t->nd2[b])) {
            const int d = t->didx[a++];
            t->ox[m] = s->dx[d] - x;
            t->oy[m] = s->dy[d] - y;
            t->who[m] = d;
        } else {
            const uint32_t q = t->nidx[b++];
            t->ea[m] = (int)(q % (uint32_t)s->nx) - i;
            t->eb[m] = j - (int)(q / (uint32_t)s->nx);
            t->ox[m] = (double)t->ea[m] * s->cw;
            t->oy[m] = (double)t->eb[m] * s->ch;
            t->who[m] = -1 - (int64_t)q;
        }
        m++;
    }

    const size_t at = (size_t)(p - w->p0);
    int lowered = 0;
    for (;; m--, lowered = 1) {
        const int ok_type = s->ordinary && m >= 4;
        double *C = t->C;
        /* pairs of nodes by their offsets in cells (the table), the others
         * by their coordinates' differences */
        for (int r = 0; r < m; r++) {
            const int rn = t->who[r] < 0;
            for (int c = 0; c <= r; c++)
                C[(size_t)r * m + c] =
                    rn && t->who[c] < 0 ? node_cov(s, t->ea[r] - t->ea[c], t->eb[r] - t->eb[c])
                                        : gk_krige_cov(k, t->ox[r] - t->ox[c], t->oy[r] - t->oy[c]);
            t->c0[r] = rn ? node_cov(s, t->ea[r], t->eb[r]) : gk_krige_cov(k, t->ox[r], t->oy[r]);
        }
        if (m > 0 && gk_kd_chol(C, m, m, t->inv, GK_KRIGE_CHOL_TOL))
            continue; /* singular: the farthest neighbour goes */
        memcpy(t->a, t->c0, (size_t)m * sizeof *t->a);
        gk_kd_fwd(C, m, m, t->inv, t->a);
        gk_kd_bwd(C, m, m, t->inv, t->a);
        double var = k->A, sa = 0.0;
        for (int r = 0; r < m; r++)
            var -= t->a[r] * t->c0[r], sa += t->a[r];
        double mu = 0.0;
        if (ok_type) { /* the weights' sum held to 1 */
            for (int r = 0; r < m; r++)
                t->b[r] = 1.0;
            gk_kd_fwd(C, m, m, t->inv, t->b);
            gk_kd_bwd(C, m, m, t->inv, t->b);
            double s1 = 0.0;
            for (int r = 0; r < m; r++)
                s1 += t->b[r];
            mu = (1.0 - sa) / s1;
            for (int r = 0; r < m; r++)
                t->a[r] += mu * t->b[r];
            var += (1.0 - sa) * mu;
        }
        double cst = ok_type ? 0.0 : s->mean * (1.0 - sa);
        int q = 0;
        for (int r = 0; r < m; r++) {
            if (t->who[r] >= 0) {
                cst += t->a[r] * s->dv[t->who[r]];
            } else {
                w->nb[at * K + q] = (uint32_t)(-1 - t->who[r]);
                w->w[at * K + q] = t->a[r];
                q++;
            }
        }
        w->cst[at] = cst;
        w->sd[at] = var > 0 ? sqrt(var) : 0.0;
        w->nn[at] = (uint16_t)q;
        return lowered;
    }
}

int gk_sim_weights_fill(const gk_sim_geom *s, uint32_t p0, uint32_t p1, int threads,
                        gk_sim_weights *w, uint64_t *lowered)
{
    w->p0 = p0;
    w->p1 = p1;
    int fail = 0;
    uint64_t low = 0;
#pragma omp parallel num_threads(threads) reduction(+ : low) reduction(| : fail)
    {
        work t;
        const int bad = work_alloc(&t, s->K) != 0;
        fail |= bad;
        /* every thread meets the loop; one without workspace takes no node */
#pragma omp for schedule(dynamic, 256)
        for (int64_t p = p0; p < (int64_t)p1; p++)
            if (!bad)
                low += (uint64_t)node_weights(s, (uint32_t)p, &t, w);
        if (!bad)
            work_free(&t);
    }
    if (lowered)
        *lowered += low;
    return fail ? GK_ERR_NOMEM : GK_OK;
}
