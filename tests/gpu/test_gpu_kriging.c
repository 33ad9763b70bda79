/* SPDX-License-Identifier: MIT */
/* test_gpu_kriging.c - local kriging on the GPU against the CPU: estimate
 * and variance, every variogram model, quadrant selection, every point
 * within a radius, quadratic and external drift, blocks (part of test_gpu;
 * k above 64 is in test_gpu_search.c, global kriging in test_gpu_global.c). */
#include "gpu_harness.h"

#include <stdio.h>
#include <stdlib.h>

/* Kriging's estimate and variance on the first cases: each model, simple and
 * universal, anisotropy, k up to 64, a radius; the 32-lane solve, the fused
 * kernel forced, single precision, the lattice. */
void test_krige_basic(const dataset *u, const dataset *l)
{
    static const char *krige[] = {
        "kriging:model=Exp:psill=60:range=500:nugget=5:max_points=16",
        "kriging:model=Sph:psill=600:range=1500:max_points=32",
        "kriging:model=Gau:psill=600:range=900:nugget=2:max_points=8",
        "kriging:type=simple:mean=100:model=Exp:psill=600:range=800:nugget=5:max_points=12",
        "kriging:drift=linear:model=Exp:psill=60:range=700:nugget=5:max_points=20:radius=400:"
        "min_points=5",
        "kriging:model=Sph:psill=600:range=1200:nugget=1:anis_angle=30:anis_ratio=0.5:"
        "max_points=16",
        "kriging:model=Exp:psill=60:range=500:nugget=5:max_points=64",
        "kriging:model=Exp:psill=60:range=500:nugget=5:max_points=16:radius=120:min_points=4",
    };
    /* k = 24: the 32-lane solve with rows beyond the neighbours */
    static const char *k24 = "kriging:model=Exp:psill=60:range=500:nugget=5:max_points=24";
    static const char *lattice[] = {
        "kriging:model=Exp:psill=10:range=5:max_points=8",
        "kriging:model=Exp:psill=10:range=5:nugget=1:max_points=16",
        "kriging:type=simple:mean=0:model=Sph:psill=10:range=6:nugget=1:max_points=6:radius=1.2",
    };
    krige_each(krige, NCASES(krige), 0, u);
    compare_krige(k24, 0, u, 1);
    compare_krige(k24, 1, u, 1);
    /* the fused lane-group kernel (k > 32), forced for smaller k */
    setenv("GRIDKIT_GPU_KRIGE_MODE", "2", 1);
    const gpu_case fused[] = {{krige[0], u, 0}, {krige[3], u, 0}, {krige[4], u, 1}};
    krige_cases(fused, NCASES(fused));
    unsetenv("GRIDKIT_GPU_KRIGE_MODE");
    /* single: the first five (the second, Sph without nugget at k = 32, is
     * float's hardest case) */
    krige_each(krige, 5, 1, u);
    krige_each(lattice, NCASES(lattice), 0, l);
}

/* Kriging with max_points_per_quadrant (gstat's omax): the max_points nearest
 * filtered per quadrant, min_points counted before the filter. */
