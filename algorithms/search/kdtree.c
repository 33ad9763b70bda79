/* SPDX-License-Identifier: MIT */
/* kdtree.c - static 2-D k-d tree with leaf buckets (the CPU spatial index).
 *
 * Every node keeps the tight bounding box of its points; children of a node
 * are stored next to each other. Points are permuted so that each node's
 * points are contiguous (x, y and original index in separate arrays, so the
 * leaf scans are simple loops). Pruning compares box distances computed the
 * same way as point distances (fl(a - b) is monotone), so it never drops a
 * point that the exact test would accept. */
#include "kdtree.h"

#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define KD_LEAF 16 /* split nodes above this: leaves hold 8..16 points */
/* pending subtrees of a k-NN walk: one a level at most; the selected build
 * is about log2(n / 8) deep, one from levels below GK_KD_NO_SPLIT + 32 */
#define KD_STACK 320
#define KD_SMALL_K 128 /* sorted-array k-NN up to this k (measured faster), a heap above */

typedef struct {
    double xmin, ymin, xmax, ymax;
    int32_t lo, hi; /* point range [lo, hi) */
    int32_t left;   /* first child (the second is left + 1); -1 for a leaf */
    int32_t pad;
} kd_node;

struct gk_kdtree {
    size_t n;
    double *x, *y; /* permuted coordinates */
    int *idx;      /* original index of each permuted point */
    kd_node *nodes;
    int nnodes;
    /* a hold-out view (gk_kdtree_holdout): the arrays are the base tree's,
     * and the points i with group[i] == g are skipped by every query */
    const int *group;
    int g;
    int view;
    int borrowed; /* x and y are the caller's (gk_kdtree_build_levels) */
};

/* Is the point of original index id held out? */
static inline int held_out(const gk_kdtree *t, int id) { return t->group && t->group[id] == t->g; }

/* ---- build ----------------------------------------------------------- */

/* Points travel as records through the build, so that each pass reads
 * them in sequence (through a permutation every point missed the cache);
 * the permutation they end in is the one the plain build makes. */
typedef struct {
    double x, y;
    int32_t i, pad;
} kd_rec;

static double rkey(const kd_rec *r, int axis) { return axis ? r->y : r->x; }

/* Orders r[lo..hi) so that r[k] holds the k-th smallest key along axis
 * (ties by original index, so the layout does not depend on anything else). */
static void select_kth(kd_rec *r, size_t lo, size_t hi, size_t k, int axis)
{
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        /* median of three as pivot */
        const kd_rec *a = &r[lo], *b = &r[mid], *c = &r[hi - 1];
        double ka = rkey(a, axis), kb = rkey(b, axis), kc = rkey(c, axis);
        int piv;
        double kp;
        if ((ka < kb) == (kb < kc)) {
            piv = b->i;
            kp = kb;
        } else if ((kb < ka) == (ka < kc)) {
            piv = a->i;
            kp = ka;
        } else {
            piv = c->i;
            kp = kc;
        }
        /* three-way partition on (key, index) */
        size_t i = lo, lt = lo, gt = hi;
        while (i < gt) {
            kd_rec p = r[i];
            double kq = rkey(&p, axis);
            int less = kq < kp || (kq == kp && p.i < piv);
            int more = kq > kp || (kq == kp && p.i > piv);
            if (less) {
                r[i] = r[lt];
                r[lt] = p;
                lt++;
                i++;
            } else if (more) {
                gt--;
                r[i] = r[gt];
                r[gt] = p;
            } else {
                i++;
            }
        }
        if (k < lt)
            hi = lt;
        else if (k >= gt)
            lo = gt;
        else
            return;
    }
}

/* The nodes below a node of m points, as the shape alone makes them (every
 * node above KD_LEAF points splits in two halves by count): the numbers of
 * a subtree's nodes are fixed before it is built, so subtrees build at once
 * and the layout is the same for any thread count. A node whose points all
 * coincide stays a leaf and leaves its would-be descendants' numbers
 * unused. At each depth the sizes are floor or ceil of m / 2^d: two counts
 * a level. */
static size_t kd_desc(size_t m)
{
    size_t s = m, c0 = 1, c1 = 0, leaves = 0; /* c0 nodes of s points, c1 of s + 1 */
    while (c0 || c1) {
        const size_t h = s / 2;
        size_t n0 = 0, n1 = 0; /* the next level: n0 nodes of h points, n1 of h + 1 */
        if (s <= KD_LEAF)
            leaves += c0;
        else if (s % 2 == 0)
            n0 += 2 * c0;
        else
            n0 += c0, n1 += c0;
        if (s + 1 <= KD_LEAF)
            leaves += c1;
        else if ((s + 1) % 2 == 0) /* s odd: two halves of h + 1 */
            n1 += 2 * c1;
        else
            n0 += c1, n1 += c1;
        s = h, c0 = n0, c1 = n1;
    }
    return leaves ? 2 * (leaves - 1) : 0;
}

