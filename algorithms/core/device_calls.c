/* SPDX-License-Identifier: MIT */
/*
 * device_calls.c - the GPU's one-shot calls beside the tile engine's jobs:
 * the all-pairs variogram, the ridges' evolve and walkers, surface's sweeps. Each asks the
 * context's device (device.c), runs once on the module, and leaves the CPU
 * to it when the GPU cannot.
 */
#include "device.h"
#include "gpu_abi.h"

#include <stdio.h>

/* ---- the experimental variogram ------------------------------------------- */

static double last_vgm_ms = -1.0; /* benchmarks only */
/* Where the last variogram ran; kept apart from the context's device name,
 * which describes its gridding job (model=auto runs a variogram inside it). */
static _Thread_local char vgm_dev[700] = "cpu";

int gk_device_variogram(gk_context *ctx, const gk_gpu_vgm *v, double *np, double *sd, double *sg)
{
    int code;
    if (gk_device_requested(ctx, &code))
        return -1;
    snprintf(vgm_dev, sizeof vgm_dev, "cpu");
    if (code == GK_DEV_CPU)
        return 0;
    int explicit_gpu = code >= GK_DEV_CUDA;
    int dev = code > GK_DEV_CUDA ? code - GK_DEV_CUDA - 1 : 0;
    /* auto: small jobs stay on the CPU (the GPU's set-up costs more) */
    if (!explicit_gpu && v->n < 20000) {
        snprintf(vgm_dev, sizeof vgm_dev,
                 "cpu (variogram: %zu points, the CPU is quicker below 20000)", v->n);
        return 0;
    }
    char name[200], why[600];
    if (gk_device_probe(dev, name, sizeof name, why, sizeof why)) {
        if (explicit_gpu)
            return gk_error(ctx, GK_ERR_UNSUPPORTED, "cuda:%d: no usable GPU: %s", dev, why), -1;
        snprintf(vgm_dev, sizeof vgm_dev, "cpu (no usable GPU: %s)", why);
        return 0;
    }
    char err[512] = "";
    double ms = 0;
    if (gk_device_module()->variogram(dev, v, np, sd, sg, &ms, err, sizeof err)) {
        snprintf(vgm_dev, sizeof vgm_dev, "cpu (variogram on GPU %s: %s)", name, err);
        return 0;
    }
    snprintf(vgm_dev, sizeof vgm_dev, "cuda:%d (%s)", dev, name);
    last_vgm_ms = ms;
    return 1;
}

double gk_device_last_variogram_ms(void) { return last_vgm_ms; }

const char *gk_device_last_variogram_device(void) { return vgm_dev; }

/* ---- ridges: one-shot calls (curve's evolve, density's mean shift) -------- */

/* The context's GPU for a ridge call: its index, or -1 for the CPU (reason
 * in the context's device name), or -2 with the error in ctx (a GPU asked for by name and
 * not usable). Under auto, work below min_work stays on the CPU. */
static int ridge_device(gk_context *ctx, double work, double min_work, const char *what, char *name,
                        size_t name_cap)
{
    int code;
    if (gk_device_requested(ctx, &code))
        return -2;
    snprintf(ctx->device_name, sizeof ctx->device_name, "cpu");
    if (code == GK_DEV_CPU)
        return -1;
    int explicit_gpu = code >= GK_DEV_CUDA;
    int dev = code > GK_DEV_CUDA ? code - GK_DEV_CUDA - 1 : 0;
    if (!explicit_gpu && work < min_work) {
        snprintf(ctx->device_name, sizeof ctx->device_name, "cpu (%s: small enough for the CPU)",
                 what);
        return -1;
    }
    char why[600];
    if (gk_device_probe(dev, name, name_cap, why, sizeof why)) {
        if (explicit_gpu)
            return gk_error(ctx, GK_ERR_UNSUPPORTED, "cuda:%d: no usable GPU: %s", dev, why), -2;
        snprintf(ctx->device_name, sizeof ctx->device_name, "cpu (no usable GPU: %s)", why);
        return -1;
    }
    return dev;
}

static int ridge_result(gk_context *ctx, int rc, int dev, const char *name, const char *what,
                        const char *err)
{
    if (rc) {
        /* a GPU that failed mid-way: the CPU runs it (the same answer) */
        snprintf(ctx->device_name, sizeof ctx->device_name, "cpu (%s on GPU %s: %s)", what, name,
                 err);
        return 0;
    }
    snprintf(ctx->device_name, sizeof ctx->device_name, "cuda:%d (%s)", dev, name);
    return 1;
}