void test_quadrants(const dataset *u, const dataset *l)
{
    static const char *utm[] = {
        "kriging:model=Exp:psill=60:range=500:nugget=5:max_points=16:max_points_per_quadrant=4",
        "kriging:model=Exp:psill=60:range=500:nugget=5:max_points=24:max_points_per_quadrant=3:"
        "radius=300:min_points=10",
        "kriging:drift=linear:model=Exp:psill=60:range=700:nugget=5:max_points=32:"
        "max_points_per_quadrant=5",
        "kriging:type=simple:mean=100:model=Sph:psill=600:range=800:nugget=5:max_points=8:"
        "max_points_per_quadrant=1",
        "kriging:model=Mat:psill=60:range=300:kappa=1.5:nugget=5:max_points=20:"
        "max_points_per_quadrant=4",
        "kriging:model=Exp:psill=60:range=500:nugget=5:max_points=12:max_points_per_quadrant=40",
    };
    /* the lattice: points on the axes through the node (gstat's pinwheel), ties */
    static const char *lattice[] = {
        "kriging:model=Exp:psill=10:range=5:nugget=1:max_points=16:max_points_per_quadrant=2",
        "kriging:type=simple:mean=0:model=Sph:psill=10:range=6:nugget=1:max_points=12:"
        "max_points_per_quadrant=3:radius=2.5:min_points=6",
    };
    krige_each(utm, NCASES(utm), 0, u);
    compare_krige(utm[0], 1, u, 1);
    compare_krige(utm[2], 1, u, 1);
    krige_each(lattice, NCASES(lattice), 0, l);
    /* the two-phase kernels whatever GRIDKIT_GPU_KRIGE_MODE says */
    setenv("GRIDKIT_GPU_KRIGE_MODE", "2", 1);
    compare_krige(utm[0], 0, u, 1);
    unsetenv("GRIDKIT_GPU_KRIGE_MODE");
    /* beyond 32 points and every point within radius: the big kernels'
     * lists (gpu/kriging_big.cu), filtered */
    const gpu_case big[] = {
        {"kriging:model=Exp:psill=60:range=500:nugget=5:max_points=40:max_points_per_quadrant=4", u,
         0},
        {"kriging:model=Exp:psill=60:range=500:nugget=5:max_points=0:radius=150:"
         "max_points_per_quadrant=4",
         u, 0},
        {"kriging:model=Exp:psill=60:range=500:nugget=5:max_points=0:radius=300:"
         "max_points_per_quadrant=6:min_points=20",
         u, 1},
        {"kriging:model=Exp:psill=10:range=5:nugget=1:max_points=60:max_points_per_quadrant=9", l,
         0},
    };
    krige_cases(big, NCASES(big));
}

/* Kriging over every point within radius (max_points=0, gstat's maxdist
 * without nmax): the GPU's dense_k nearest where the window holds no more,
 * the CPU for the nodes whose window holds more. dense_k is 2048; at 64 here
 * (GRIDKIT_GPU_KRIGE_DENSE_K) so that both sides run: utm has ~14 points
 * within 150, ~56 within 300 (nodes on both sides of 64), ~100 within 400.
 * Each run is followed by its own check of where the nodes went, so these
 * stay one call at a time. */
void test_radius_kriging(const dataset *u, const dataset *l)
{
    const uint64_t nodes = (uint64_t)u->g.nx * u->g.ny;
    /* the default: every node of these on the GPU */
    compare_krige("kriging:model=Exp:psill=60:range=500:nugget=5:radius=300", 0, u, 1);
    CHECKF(last_dense == 0, "radius 300: %llu nodes on the CPU", (unsigned long long)last_dense);
    compare_krige("kriging:type=simple:mean=100:model=Sph:psill=600:range=800:nugget=5:radius=420",
                  0, u, 1);
    CHECKF(last_dense == 0, "radius 420: %llu nodes on the CPU", (unsigned long long)last_dense);
    /* max_points 17 to 32 and a radius that holds fewer at many nodes (~18 at
     * 170 m): the two-pass search's count is of the points it found */
    compare_krige("kriging:model=Exp:psill=60:range=500:nugget=5:max_points=24:radius=170", 0, u,
                  1);
    compare_krige("kriging:model=Exp:psill=60:range=500:nugget=5:max_points=32:radius=200", 1, u,
                  1);
    /* ~630 points a window (systems in panels), on a coarser grid */
    dataset uc = *u;
    uc.g.nx = 24;
    uc.g.ny = 20;
    compare_krige("kriging:model=Exp:psill=60:range=500:nugget=5:radius=1000", 0, &uc, 1);
    CHECKF(last_dense == 0, "radius 1000: %llu nodes on the CPU", (unsigned long long)last_dense);
    setenv("GRIDKIT_GPU_KRIGE_DENSE_K", "64", 1);
    compare_krige("kriging:model=Exp:psill=60:range=500:nugget=5:radius=150", 0, u, 1);
    CHECKF(last_dense == 0, "radius 150: %llu nodes on the CPU", (unsigned long long)last_dense);
    compare_krige("kriging:model=Exp:psill=60:range=500:nugget=5:radius=300:min_points=20", 0, u,
                  1);
    printf("radius 300: %llu of %llu nodes on the CPU\n", (unsigned long long)last_dense,
           (unsigned long long)nodes);
    CHECKF(last_dense > 0 && last_dense < nodes / 2, "radius 300: %llu of %llu nodes on the CPU",
           (unsigned long long)last_dense, (unsigned long long)nodes);
    compare_krige("kriging:model=Exp:psill=60:range=500:nugget=5:radius=300", 1, u, 1);
    compare_krige("kriging:drift=linear:model=Sph:psill=60:range=800:nugget=5:radius=320", 0, u, 1);
    compare_krige("kriging:model=Exp:psill=60:range=500:nugget=5:radius=400:min_points=70", 0, u,
                  1);
    /* ~73 points a window on average: most nodes on the CPU */
    compare_krige("kriging:type=simple:mean=100:model=Sph:psill=600:range=800:nugget=5:radius=340",
                  0, u, 1);
    CHECKF(last_dense > nodes / 4 && last_dense < nodes,
           "radius 340: %llu of %llu nodes on the CPU", (unsigned long long)last_dense,
           (unsigned long long)nodes);
    /* the lattice: exact distances on the circle; coincident points make
     * ~64-point systems singular, so a small radius */
    compare_krige("kriging:model=Exp:psill=10:range=5:nugget=1:radius=2", 0, l, 1);
    unsetenv("GRIDKIT_GPU_KRIGE_DENSE_K");
}