/* Nodes of at least this many points are split level by level, side by
 * side; the subtrees below them are then built side by side, each on one
 * thread. */
#define KD_PAR_NODE ((size_t)1 << 15)

typedef struct {
    int ni;        /* the node's number */
    size_t lo, hi; /* its points */
    int next;      /* its descendants' first number */
} kd_item;

/* Node it: its box, and, unless it is a leaf, its split (the two halves
 * put in place by select_kth); its children's items in kid[0..1], their
 * count returned. */
static int build_one(gk_kdtree *t, kd_rec *r, const kd_item *it, kd_item kid[2])
{
    kd_node *nd = &t->nodes[it->ni];
    const size_t lo = it->lo, hi = it->hi;
    double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
    for (size_t i = lo; i < hi; i++) {
        double px = r[i].x, py = r[i].y;
        x0 = px < x0 ? px : x0;
        x1 = px > x1 ? px : x1;
        y0 = py < y0 ? py : y0;
        y1 = py > y1 ? py : y1;
    }
    nd->xmin = x0;
    nd->ymin = y0;
    nd->xmax = x1;
    nd->ymax = y1;
    nd->lo = (int32_t)lo;
    nd->hi = (int32_t)hi;
    nd->pad = 0;
    if (hi - lo <= KD_LEAF || (x1 == x0 && y1 == y0)) {
        nd->left = -1;
        return 0;
    }
    int axis = (y1 - y0) > (x1 - x0);
    size_t mid = lo + (hi - lo) / 2;
    select_kth(r, lo, hi, mid, axis);
    const int c = it->next;
    nd->left = c;
    kid[0] = (kd_item){c, lo, mid, c + 2};
    kid[1] = (kd_item){c + 1, mid, hi, c + 2 + (int)kd_desc(mid - lo)};
    return 2;
}

/* The subtree of it, depth first on this thread. */
static void build_node(gk_kdtree *t, kd_rec *r, const kd_item *it)
{
    kd_item kid[2];
    int k = build_one(t, r, it, kid);
    for (int j = 0; j < k; j++)
        build_node(t, r, &kid[j]);
}

/* The whole tree on nt threads; 0, or -1 when out of memory. */
static int build_tree(gk_kdtree *t, kd_rec *r, size_t n, int nt)
{
    /* at most n / KD_PAR_NODE nodes that large at one depth, 2 n / KD_PAR_NODE
     * in all, and two children each */
    size_t cap = 2 * (n / KD_PAR_NODE + 2);
    kd_item *level = malloc(cap * sizeof *level), *kids = malloc(2 * cap * sizeof *kids);
    kd_item *small = malloc(2 * cap * sizeof *small);
    int *got = malloc(cap * sizeof *got);
    if (!level || !kids || !small || !got) {
        free(level), free(kids), free(small), free(got);
        return -1;
    }
    size_t nl = 1, ns = 0;
    level[0] = (kd_item){0, 0, n, 1};
    while (nl) {
#pragma omp parallel for if (nl > 1) num_threads(nt) schedule(dynamic, 1)
        for (size_t i = 0; i < nl; i++)
            got[i] = build_one(t, r, &level[i], &kids[2 * i]);
        size_t m = 0;
        for (size_t i = 0; i < nl; i++)
            for (int j = 0; j < got[i]; j++) {
                kd_item k = kids[2 * i + j];
                if (k.hi - k.lo >= KD_PAR_NODE)
                    level[m++] = k;
                else
                    small[ns++] = k;
            }
        nl = m;
    }
#pragma omp parallel for if (ns > 1) num_threads(nt) schedule(dynamic, 1)
    for (size_t i = 0; i < ns; i++)
        build_node(t, r, &small[i]);
    free(level), free(kids), free(small), free(got);
    return 0;
}

gk_kdtree *gk_kdtree_build(const double *x, const double *y, size_t n)
{
    return gk_kdtree_build_threads(x, y, n, 1);
}

/* A tree of n points, its arrays still to come; NULL beyond int32 indices or
 * out of memory. */
