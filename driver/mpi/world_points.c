/* SPDX-License-Identifier: MIT */
/*
 * world_points.c - the points on every rank: each reads them, or rank 0
 * reads and broadcasts them (world_points.h).
 *
 * Broadcasting is one reader instead of N: a shared file system serves the input once,
 * SQLite-based sources (GeoPackage) are not opened by hundreds of processes
 * at once, and the input need only be where rank 0 runs. The points travel
 * as one buffer: per layer its name, counts and x, y, z; then the SRS.
 */
#include "mpi/world_points.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BCAST_CHUNK ((size_t)1 << 30) /* MPI counts are ints */

typedef struct {
    unsigned char *p;
    size_t n, cap;
} blob;

static int put(blob *b, const void *src, size_t n)
{
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + n)
            cap *= 2;
        unsigned char *q = realloc(b->p, cap);
        if (!q)
            return -1;
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->n, src, n);
    b->n += n;
    return 0;
}

static int put_u64(blob *b, uint64_t v) { return put(b, &v, sizeof v); }

static int put_str(blob *b, const char *s)
{
    uint64_t n = s ? strlen(s) + 1 : 0; /* 0: NULL */
    return put_u64(b, n) || put(b, s, n);
}

static int pack(const gk_source_points *sp, blob *b)
{
    if (put_u64(b, (uint64_t)sp->n_layers) || put_str(b, sp->srs_wkt))
        return -1;
    for (int l = 0; l < sp->n_layers; l++) {
        const gk_layer_points *lp = &sp->layers[l];
        size_t n = gk_points_count(lp->pts);
        if (put_str(b, lp->name) || put_u64(b, n) || put_u64(b, lp->n_features) ||
            put_u64(b, lp->n_skipped_z) || put_u64(b, lp->n_clipped) ||
            put(b, gk_points_x(lp->pts), n * sizeof(double)) ||
            put(b, gk_points_y(lp->pts), n * sizeof(double)) ||
            put(b, gk_points_z(lp->pts), n * sizeof(double)))
            return -1;
    }
    return 0;
}

typedef struct {
    const unsigned char *p;
    size_t n, at;
} reader;

static int get(reader *r, void *dst, size_t n)
{
    if (r->n - r->at < n)
        return -1;
    memcpy(dst, r->p + r->at, n);
    r->at += n;
    return 0;
}

static int get_u64(reader *r, uint64_t *v) { return get(r, v, sizeof *v); }

/* A string of the blob, malloc'd as read_points.c's (NULL stays NULL). */
static int get_str(reader *r, char **s)
{
    uint64_t n;
    *s = NULL;
    if (get_u64(r, &n) || r->n - r->at < n || (n && r->p[r->at + n - 1] != 0))
        return -1;
    if (n) {
        if (!(*s = strdup((const char *)r->p + r->at)))
            return -1;
        r->at += n;
    }
    return 0;
}

static int unpack(gk_context *ctx, const blob *b, gk_source_points *sp)
{
    reader r = {b->p, b->n, 0};
    uint64_t nl;
    if (get_u64(&r, &nl) || nl > 1024 || get_str(&r, &sp->srs_wkt))
        return -1;
    if (!(sp->layers = calloc(nl ? nl : 1, sizeof *sp->layers)))
        return -1;
    for (uint64_t l = 0; l < nl; l++) {
        gk_layer_points *lp = &sp->layers[l];
        uint64_t n, nf, ns, nc;
        sp->n_layers = (int)l + 1;
        double *x, *y, *z;
        if (get_str(&r, &lp->name) || get_u64(&r, &n) || get_u64(&r, &nf) || get_u64(&r, &ns) ||
            get_u64(&r, &nc) || n > (r.n - r.at) / 24 || !(lp->pts = gk_points_new(ctx)) ||
            gk_points_extend(lp->pts, n, &x, &y, &z) || get(&r, x, n * 8) || get(&r, y, n * 8) ||
            get(&r, z, n * 8))
            return -1;
        lp->n_features = nf;
        lp->n_skipped_z = ns;
        lp->n_clipped = nc;
        lp->read_by = "broadcast from rank 0";
    }
    return r.at == r.n ? 0 : -1;
}

static int bcast_all(const gk_world *w, void *buf, size_t n)
{
    for (size_t at = 0; at < n; at += BCAST_CHUNK)
        if (gk_world_bcast(w, (unsigned char *)buf + at,
                           n - at < BCAST_CHUNK ? n - at : BCAST_CHUNK, 0))
            return -1;
    return 0;
}

int gk_world_share_points(const gk_world *w, gk_context *ctx, gk_points_reader read, void *user,
                          gk_source_points *sp)
{
    memset(sp, 0, sizeof *sp);
    /* Measured on one host (docs/benchmarks.md): N ranks parsing the file
     * at once beat one parsing it and broadcasting, so there every rank
     * reads; across hosts one read from the shared file system serves all */
    const char *how = getenv("GRIDKIT_MPI_READ");
    if (w && how && *how && strcmp(how, "each") && strcmp(how, "bcast")) /* same on every rank */
        return gk_world_agree(w, ctx,
                              gk_error(ctx, GK_ERR_ARG,
                                       "GRIDKIT_MPI_READ=%s: use each (every rank reads the "
                                       "points) or bcast (rank 0 reads and broadcasts them)",
                                       how));
    int each = how && *how ? !strcmp(how, "each") : gk_world_local_size(w) == gk_world_size(w);
    if (!w || each) { /* every rank reads for itself */
        int rc = gk_world_agree(w, ctx, read(ctx, user, sp));
        if (rc)
            gk_source_points_free(sp);
        return rc;
    }
    const int rank = gk_world_rank(w);
    blob b = {0};
    int rc = GK_OK;
    if (rank == 0 && !(rc = read(ctx, user, sp)) && pack(sp, &b))
        rc = gk_error(ctx, GK_ERR_NOMEM, "out of memory packing the points to broadcast");
    if ((rc = gk_world_agree(w, ctx, rc))) {
        if (rank == 0)
            gk_source_points_free(sp);
        free(b.p);
        return rc;
    }
    /* From here every rank must take part in both broadcasts: a rank that
     * cannot (no memory) stops the job (a transport failure). */
    uint64_t len = b.n;
    if (gk_world_bcast(w, &len, sizeof len, 0))
        gk_world_abort(w, 1);
    if (rank != 0 && !(b.p = malloc(len ? len : 1)))
        gk_world_abort(w, 1);
    b.n = len;
    if (bcast_all(w, b.p, len))
        gk_world_abort(w, 1);
    if (rank != 0 && unpack(ctx, &b, sp))
        rc = gk_error(ctx, GK_ERR_NOMEM, "the points broadcast by rank 0 could not be taken in");
    free(b.p);
    if ((rc = gk_world_agree(w, ctx, rc)))
        gk_source_points_free(sp);
    return rc;
}