/* Every variogram model type (algorithms/geostat/vmodel_eval.h on both sides): alone,
 * anisotropic, nested, with each drift, k > 32, in double and single. */
void test_models(const dataset *u, const dataset *l)
{
    static const char *dbl[] = {
        "kriging:model=Mat:psill=60:range=300:kappa=1.5:nugget=5:max_points=16",
        "kriging:model=Mat:psill=60:range=200:kappa=0.3:max_points=12",
        "kriging:model=Mat:psill=60:range=150:kappa=7:nugget=1:max_points=16",
        "kriging:model=Ste:psill=60:range=600:kappa=2.5:nugget=2:max_points=16",
        "kriging:model=Ste:psill=60:range=400:kappa=0.5:max_points=24",
        "kriging:model=Exc:psill=60:range=500:kappa=1.5:nugget=5:max_points=16",
        "kriging:model=Exc:psill=60:range=500:kappa=0.6:max_points=16",
        "kriging:model=Cir:psill=600:range=1200:max_points=32",
        "kriging:model=Pen:psill=600:range=1500:nugget=1:max_points=24",
        "kriging:model=Lin:psill=600:range=2000:nugget=5:max_points=16",
        "kriging:model=Lin:psill=0.05:range=0:max_points=16",
        "kriging:model=Lin:psill=0.05:range=0:nugget=2:max_points=32",
        "kriging:model=Pow:psill=0.5:range=1.5:nugget=5:max_points=16",
        "kriging:model=Pow:psill=2:range=0.7:max_points=8",
        "kriging:model=Hol:psill=60:range=300:nugget=5:max_points=16",
        /* anisotropy */
        "kriging:model=Mat:psill=60:range=400:kappa=1.2:nugget=3:anis_angle=40:anis_ratio=0.4:"
        "max_points=16",
        "kriging:model=Cir:psill=600:range=1500:anis_angle=120:anis_ratio=0.3:max_points=20",
        /* nested */
        "kriging:model=Nug(5)+Sph(300,800)+Mat(200,400,2)@60/0.5:max_points=20",
        "kriging:model=Nug(2)+Exp(30,300)+Pow(0.2,1.2):max_points=16",
        "kriging:model=Pen(40,500)+Cir(20,2000)@30/0.6+Hol(5,150)+Exc(10,700,1.8):max_points=16",
        "kriging:model=Ste(50,300,1)+Lin(0.01,0):max_points=12",
        /* simple kriging, linear drift, k > 32 (the fused kernel) */
        "kriging:type=simple:mean=100:model=Cir:psill=600:range=800:nugget=5:max_points=12",
        "kriging:type=simple:mean=100:model=Mat:psill=600:range=300:kappa=0.8:max_points=16",
        "kriging:drift=linear:model=Ste:psill=60:range=700:kappa=0.8:nugget=5:max_points=20:"
        "radius=400:min_points=5",
        "kriging:drift=linear:model=Lin:psill=0.05:range=0:max_points=16",
        "kriging:model=Pen:psill=60:range=500:nugget=5:max_points=48",
        "kriging:model=Mat:psill=60:range=250:kappa=1.5:nugget=5:max_points=40:radius=600",
    };
    /* single: float solves (Cir, Pen, bounded Lin, Exc <= 1, Mat and Ste at
     * kappa 1/2) and those kept in double (smooth or unbounded) */
    static const char *sgl[] = {
        "kriging:model=Cir:psill=600:range=1200:max_points=32",
        "kriging:model=Pen:psill=600:range=1500:nugget=1:anis_angle=70:anis_ratio=0.5:"
        "max_points=16",
        "kriging:model=Lin:psill=600:range=2000:nugget=5:max_points=16",
        "kriging:model=Exc:psill=60:range=500:kappa=0.6:max_points=16",
        "kriging:model=Mat:psill=60:range=500:kappa=0.5:nugget=5:max_points=24",
        "kriging:type=simple:mean=100:model=Ste:psill=600:range=800:kappa=0.5:max_points=12",
        "kriging:drift=linear:model=Cir:psill=60:range=900:nugget=5:max_points=20",
        "kriging:model=Mat:psill=60:range=300:kappa=1.5:nugget=5:max_points=16",
        "kriging:model=Lin:psill=0.05:range=0:max_points=16",
        "kriging:model=Pow:psill=0.5:range=1.5:nugget=5:max_points=16",
        "kriging:model=Hol:psill=60:range=300:nugget=5:max_points=16",
        "kriging:model=Nug(5)+Sph(300,800)+Mat(200,400,2)@60/0.5:max_points=20",
        "kriging:model=Pen:psill=60:range=500:nugget=5:max_points=48",
    };
    /* the lattice: exact hits, ties, duplicates */
    static const char *lattice[] = {
        "kriging:model=Mat:psill=10:range=2:kappa=1.5:nugget=1:max_points=16",
        "kriging:model=Cir:psill=10:range=6:max_points=8",
        "kriging:model=Pow:psill=1:range=1:nugget=0.5:max_points=12",
    };
    krige_each(dbl, NCASES(dbl), 0, u);
    krige_each(sgl, NCASES(sgl), 1, u);
    /* the fused kernel forced for k <= 32 */
    setenv("GRIDKIT_GPU_KRIGE_MODE", "2", 1);
    const gpu_case fused[] = {{dbl[0], u, 0}, {dbl[19], u, 0}, {sgl[0], u, 1}};
    krige_cases(fused, NCASES(fused));
    unsetenv("GRIDKIT_GPU_KRIGE_MODE");
    krige_each(lattice, NCASES(lattice), 0, l);
}