static gk_kdtree *tree_new(size_t n)
{
    if (n > (size_t)INT32_MAX)
        return NULL;
    gk_kdtree *t = calloc(1, sizeof *t);
    if (t)
        t->n = n;
    return t;
}

gk_kdtree *gk_kdtree_build_threads(const double *x, const double *y, size_t n, int threads)
{
    gk_kdtree *t = tree_new(n);
    if (!t)
        return NULL;
    size_t maxnodes = 1 + kd_desc(n);
    size_t m = n ? n : 1;
    t->x = malloc(m * sizeof *t->x);
    t->y = malloc(m * sizeof *t->y);
    t->idx = malloc(m * sizeof *t->idx);
    t->nodes = malloc(maxnodes * sizeof *t->nodes);
    kd_rec *r = malloc(m * sizeof *r);
    if (!t->x || !t->y || !t->idx || !t->nodes || !r || maxnodes > (size_t)INT32_MAX) {
        free(r);
        gk_kdtree_free(t);
        return NULL;
    }
    t->nnodes = (int)maxnodes;
    if (n == 0) {
        free(r);
        return t;
    }
    for (size_t i = 0; i < n; i++)
        r[i] = (kd_rec){x[i], y[i], (int32_t)i, 0};
    if (build_tree(t, r, n, threads > 0 ? threads : omp_get_num_procs())) {
        free(r);
        gk_kdtree_free(t);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        t->x[i] = r[i].x;
        t->y[i] = r[i].y;
        t->idx[i] = r[i].i;
    }
    free(r);
    return t;
}

/* ---- a tree that follows another tree's order ------------------------- */

/* Points in the depth-first order of a tree (gdal_grid's quadtree, kept by
 * the job), with that tree's boundaries lev[k] between points k-1 and k: a
 * node's range splits at its shallowest boundary (the first of equals), so
 * the nodes are that tree's nodes in binary form, with tight boxes and
 * leaves of at most KD_LEAF points. Nothing is selected or moved. */
typedef struct {
    kd_node *v;
    size_t n, cap;
} kd_vec;

static int vec_take(kd_vec *a, size_t m)
{
    if (a->n + m > a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 256;
        while (cap < a->n + m)
            cap *= 2;
        kd_node *v = realloc(a->v, cap * sizeof *v);
        if (!v)
            return -1;
        a->v = v, a->cap = cap;
    }
    a->n += m;
    return 0;
}

/* where [lo, hi) splits: its shallowest boundary, or 0 (a leaf). Below
 * a tree's deepest level that lev can tell (GK_KD_NO_SPLIT - 1: the
 * boundaries of deeper nodes all read so), the one nearest the middle, so
 * that the depth stays below GK_KD_NO_SPLIT + log2(n). */
static size_t lev_split(const uint8_t *lev, size_t lo, size_t hi)
{
    if (hi - lo <= KD_LEAF)
        return 0;
    size_t at = 0;
    unsigned best = GK_KD_NO_SPLIT;
    for (size_t k = lo + 1; k < hi; k++)
        if (lev[k] < best)
            best = lev[k], at = k;
    if (best == GK_KD_NO_SPLIT - 1) {
        const size_t mid = lo + (hi - lo) / 2;
        for (size_t k = at; k < hi; k++)
            if (lev[k] == best && (k > mid ? k - mid : mid - k) < (at > mid ? at - mid : mid - at))
                at = k;
    }
    return at;
}

static void lev_box(const gk_kdtree *t, kd_node *nd)
{
    double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
    for (int32_t i = nd->lo; i < nd->hi; i++) {
        double px = t->x[i], py = t->y[i];
        x0 = px < x0 ? px : x0;
        x1 = px > x1 ? px : x1;
        y0 = py < y0 ? py : y0;
        y1 = py > y1 ? py : y1;
    }
    nd->xmin = x0, nd->ymin = y0, nd->xmax = x1, nd->ymax = y1;
}

static void union_box(kd_node *nd, const kd_node *a, const kd_node *b)
{
    nd->xmin = a->xmin < b->xmin ? a->xmin : b->xmin;
    nd->ymin = a->ymin < b->ymin ? a->ymin : b->ymin;
    nd->xmax = a->xmax > b->xmax ? a->xmax : b->xmax;
    nd->ymax = a->ymax > b->ymax ? a->ymax : b->ymax;
}

