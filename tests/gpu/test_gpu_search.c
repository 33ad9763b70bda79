/* SPDX-License-Identifier: MIT */
/* test_gpu_search.c - the GPU's neighbour searches where they change path:
 * more neighbours than the register lists hold (k above 64: a warp's list in
 * shared or global memory, kriging's block per node) and nodes far beyond the
 * points (ring searches bounded by the points' extent), for IDW and kriging
 * alike (part of test_gpu). */
#include "gpu_harness.h"

#include <stdlib.h>

/* More neighbours than the register lists hold (k above 64): a warp's
 * list in shared memory (gpu/knn_list.cuh), and kriging's block per
 * node (gpu/kriging_big.cu), its system in shared memory or, when too
 * big for it, in global memory. utm holds ~100 points within 400. */
void test_big_k(const dataset *u, const dataset *l, const dataset *s)
{
    static const char *utm[] = {
        "invdistnn:radius=400:max_points=100",
        "invdistnn:radius=700:max_points=200:min_points=150",
        "invdistnn:power=3:smoothing=2:radius=900:max_points=500",
        "invdist:radius1=600:radius2=300:angle=30:max_points=80",
        "aidw:k=100:radius1=500:radius2=500:max_points=120",
        "aidw:k=65:smoothing=1:radius1=400:radius2=300:angle=10:max_points=70:min_points=20",
    };
    /* ties by input order and exact hits */
    static const char *lattice[] = {
        "invdistnn:radius=6:max_points=90",
        "invdist:radius1=5:radius2=4:angle=30:max_points=70:min_points=40",
        "aidw:k=70:radius1=5:radius2=5:max_points=66",
    };
    /* every point (300) of the small set, aidw's k without a window */
    static const char *small[] = {
        "invdistnn:radius=2000:max_points=2048",
        "aidw:k=80:smoothing=1",
        "invdistnn:radius=2000:max_points=2049",
    };
    /* lists beyond shared memory (12000 a warp: global memory); ~5600
     * points within 3000, ~2500 within 2000 */
    static const char *far[] = {
        "invdistnn:radius=3000:max_points=12000",
        "invdistnn:radius=2000:max_points=2500:min_points=2400",
        "aidw:k=3000:radius1=1500:radius2=1500:max_points=3000",
    };
    compare_each(utm, NCASES(utm), 0, u);
    compare(utm[0], 1, u, 1);
    compare(utm[4], 1, u, 1);
    compare_each(lattice, NCASES(lattice), 0, l);
    compare_each(small, NCASES(small), 0, s);
    compare_each(far, NCASES(far), 0, u);

    static const char *krige[] = {
        "kriging:model=Exp:psill=60:range=500:nugget=5:max_points=100",
        "kriging:drift=linear:model=Sph:psill=60:range=800:nugget=5:max_points=80:radius=600:"
        "min_points=40",
        "kriging:type=simple:mean=100:model=Exp:psill=600:range=800:nugget=5:max_points=70",
        "kriging:drift=quadratic:model=Exp:psill=60:range=500:nugget=5:max_points=72",
        "kriging:model=Mat:psill=60:range=300:kappa=1.5:nugget=5:max_points=90",
    };
    static const char *omax_lattice =
        "kriging:model=Exp:psill=10:range=5:nugget=1:max_points_per_quadrant=3";
    krige_each(krige, NCASES(krige), 0, u);
    compare_krige(krige[0], 1, u, 1);
    compare_krige(krige[1], 1, u, 1);
    const gpu_case kcases[] = {
        {"kriging:model=Exp:psill=10:range=5:nugget=1:max_points=70", l, 0},
        /* systems too big for shared memory: global memory */
        {"kriging:model=Exp:psill=6:range=300:nugget=1:max_points=250", s, 0},
        {"kriging:drift=linear:model=Sph:psill=6:range=500:nugget=1:max_points=220", s, 1},
        /* omax over every point (no max_points, no radius): each quadrant's omax
         * nearest (kl_quad_search_kernel), any number of points; min_points
         * counts every point, as the CPU */
        {"kriging:model=Exp:psill=6:range=300:nugget=1:max_points_per_quadrant=5", s, 0},
        {"kriging:model=Exp:psill=60:range=500:nugget=5:max_points_per_quadrant=3", u, 0},
        {"kriging:drift=linear:model=Sph:psill=60:range=800:nugget=5:"
         "max_points_per_quadrant=20",
         u, 1},
        {omax_lattice, l, 0},
        {"kriging:model=Exp:psill=6:range=300:nugget=1:max_points_per_quadrant=4:"
         "min_points=301",
         s, 0},
        {"kriging:type=simple:mean=5:model=Exp:psill=6:range=300:nugget=1:"
         "max_points_per_quadrant=4:min_points=301",
         s, 0},
    };
    krige_cases(kcases, NCASES(kcases));
    /* above 512 a quadrant: not on the GPU */
    compare_krige("kriging:model=Exp:psill=6:range=300:nugget=1:max_points_per_quadrant=513", 0, s,
                  0);
    /* every list kernel with its lists in global memory */
    setenv("GRIDKIT_GPU_KLIST_GLOBAL", "1", 1);
    const gpu_case global_lists[] = {
        {utm[0], u, 0},
        {utm[4], u, 0},
        {lattice[0], l, 0},
        {"average:radius1=5:radius2=4:angle=30:max_points=70:max_points_per_quadrant=18", l, 0},
    };
    compare_cases(global_lists, NCASES(global_lists));
    compare_krige(krige[0], 0, u, 1);
    compare_krige(omax_lattice, 0, l, 1);
    unsetenv("GRIDKIT_GPU_KLIST_GLOBAL");
}

/* utm's points on a grid four times their square, its nodes up to 15 km
 * beyond them: the GPU's ring searches stop by a node's distance to the
 * points' extent as well (ring_box_bound), so an overestimate there would
 * drop a nearer point at these nodes. Per-thread, per-warp and list
 * searches; nearest, IDW and kriging. */
void test_far_nodes(const dataset *u)
{
    dataset f = *u;
    f.name = "utm, nodes far beyond";
    f.g = (gk_grid){485000.0, 525000.0, 4985000.0, 5025000.0, 41, 41};
    const gpu_case idw[] = {
        {"nearest", &f, 0},
        {"invdistnn:radius=30000:max_points=12", &f, 0},
        {"invdistnn:radius=30000:max_points=12", &f, 1},
        {"invdistnn:radius=30000:max_points=100", &f, 0},
        {"invdistnn:radius=30000:max_points=16:max_points_per_quadrant=4", &f, 0},
    };
    const gpu_case krige[] = {
        {"kriging:model=Exp:psill=60:range=5000:nugget=5:max_points=16", &f, 0},
        {"kriging:model=Exp:psill=60:range=5000:nugget=5:max_points=16", &f, 1},
        {"kriging:model=Exp:psill=60:range=5000:nugget=5:max_points=40", &f, 0},
        {"kriging:model=Exp:psill=60:range=5000:nugget=5:max_points_per_quadrant=4", &f, 0},
    };
    compare_cases(idw, NCASES(idw));
    krige_cases(krige, NCASES(krige));
}