int gk_device_curve_evolve(gk_context *ctx, gk_gpu_evolve *e)
{
    char name[200] = "";
    /* auto: below 100,000 samples the cores finish before the GPU has started */
    int dev = ridge_device(ctx, (double)e->n, 1e5, "curve", name, sizeof name);
    if (dev < 0)
        return dev == -2 ? -1 : 0;
    if (!gk_device_module()->curve_evolve) {
        snprintf(ctx->device_name, sizeof ctx->device_name,
                 "cpu (the GPU module has no curve kernel)");
        return 0;
    }
    char err[512] = "";
    return ridge_result(ctx, gk_device_module()->curve_evolve(dev, e, err, sizeof err), dev, name,
                        "curve", err);
}

int gk_device_scms(gk_context *ctx, gk_gpu_scms *s)
{
    char name[200] = "";
    /* auto: walkers times samples, a rough measure of the kernel sums */
    int dev = ridge_device(ctx, (double)s->n_walkers * s->n, 1e8, "density", name, sizeof name);
    if (dev < 0)
        return dev == -2 ? -1 : 0;
    if (!gk_device_module()->scms) {
        snprintf(ctx->device_name, sizeof ctx->device_name,
                 "cpu (the GPU module has no density kernel)");
        return 0;
    }
    char err[512] = "";
    return ridge_result(ctx, gk_device_module()->scms(dev, s, err, sizeof err), dev, name,
                        "density", err);
}

/* ---- simulation: the weights of path positions ------------------------------ */

int gk_device_sim_weights(gk_context *ctx, gk_gpu_sim *s, int exact)
{
    char name[200] = "";
    int code;
    if (gk_device_requested(ctx, &code))
        return -1;
    /* auto takes the GPU only where its weights are the CPU's bits */
    if (!exact && code < GK_DEV_CUDA) {
        snprintf(ctx->device_name, sizeof ctx->device_name,
                 "cpu (simulation: the GPU's exp is not the C library's; --device cuda to use "
                 "it)");
        return 0;
    }
    int dev = ridge_device(ctx, (double)(s->p1 - s->p0), 262144.0, "simulation", name, sizeof name);
    if (dev < 0)
        return dev == -2 ? -1 : 0;
    if (!gk_device_module()->sim_weights) {
        snprintf(ctx->device_name, sizeof ctx->device_name,
                 "cpu (the GPU module has no simulation kernel)");
        return 0;
    }
    char err[512] = "";
    return ridge_result(ctx, gk_device_module()->sim_weights(dev, s, err, sizeof err), dev, name,
                        "simulation", err);
}

/* ---- rst: the values of v.surf.rst's segments ------------------------------- */

int gk_device_rst_sums(gk_context *ctx, gk_gpu_rst *s, double terms)
{
    char name[200] = "";
    int dev = ridge_device(ctx, terms, 1e7, "rst", name, sizeof name);
    if (dev < 0)
        return dev == -2 ? -1 : 0;
    if (!gk_device_module()->rst_sums) {
        snprintf(ctx->device_name, sizeof ctx->device_name,
                 "cpu (the GPU module has no rst kernel)");
        return 0;
    }
    char err[512] = "";
    return ridge_result(ctx, gk_device_module()->rst_sums(dev, s, err, sizeof err), dev, name,
                        "rst", err);
}

/* ---- surface: one grid's sweeps ------------------------------------------- */

int gk_device_surface(gk_context *ctx, gk_gpu_surface *s)
{
    char name[200] = "";
    /* auto: a small grid's sweeps cost less than their launches */
    int dev = ridge_device(ctx, (double)s->nx * s->ny, 262144.0, "surface", name, sizeof name);
    if (dev < 0)
        return dev == -2 ? -1 : 0;
    if (!gk_device_module()->surface) {
        snprintf(ctx->device_name, sizeof ctx->device_name,
                 "cpu (the GPU module has no surface kernel)");
        return 0;
    }
    char err[512] = "";
    return ridge_result(ctx, gk_device_module()->surface(dev, s, err, sizeof err), dev, name,
                        "surface", err);
}