/* node ni of a (its range set) and its subtree, children in pairs after it */
static int lev_subtree(const gk_kdtree *t, const uint8_t *lev, kd_vec *a, size_t ni)
{
    const size_t lo = (size_t)a->v[ni].lo, hi = (size_t)a->v[ni].hi;
    const size_t mid = lev_split(lev, lo, hi);
    a->v[ni].pad = 0;
    if (!mid) {
        a->v[ni].left = -1;
        lev_box(t, &a->v[ni]);
        return 0;
    }
    const size_t c = a->n;
    if (vec_take(a, 2))
        return -1;
    a->v[ni].left = (int32_t)c;
    a->v[c].lo = (int32_t)lo, a->v[c].hi = (int32_t)mid;
    a->v[c + 1].lo = (int32_t)mid, a->v[c + 1].hi = (int32_t)hi;
    if (lev_subtree(t, lev, a, c) || lev_subtree(t, lev, a, c + 1))
        return -1;
    union_box(&a->v[ni], &a->v[c], &a->v[c + 1]);
    return 0;
}

/* a subtree's root, by its number among the top nodes; -1 out of memory */
static int add_slot(size_t **slot, size_t *n, size_t *cap, size_t ni)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 64;
        size_t *v = realloc(*slot, c * sizeof *v);
        if (!v)
            return -1;
        *slot = v, *cap = c;
    }
    (*slot)[(*n)++] = ni;
    return 0;
}

gk_kdtree *gk_kdtree_build_levels(const double *x, const double *y, const uint8_t *lev, size_t n,
                                  int threads)
{
    gk_kdtree *t = tree_new(n);
    if (!t)
        return NULL;
    size_t m = n ? n : 1;
    t->x = (double *)x; /* in the order already: kept, not copied */
    t->y = (double *)y;
    t->borrowed = 1;
    t->idx = malloc(m * sizeof *t->idx);
    kd_vec top = {0};
    kd_vec *sub = NULL;
    size_t *slot = NULL, nsub = 0, cap = 0;
    int failed = !t->idx || vec_take(&top, 1);
    if (failed)
        goto out;
    const int nt = threads > 0 ? threads : omp_get_num_procs();
#pragma omp parallel for if (n >= KD_PAR_NODE && nt > 1) num_threads(nt)
    for (size_t i = 0; i < n; i++)
        t->idx[i] = (int)i;
    /* nodes of KD_PAR_NODE points and more, top down, one at a time (the
     * scan for the split is theirs); the subtrees below them side by side,
     * each in its own array, then moved behind them */
    top.v[0].lo = 0, top.v[0].hi = (int32_t)n;
    for (size_t ni = 0; !failed && ni < top.n; ni++) {
        kd_node *nd = &top.v[ni];
        if ((size_t)(nd->hi - nd->lo) < KD_PAR_NODE && ni > 0)
            continue; /* a subtree's root, built below */
        size_t mid = lev_split(lev, (size_t)nd->lo, (size_t)nd->hi);
        nd->pad = 0;
        if (!mid || (size_t)(nd->hi - nd->lo) < KD_PAR_NODE) {
            failed = add_slot(&slot, &nsub, &cap, ni);
            continue;
        }
        const int32_t lo = nd->lo, hi = nd->hi;
        const size_t c = top.n;
        if (vec_take(&top, 2)) {
            failed = 1;
            break;
        }
        top.v[ni].left = (int32_t)c;
        top.v[c].lo = lo, top.v[c].hi = (int32_t)mid;
        top.v[c + 1].lo = (int32_t)mid, top.v[c + 1].hi = hi;
        for (int j = 0; j < 2; j++)
            if (!failed && (size_t)(top.v[c + j].hi - top.v[c + j].lo) < KD_PAR_NODE)
                failed = add_slot(&slot, &nsub, &cap, c + j);
    }
    if (failed || !(sub = calloc(nsub ? nsub : 1, sizeof *sub)))
        goto out;
#pragma omp parallel for if (nsub > 1 && nt > 1) num_threads(nt) schedule(dynamic, 1)              \
    reduction(|                                                                                    \
              : failed)
    for (size_t s = 0; s < nsub; s++) {
        kd_vec *a = &sub[s];
        if (vec_take(a, 1)) {
            failed = 1;
            continue;
        }
        a->v[0].lo = top.v[slot[s]].lo, a->v[0].hi = top.v[slot[s]].hi;
        failed |= lev_subtree(t, lev, a, 0);
    }
    if (failed)
        goto out;
    /* each subtree's root into its slot, the rest behind the top nodes in
     * slot order: a layout that depends on the points only */
    size_t total = top.n;
    for (size_t s = 0; s < nsub; s++)
        total += sub[s].n - 1;
    if (total > (size_t)INT32_MAX || !(t->nodes = malloc(total * sizeof *t->nodes))) {
        failed = 1;
        goto out;
    }
    memcpy(t->nodes, top.v, top.n * sizeof *top.v);
    size_t base = top.n;
    for (size_t s = 0; s < nsub; s++) {
        const kd_vec *a = &sub[s];
        const int32_t shift = (int32_t)base - 1; /* local node j > 0 goes to base + j - 1 */
        kd_node *root = &t->nodes[slot[s]];
        *root = a->v[0];
        if (root->left >= 0)
            root->left += shift;
        for (size_t j = 1; j < a->n; j++) {
            kd_node nd = a->v[j];
            if (nd.left >= 0)
                nd.left += shift;
            t->nodes[base + j - 1] = nd;
        }
        base += a->n - 1;
    }
    t->nnodes = (int)total;
    /* the top nodes' boxes, children first; a subtree's root has its box
     * (its children, if any, lie behind the top nodes) */
    for (size_t ni = top.n; ni-- > 0;) {
        kd_node *nd = &t->nodes[ni];
        if (nd->left >= 0 && (size_t)nd->left < top.n)
            union_box(nd, &t->nodes[nd->left], &t->nodes[nd->left + 1]);
    }
out:
    for (size_t s = 0; sub && s < nsub; s++)
        free(sub[s].v);
    free(sub), free(slot), free(top.v);
    if (failed) {
        gk_kdtree_free(t);
        return NULL;
    }
    return t;
}

