/* SPDX-License-Identifier: MIT */
/* test_gpu_variogram.c - the all-pairs sample variogram on the GPU against
 * the CPU (part of test_gpu). */
#include "gpu_harness.h"

#include "core/device.h"
#include "gridkit_geostat.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The all-pairs variogram: np exactly, gamma within 1e-9, dist within 1e-7. */
static void compare_variogram(const dataset *d, int nlags, int ndir, int cressie, double bw)
{
    gk_context *cc = gk_context_new(), *gc = gk_context_new();
    gk_context_set_device(cc, "cpu");
    gk_context_set_device(gc, "cuda");
    gk_vgm_options o;
    memset(&o, 0, sizeof o);
    o.nlags = nlags;
    o.ndir = ndir;
    o.estimator = cressie ? GK_VGM_CRESSIE : GK_VGM_MATHERON;
    o.bandwidth = bw;
    for (int a = 0; a < ndir; a++)
        o.azimuth[a] = 45.0 * a;
    gk_vgm a, b;
    int ra = gk_variogram(cc, d->pts, &o, &a), rb = gk_variogram(gc, d->pts, &o, &b);
    CHECKF(ra == GK_OK && rb == GK_OK, "variogram: %s / %s", gk_errmsg(cc), gk_errmsg(gc));
    if (ra == GK_OK && rb == GK_OK) {
        int bad = a.ndir != b.ndir || a.nlags != b.nlags;
        double eg = 0, ed = 0;
        for (int k = 0; !bad && k < a.ndir * a.nlags; k++) {
            if (a.np[k] != b.np[k])
                bad++;
            if (a.np[k] > 0) {
                eg = fmax(eg, fabs(a.gamma[k] - b.gamma[k]) / fabs(a.gamma[k]));
                ed = fmax(ed, fabs(a.dist[k] - b.dist[k]) / fabs(a.dist[k]));
            }
        }
        if (eg > 1e-9 || ed > 1e-7)
            bad++;
        printf("%-4s variogram %s %d lags %d dir%s bw %g on %-24s np %s, gamma %.2e, dist %.2e\n",
               bad ? "FAIL" : "ok", d->name, nlags, ndir, cressie ? " cressie" : "", bw,
               gk_device_last_variogram_device(), bad ? "DIFFER" : "equal", eg, ed);
        CHECKF(!strncmp(gk_device_last_variogram_device(), "cuda", 4), "variogram ran on %s",
               gk_device_last_variogram_device());
        if (bad)
            failures++;
        gk_vgm_free(&a);
        gk_vgm_free(&b);
    }
    gk_context_free(cc);
    gk_context_free(gc);
}

void test_variograms(const dataset *u, const dataset *l)
{
    const struct {
        const dataset *d;
        int nlags, ndir, cressie;
        double bw;
    } c[] = {
        {u, 20, 0, 0, 0},
        /* wide classes: tile pairs within 1-3 classes (the omnidirectional
         * kernel's specialised variants, which 1 M points mostly take) */
        {u, 5, 0, 0, 0},
        {u, 3, 0, 1, 0},
        {u, 15, 4, 0, 0},
        {u, 12, 2, 1, 300},
        {l, 10, 0, 0, 0},
        {l, 10, 4, 0, 0},
    };
    for (size_t i = 0; i < NCASES(c); i++)
        compare_variogram(c[i].d, c[i].nlags, c[i].ndir, c[i].cressie, c[i].bw);
}
