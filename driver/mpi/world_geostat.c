/* SPDX-License-Identifier: MIT */
/*
 * world_geostat.c - variograms and cross-validation shared among MPI ranks
 * (world_geostat.h). The ranks agree after each step (gk_world_agree), so
 * one that fails stops them all with its message.
 */
#include "mpi/world_geostat.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int gk_world_variogram(gk_context *ctx, const gk_world *w, const gk_points *pts,
                       const gk_vgm_options *opt, gk_progress_fn progress, void *progress_user,
                       gk_vgm *out)
{
    memset(out, 0, sizeof *out);
    gk_vgm_blocks b = {0};
    if (!w) {
        int rc =
            gk_variogram_blocks_ex(ctx, pts, opt, 0, 1, GK_VGM_ANY, progress, progress_user, &b);
        if (!rc)
            rc = gk_variogram_merge(ctx, pts, opt, &b, out);
        gk_vgm_blocks_free(&b);
        return rc;
    }
    const int rank = gk_world_rank(w), ranks = gk_world_size(w);
    if (rank > 0) /* rank 0 alone reports, on its share */
        progress = NULL;
    /* rank 0's GPU first, as one process would use it; then the CPU, shared */
    int rc = rank == 0 ? gk_variogram_blocks_ex(ctx, pts, opt, 0, ranks, GK_VGM_GPU, progress,
                                                progress_user, &b)
                       : GK_OK;
    rc = gk_world_agree(w, ctx, rc);
    int32_t on_gpu = !rc && b.on_gpu;
    if (!rc && gk_world_bcast(w, &on_gpu, sizeof on_gpu, 0))
        gk_world_abort(w, 1);
    if (!rc && !on_gpu) {
        gk_vgm_blocks_free(&b);
        rc = gk_variogram_blocks_ex(ctx, pts, opt, rank, ranks, GK_VGM_CPU, progress, progress_user,
                                    &b);
        rc = gk_world_agree(w, ctx, rc);
        if (!rc && rank > 0 && gk_world_send(w, 0, GK_TAG_PART, b.data, b.bytes))
            gk_world_abort(w, 1);
        void *got = rank == 0 && !rc ? malloc(b.bytes ? b.bytes : 1) : NULL;
        if (rank == 0 && !rc && !got)
            gk_world_abort(w, 1); /* the others' blocks are on their way */
        for (int r = 1; rank == 0 && !rc && r < ranks; r++) {
            if (gk_world_recv(w, r, GK_TAG_PART, got, b.bytes))
                gk_world_abort(w, 1);
            gk_vgm_blocks_add(&b, got, r, ranks);
        }
        free(got);
    }
    if (!rc && rank == 0)
        rc = gk_variogram_merge(ctx, pts, opt, &b, out);
    gk_vgm_blocks_free(&b);
    return rc;
}

int gk_world_crossval(gk_context *ctx, const gk_world *w, const gk_points *pts,
                      const gk_algorithm *alg, int nfold, unsigned seed, const gk_cv_drift *drift,
                      gk_progress_fn progress, void *progress_user, gk_cv_result *res)
{
    if (!w) /* gk_crossval's part 0 of 1, summarised */
        return gk_crossval_part_drift(ctx, pts, alg, nfold, seed, 0, 1, drift, progress,
                                      progress_user, res);
    const int rank = gk_world_rank(w), ranks = gk_world_size(w);
    /* rank 0 alone reports, on its share */
    int rc = gk_crossval_part_drift(ctx, pts, alg, nfold, seed, rank, ranks, drift,
                                    rank == 0 ? progress : NULL, progress_user, res);
    rc = gk_world_agree(w, ctx, rc);
    if (rc) {
        gk_cv_result_free(res);
        return rc;
    }
    const size_t n = res->n, bytes = n * sizeof(double);
    if (rank > 0) {
        if (gk_world_send(w, 0, GK_TAG_PART, res->predicted, bytes) ||
            gk_world_send(w, 0, GK_TAG_PART, res->variance, bytes))
            gk_world_abort(w, 1);
        gk_cv_result_free(res);
        return GK_OK;
    }
    double *p = malloc(bytes ? bytes : 1), *v = malloc(bytes ? bytes : 1);
    if (!p || !v)
        gk_world_abort(w, 1); /* the others' predictions are on their way */
    for (int r = 1; r < ranks; r++) {
        if (gk_world_recv(w, r, GK_TAG_PART, p, bytes) ||
            gk_world_recv(w, r, GK_TAG_PART, v, bytes))
            gk_world_abort(w, 1);
        /* rank r's folds: (fold - 1) % ranks == r */
        for (size_t i = 0; i < n; i++)
            if ((res->fold[i] - 1) % ranks == r) {
                res->predicted[i] = p[i];
                res->variance[i] = v[i];
                gk_cv_fill(res, i);
            }
    }
    free(p);
    free(v);
    gk_cv_summarize(res);
    return GK_OK;
}