void gk_kdtree_free(gk_kdtree *t)
{
    if (!t)
        return;
    if (t->view) {
        free(t);
        return;
    }
    if (!t->borrowed) {
        free(t->x);
        free(t->y);
    }
    free(t->idx);
    free(t->nodes);
    free(t);
}

gk_kdtree *gk_kdtree_holdout(const gk_kdtree *t, const int *group)
{
    gk_kdtree *v = malloc(sizeof *v);
    if (!v)
        return NULL;
    *v = *t;
    v->group = group;
    v->g = 0;
    v->view = 1;
    return v;
}

void gk_kdtree_holdout_set(gk_kdtree *view, int g) { view->g = g; }

size_t gk_kdtree_size(const gk_kdtree *t) { return t ? t->n : 0; }

/* Squared distance from (cx, cy) to the node's box; never more than the
 * squared distance of any point inside it, in floating point too. */
static inline double box_d2(const kd_node *nd, double cx, double cy)
{
    /* branch-free: at most one of the two differences is positive */
    double ax = nd->xmin - cx, bx = cx - nd->xmax;
    double ay = nd->ymin - cy, by = cy - nd->ymax;
    double dx = ax > bx ? ax : bx, dy = ay > by ? ay : by;
    dx = dx > 0.0 ? dx : 0.0;
    dy = dy > 0.0 ? dy : 0.0;
    return dx * dx + dy * dy;
}

/* ---- radius and box ---------------------------------------------------- */

typedef struct {
    const gk_kdtree *t;
    double cx, cy, r2, hx, hy;
    int *idx;
    double *d2;
    size_t cap, n;
} range_q;

static void radius_rec(range_q *q, int ni)
{
    const kd_node *nd = &q->t->nodes[ni];
    if (nd->left < 0) {
        const double *x = q->t->x, *y = q->t->y;
        if (!q->t->group && q->n + (size_t)(nd->hi - nd->lo) <= q->cap) {
            /* room for the whole leaf: every point written, the count
             * advanced by the test (no branch to mispredict) */
            size_t n = q->n;
            for (int i = nd->lo; i < nd->hi; i++) {
                double dx = x[i] - q->cx, dy = y[i] - q->cy;
                double d = dx * dx + dy * dy;
                q->idx[n] = q->t->idx[i];
                q->d2[n] = d;
                n += d <= q->r2;
            }
            q->n = n;
            return;
        }
        for (int i = nd->lo; i < nd->hi; i++) {
            double dx = x[i] - q->cx, dy = y[i] - q->cy;
            double d = dx * dx + dy * dy;
            if (d <= q->r2 && !held_out(q->t, q->t->idx[i])) {
                if (q->n < q->cap) {
                    q->idx[q->n] = q->t->idx[i];
                    q->d2[q->n] = d;
                }
                q->n++;
            }
        }
        return;
    }
    int c = nd->left;
    if (box_d2(&q->t->nodes[c], q->cx, q->cy) <= q->r2)
        radius_rec(q, c);
    if (box_d2(&q->t->nodes[c + 1], q->cx, q->cy) <= q->r2)
        radius_rec(q, c + 1);
}