/* Quadratic drift, block kriging and external drift (the extended local
 * kernels: the lane groups for k <= 32, the fused kernel above), with the
 * singular systems a quadratic drift meets (fewer points than terms,
 * collinear points, coincident points without nugget). */
void test_drift_block(const dataset *u, const dataset *l)
{
    static const char *quad = "kriging:drift=quadratic:model=Exp:psill=60:range=700:nugget=5:"
                              "max_points=16";
    /* radius 110: mostly 2 to 8 points, many fewer than the 6 terms. min_points 9:
     * with 6..8 points the system is all but square, an exact fit whose estimate
     * two correct solvers round apart by up to 1e-7 (H100, min_points 2: 8 values
     * up to 3e-8 apart); the singular cases are the lattice's below. */
    static const char *quad_sing = "kriging:drift=quadratic:model=Exp:psill=60:range=700:"
                                   "nugget=5:max_points=24:radius=110:min_points=9";
    static const char *blk = "kriging:model=Exp:psill=60:range=500:nugget=5:max_points=8:"
                             "block=50x50";
    static const char *ked = "kriging:drift_raster=a:model=Exp:psill=60:range=500:nugget=5:"
                             "max_points=16";
    const char *dbl[] = {
        quad,
        "kriging:drift=quadratic:model=Sph:psill=600:range=1500:nugget=1:max_points=32",
        quad_sing,
        "kriging:drift=quadratic:model=Gau:psill=600:range=900:nugget=2:max_points=12",
        "kriging:drift=quadratic:model=Sph:psill=600:range=1200:nugget=1:anis_angle=30:"
        "anis_ratio=0.5:max_points=20",
        "kriging:drift=quadratic:model=Exp:psill=60:range=500:nugget=5:max_points=40",
        blk,
        "kriging:type=simple:mean=100:model=Exp:psill=600:range=800:nugget=5:max_points=12:"
        "block=100x60",
        "kriging:drift=linear:model=Exp:psill=60:range=700:nugget=5:max_points=20:radius=400:"
        "min_points=5:block=80",
        "kriging:drift=quadratic:model=Sph:psill=600:range=1500:nugget=1:max_points=32:"
        "block=40x40",
        "kriging:model=Sph:psill=600:range=1200:nugget=1:anis_angle=30:anis_ratio=0.5:"
        "max_points=16:block=120x40",
        "kriging:model=Gau:psill=600:range=900:nugget=2:max_points=8:block=30",
        "kriging:model=Exp:psill=60:range=500:nugget=5:max_points=48:block=60",
        ked,
        "kriging:drift_raster=a:drift_raster=b:model=Sph:psill=600:range=1500:nugget=1:"
        "max_points=32",
        "kriging:drift=linear:drift_raster=a:model=Exp:psill=60:range=700:nugget=5:"
        "max_points=20",
        "kriging:drift=quadratic:drift_raster=a:drift_raster=b:drift_raster=c:drift_raster=d:"
        "model=Exp:psill=60:range=700:nugget=5:max_points=24",
        "kriging:drift_raster=a:model=Exp:psill=60:range=500:nugget=5:max_points=12:"
        "block=50x50",
        "kriging:drift_raster=a:drift_raster=b:model=Exp:psill=60:range=500:nugget=5:"
        "max_points=40",
        /* radius 90: fewer points than the 4 terms at many nodes (min_points 7:
         * as quad_sing, 6.7e-8 apart at min_points 1) */
        "kriging:drift=linear:drift_raster=a:model=Exp:psill=60:range=700:nugget=5:"
        "max_points=16:radius=90:min_points=7",
    };
    const char *sgl[] = {
        quad,
        "kriging:drift=quadratic:model=Sph:psill=600:range=1500:nugget=1:max_points=32",
        "kriging:drift=quadratic:model=Exp:psill=60:range=500:nugget=5:max_points=40",
        blk,
        "kriging:type=simple:mean=100:model=Exp:psill=600:range=800:nugget=5:max_points=12:"
        "block=100x60",
        "kriging:drift=linear:model=Exp:psill=60:range=700:nugget=5:max_points=20:radius=400:"
        "min_points=5:block=80",
        ked,
        "kriging:drift_raster=a:drift_raster=b:model=Sph:psill=600:range=1500:nugget=1:"
        "max_points=32",
    };
    static const char *lat[] = {
        "kriging:drift=quadratic:model=Exp:psill=10:range=5:nugget=1:max_points=12",
        /* within 1.2 of a node: 1 to 7 points, on two or three lines */
        "kriging:drift=quadratic:model=Exp:psill=10:range=5:nugget=1:max_points=16:radius=1.2",
        /* the duplicates without nugget: singular covariances */
        "kriging:drift=quadratic:model=Exp:psill=10:range=5:max_points=16",
        "kriging:model=Exp:psill=10:range=5:nugget=1:max_points=16:block=1x1",
        /* empty neighbourhoods: the mean and the block's variance */
        "kriging:type=simple:mean=0:model=Sph:psill=10:range=6:nugget=1:max_points=6:"
        "radius=1.2:block=0.5",
        "kriging:drift_raster=a:drift_raster=b:model=Exp:psill=10:range=5:nugget=1:"
        "max_points=12",
    };
    krige_each(dbl, NCASES(dbl), 0, u);
    krige_each(sgl, NCASES(sgl), 1, u);
    krige_each(lat, NCASES(lat), 0, l);
    /* the fused kernel, forced for k <= 32 */
    setenv("GRIDKIT_GPU_KRIGE_MODE", "2", 1);
    const gpu_case fused[] = {
        {quad, u, 0}, {quad_sing, u, 0}, {blk, u, 1}, {ked, u, 0}, {lat[1], l, 0},
    };
    krige_cases(fused, NCASES(fused));
    unsetenv("GRIDKIT_GPU_KRIGE_MODE");
    /* odd windows (one band: compare_windows keeps one) and split tiles */
    const gpu_case windows[] = {
        {"kriging:drift=quadratic:model=Exp:psill=60:range=700:nugget=5:max_points=16:"
         "variance=no",
         u, 0},
        {"kriging:model=Exp:psill=60:range=500:nugget=5:max_points=8:block=50x50:variance=no", u,
         0},
        {"kriging:drift_raster=a:drift_raster=b:model=Exp:psill=60:range=500:nugget=5:"
         "max_points=16:variance=no",
         u, 0},
        {"kriging:drift_raster=a:model=Exp:psill=10:range=5:nugget=1:max_points=12:variance=no", l,
         0},
    };
    windows_cases(windows, NCASES(windows));
    test_split(ked, u);
    test_split(blk, u);
}