size_t gk_kdtree_radius(const gk_kdtree *t, double cx, double cy, double r2, int *idx, double *d2,
                        size_t cap)
{
    if (!t || t->n == 0 || !(r2 >= 0.0))
        return 0;
    range_q q = {t, cx, cy, r2, 0, 0, idx, d2, cap, 0};
    if (box_d2(&t->nodes[0], cx, cy) <= r2)
        radius_rec(&q, 0);
    return q.n;
}

/* Does the node's box overlap [cx - hx, cx + hx] x [cy - hy, cy + hy], with the
 * offsets computed as for the points? */
static inline int box_overlaps(const kd_node *nd, const range_q *q)
{
    return nd->xmin - q->cx <= q->hx && nd->xmax - q->cx >= -q->hx && nd->ymin - q->cy <= q->hy &&
           nd->ymax - q->cy >= -q->hy;
}

static void box_rec(range_q *q, int ni)
{
    const kd_node *nd = &q->t->nodes[ni];
    if (nd->left < 0) {
        const double *x = q->t->x, *y = q->t->y;
        for (int i = nd->lo; i < nd->hi; i++) {
            double dx = x[i] - q->cx, dy = y[i] - q->cy;
            if (fabs(dx) <= q->hx && fabs(dy) <= q->hy && !held_out(q->t, q->t->idx[i])) {
                if (q->n < q->cap) {
                    q->idx[q->n] = q->t->idx[i];
                    q->d2[q->n] = dx * dx + dy * dy;
                }
                q->n++;
            }
        }
        return;
    }
    int c = nd->left;
    if (box_overlaps(&q->t->nodes[c], q))
        box_rec(q, c);
    if (box_overlaps(&q->t->nodes[c + 1], q))
        box_rec(q, c + 1);
}

size_t gk_kdtree_box(const gk_kdtree *t, double cx, double cy, double hx, double hy, int *idx,
                     double *d2, size_t cap)
{
    if (!t || t->n == 0 || !(hx >= 0.0) || !(hy >= 0.0))
        return 0;
    range_q q = {t, cx, cy, 0, hx, hy, idx, d2, cap, 0};
    if (box_overlaps(&t->nodes[0], &q))
        box_rec(&q, 0);
    return q.n;
}

/* ---- k nearest --------------------------------------------------------- */

typedef struct {
    const gk_kdtree *t;
    double cx, cy;
    int k, n;
    int *idx;
    double *d2;
    double bound; /* prune boxes farther than this */
    double r2max;
    int quad; /* -1, or the quadrant (dx >= 0) | (dy >= 0) << 1 [| GK_KD_CLOSED] */
    int (*keep)(const void *arg, double dx, double dy); /* NULL, or only where true */
    const void *keep_arg;
} knn_q;

/* Can the node's box hold points of q's quadrant? (dx >= 0 is x >= cx.) */
static inline int box_in_quad(const kd_node *nd, const knn_q *q)
{
    if (q->quad < 0)
        return 1;
    const int closed = q->quad & GK_KD_CLOSED; /* dx < 0 side: x <= cx, else x < cx */
    int xs = (q->quad & 1) ? nd->xmax >= q->cx : closed ? nd->xmin <= q->cx : nd->xmin < q->cx;
    int ys = (q->quad & 2) ? nd->ymax >= q->cy : closed ? nd->ymin <= q->cy : nd->ymin < q->cy;
    return xs && ys;
}

/* (da, ia) before (db, ib)? */
static inline int before(double da, int ia, double db, int ib)
{
    return da < db || (da == db && ia < ib);
}

/* Large k: max-heap on (d2, idx). */
static inline void heap_sift_down(double *d2, int *idx, int n, int i)
{
    double d = d2[i];
    int id = idx[i];
    for (;;) {
        int c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && before(d2[c], idx[c], d2[c + 1], idx[c + 1]))
            c++;
        if (!before(d, id, d2[c], idx[c]))
            break;
        d2[i] = d2[c];
        idx[i] = idx[c];
        i = c;
    }
    d2[i] = d;
    idx[i] = id;
}

static inline void knn_insert_heap(knn_q *q, double d, int id)
{
    if (q->n < q->k) {
        int i = q->n++;
        while (i > 0) {
            int p = (i - 1) / 2;
            if (!before(q->d2[p], q->idx[p], d, id))
                break;
            q->d2[i] = q->d2[p];
            q->idx[i] = q->idx[p];
            i = p;
        }
        q->d2[i] = d;
        q->idx[i] = id;
    } else {
        q->d2[0] = d;
        q->idx[0] = id;
        heap_sift_down(q->d2, q->idx, q->n, 0);
    }
    if (q->n == q->k)
        q->bound = q->d2[0];
}

/* Large k, recursive; the heap keeps the worst at the root. */
static void knn_rec(knn_q *q, int ni)
{
    const kd_node *nd = &q->t->nodes[ni];
    if (nd->left < 0) {
        const double *x = q->t->x, *y = q->t->y;
        const int *oi = q->t->idx;
        for (int i = nd->lo; i < nd->hi; i++) {
            double dx = x[i] - q->cx, dy = y[i] - q->cy;
            double d = dx * dx + dy * dy;
            if (d > q->bound)
                continue;
            if (q->quad >= 0 && !(q->quad & GK_KD_CLOSED) &&
                ((dx >= 0.0) | ((dy >= 0.0) << 1)) != q->quad)
                continue;
            if (q->keep && !q->keep(q->keep_arg, dx, dy))
                continue;
            int id = oi[i];
            if (q->n == q->k && !before(d, id, q->d2[0], q->idx[0]))
                continue;
            if (held_out(q->t, id))
                continue;
            knn_insert_heap(q, d, id);
        }
        return;
    }
    int c = nd->left;
    double b0 = box_d2(&q->t->nodes[c], q->cx, q->cy);
    double b1 = box_d2(&q->t->nodes[c + 1], q->cx, q->cy);
    int ok0 = box_in_quad(&q->t->nodes[c], q), ok1 = box_in_quad(&q->t->nodes[c + 1], q);
    int first = c, second = c + 1;
    if (b1 < b0) { /* nearer child first: the bound shrinks sooner */
        double tb = b0;
        b0 = b1;
        b1 = tb;
        int to = ok0;
        ok0 = ok1;
        ok1 = to;
        first = c + 1;
        second = c;
    }
    if (ok0 && b0 <= q->bound)
        knn_rec(q, first);
    if (ok1 && b1 <= q->bound) /* bound may have shrunk meanwhile */
        knn_rec(q, second);
}

/* Inserts (d, id) into the sorted answer idx/d2[0..*n) of at most k. */
static inline void knn_small_insert(double d, int id, int k, int *n, double *bound,
                                    int *restrict idx, double *restrict d2)
{
    if (d > *bound)
        return;
    int j;
    if (*n < k) {
        j = (*n)++;
    } else {
        if (d == *bound && id > idx[k - 1])
            return;
        j = k - 1;
    }
    /* shift on distance alone (one predictable condition), then settle the
     * rare ties by index */
    while (j > 0 && d2[j - 1] > d) {
        d2[j] = d2[j - 1];
        idx[j] = idx[j - 1];
        j--;
    }
    while (j > 0 && d2[j - 1] == d && idx[j - 1] > id) {
        d2[j] = d2[j - 1];
        idx[j] = idx[j - 1];
        j--;
    }
    d2[j] = d;
    idx[j] = id;
    if (*n == k)
        *bound = d2[k - 1];
}

/* Small k, the hot path: iterative, state in locals, the answer kept sorted
 * in idx/d2 by insertion (the worst is the last). */
static int knn_small(const gk_kdtree *t, double cx, double cy, int k, double r2max,
                     int *restrict idx, double *restrict d2)
{
    const kd_node *nodes = t->nodes;
    const double *restrict x = t->x, *restrict y = t->y;
    const int *restrict oi = t->idx;
    int stack[KD_STACK];
    double stackd[KD_STACK];
    int sp = 0, n = 0, ni = 0;
    double bound = r2max;
    if (box_d2(&nodes[0], cx, cy) > bound)
        return 0;
    for (;;) {
        const kd_node *nd = &nodes[ni];
        if (nd->left >= 0) {
            int c = nd->left;
            double b0 = box_d2(&nodes[c], cx, cy), b1 = box_d2(&nodes[c + 1], cx, cy);
            int near = c, far = c + 1;
            if (b1 < b0) {
                double tb = b0;
                b0 = b1;
                b1 = tb;
                near = c + 1;
                far = c;
            }
            if (b1 <= bound) {
                stack[sp] = far;
                stackd[sp] = b1;
                sp++;
            }
            if (b0 <= bound) {
                ni = near;
                continue;
            }
        } else {
            /* distances of the whole bucket first (vectorisable), then only
             * the few within the bound are looked at: fewer mispredictions */
            int lo = nd->lo, cnt = nd->hi - nd->lo;
            double dd[KD_LEAF];
            if (cnt > KD_LEAF) { /* a bucket of coincident points */
                for (int i = lo; i < nd->hi; i++) {
                    double dx = x[i] - cx, dy = y[i] - cy;
                    if (!held_out(t, oi[i]))
                        knn_small_insert(dx * dx + dy * dy, oi[i], k, &n, &bound, idx, d2);
                }
            } else {
                unsigned mask = 0;
                for (int i = 0; i < cnt; i++) {
                    double dx = x[lo + i] - cx, dy = y[lo + i] - cy;
                    dd[i] = dx * dx + dy * dy;
                }
                for (int i = 0; i < cnt; i++)
                    mask |= (unsigned)(dd[i] <= bound) << i;
                while (mask) {
                    int i = __builtin_ctz(mask);
                    mask &= mask - 1;
                    if (!held_out(t, oi[lo + i]))
                        knn_small_insert(dd[i], oi[lo + i], k, &n, &bound, idx, d2);
                }
            }
        }
        /* next pending subtree still within the bound */
        for (;;) {
            if (sp == 0)
                return n;
            sp--;
            if (stackd[sp] <= bound) {
                ni = stack[sp];
                break;
            }
        }
    }
}

int gk_kdtree_knn(const gk_kdtree *t, double cx, double cy, int k, double r2max, int *idx,
                  double *d2)
{
    if (!t || t->n == 0 || k <= 0 || !(r2max >= 0.0))
        return 0;
    if (k <= KD_SMALL_K)
        return knn_small(t, cx, cy, k, r2max, idx, d2);
    return gk_kdtree_knn_quadrant(t, cx, cy, -1, NULL, NULL, k, r2max, idx, d2);
}

int gk_kdtree_knn_quadrant(const gk_kdtree *t, double cx, double cy, int quad,
                           int (*keep)(const void *arg, double dx, double dy), const void *keep_arg,
                           int k, double r2max, int *idx, double *d2)
{
    if (!t || t->n == 0 || k <= 0 || !(r2max >= 0.0))
        return 0;
    knn_q q = {t, cx, cy, k, 0, idx, d2, r2max, r2max, quad, keep, keep_arg};
    if (box_in_quad(&t->nodes[0], &q) && box_d2(&t->nodes[0], cx, cy) <= r2max)
        knn_rec(&q, 0);
    /* heap sort: ascending by (d2, idx) */
    for (int m = q.n - 1; m > 0; m--) {
        double td = d2[0];
        int ti = idx[0];
        d2[0] = d2[m];
        idx[0] = idx[m];
        d2[m] = td;
        idx[m] = ti;
        heap_sift_down(d2, idx, m, 0);
    }
    return q.n;
}

/* ---- nearest ------------------------------------------------------------ */

typedef struct {
    const gk_kdtree *t;
    double cx, cy;
    double best; /* squared distance of the best so far, or r2max */
    int besti;   /* original index, -1 before any */
} nn_q;

static void nn_rec(nn_q *q, int ni)
{
    const kd_node *nd = &q->t->nodes[ni];
    if (nd->left < 0) {
        const double *x = q->t->x, *y = q->t->y;
        const int *oi = q->t->idx;
        for (int i = nd->lo; i < nd->hi; i++) {
            double dx = x[i] - q->cx, dy = y[i] - q->cy;
            double d = dx * dx + dy * dy;
            /* ties go to the point last in input order */
            if ((d < q->best || (d == q->best && oi[i] > q->besti)) && !held_out(q->t, oi[i])) {
                q->best = d;
                q->besti = oi[i];
            }
        }
        return;
    }
    int c = nd->left;
    double b0 = box_d2(&q->t->nodes[c], q->cx, q->cy);
    double b1 = box_d2(&q->t->nodes[c + 1], q->cx, q->cy);
    int first = c, second = c + 1;
    if (b1 < b0) {
        double tb = b0;
        b0 = b1;
        b1 = tb;
        first = c + 1;
        second = c;
    }
    if (b0 <= q->best)
        nn_rec(q, first);
    if (b1 <= q->best)
        nn_rec(q, second);
}

int gk_kdtree_nearest(const gk_kdtree *t, double cx, double cy, double r2max, double *d2)
{
    if (!t || t->n == 0 || !(r2max >= 0.0))
        return -1;
    nn_q q = {t, cx, cy, r2max, -1};
    if (box_d2(&t->nodes[0], cx, cy) <= r2max)
        nn_rec(&q, 0);
    if (q.besti >= 0 && d2)
        *d2 = q.best;
    return q.besti;
}
