/* SPDX-License-Identifier: MIT */
/* test_gpu_idw_window.c - the IDW family (invdist, invdistnn, aidw, nearest)
 * and the window methods (average, minimum, maximum, range, count,
 * average_distance, average_distance_pts) on the GPU against the CPU, one
 * table of cases each, since they share their data sets and order (part of
 * test_gpu). */
#include "gpu_harness.h"

#include <stdio.h>

/* The first algorithms on the GPU: every one on utm, the lattice's ties and
 * exact hits, and some in single precision (the first four of utm's). */
void test_gpu_basic(const dataset *u, const dataset *l)
{
    static const char *both[] = {
        "invdist",
        "invdist:power=3:smoothing=5",
        "invdist:power=1",
        "invdistnn:radius=400:max_points=16",
        "invdistnn:radius=300:max_points=0:min_points=3",
        "invdistnn:power=3:smoothing=2:radius=500:max_points=40:min_points=20",
        "invdistnn:radius=250:max_points=1",
        "invdistnn:radius=700:max_points=64",
        "invdist:radius1=600:radius2=300:angle=30:max_points=10",
        "invdist:radius1=400:radius2=400:max_points=12:min_points=4",
        "invdist:radius1=300:radius2=500:angle=-15",
        "nearest",
        "nearest:radius1=150:radius2=150",
        "nearest:radius1=300:radius2=120:angle=60",
        "average:radius1=300:radius2=300",
        "average:radius1=500:radius2=200:angle=20:min_points=5",
        "count:radius1=250:radius2=250",
        "minimum:radius1=300:radius2=300",
        "maximum:radius1=300:radius2=200:angle=45",
        "range:radius1=300:radius2=300:min_points=3",
        "average_distance:radius1=300:radius2=300",
        "average",
    };
    static const char *lattice[] = {
        "invdist",
        "invdist:power=2:smoothing=0.5",
        "invdistnn:radius=2.5:max_points=12",
        "invdistnn:radius=1.5:max_points=4",
        "invdistnn:radius=3:max_points=0",
        "nearest",
        "nearest:radius1=1:radius2=1",
        "nearest:radius1=2:radius2=1:angle=45",
        "average:radius1=1.5:radius2=1.5",
        "count:radius1=1:radius2=1",
        "range:radius1=2:radius2=1:angle=90",
        "average_distance:radius1=2:radius2=2",
    };
    compare_each(both, NCASES(both), 0, u);
    compare_each(both, 4, 1, u);
    compare_each(lattice, NCASES(lattice), 0, l);
    compare(lattice[0], 1, l, 1);
}

/* average_distance_pts, aidw and the per-quadrant selection (GPU kernels of
 * gpu/idw.cu, gpu/window.cu, gpu/quadrants.cu). */
void test_extra(const dataset *u, const dataset *l, const dataset *s)
{
    static const char *utm[] = {
        "average_distance_pts:radius1=300:radius2=300",
        "average_distance_pts:radius1=400:radius2=200:angle=30:min_points=5",
        "aidw:radius1=400:radius2=400:max_points=12",
        "aidw:k=5:smoothing=2:radius1=500:radius2=250:angle=30:max_points=16:min_points=3",
        "aidw:radius1=300:radius2=300",
        "aidw:k=20:alpha1=1:alpha5=4:r_min=0.2:r_max=1.5:radius1=400:radius2=400:max_points=8",
        "aidw:k=1:radius1=600:radius2=600:max_points=40:min_points=30",
        "invdistnn:radius=400:max_points=12:min_points_per_quadrant=1",
        "invdistnn:radius=500:max_points=16:max_points_per_quadrant=3",
        "invdistnn:radius=300:max_points=0:min_points_per_quadrant=2",
        "invdistnn:power=3:smoothing=2:radius=450:max_points=7:max_points_per_quadrant=16:"
        "min_points=5",
        "invdist:radius=400:min_points_per_quadrant=1:max_points_per_quadrant=2",
        "average:radius1=300:radius2=300:min_points_per_quadrant=1",
        "average:radius1=400:radius2=250:angle=30:max_points=10:max_points_per_quadrant=4:"
        "min_points_per_quadrant=1",
        "count:radius1=300:radius2=300:max_points_per_quadrant=5",
        "minimum:radius1=300:radius2=300:max_points_per_quadrant=2:min_points_per_quadrant=1",
        "maximum:radius1=350:radius2=200:angle=60:min_points_per_quadrant=2",
        "range:radius1=300:radius2=300:max_points_per_quadrant=1:min_points=3",
        "average_distance:radius1=300:radius2=300:max_points_per_quadrant=16",
    };
    static const char *lattice[] = {
        "average_distance_pts:radius1=2:radius2=2",
        "average_distance_pts:radius1=1:radius2=1:min_points=3",
        "aidw",
        "aidw:radius1=2.5:radius2=2.5:max_points=8",
        "aidw:k=4:radius1=2:radius2=1:angle=45",
        "aidw:smoothing=0.5:radius1=3:radius2=3:max_points=6",
        "invdistnn:radius=2.5:max_points=12:min_points_per_quadrant=1",
        "invdistnn:radius=2:max_points=0:max_points_per_quadrant=2",
        "invdistnn:radius=1.5:max_points=5:min_points_per_quadrant=1:max_points_per_quadrant=1",
        "average:radius1=2:radius2=2:max_points=6:max_points_per_quadrant=2",
        "count:radius1=1.5:radius2=1.5:min_points_per_quadrant=1",
        "range:radius1=2:radius2=2:max_points_per_quadrant=3:min_points_per_quadrant=1",
        "average_distance:radius1=2:radius2=1:angle=90:max_points_per_quadrant=2",
    };
    static const char *small[] = {
        "average_distance_pts",
        "average_distance_pts:min_points=301",
        "aidw:k=7:smoothing=1",
    };
    compare_each(utm, NCASES(utm), 0, u);
    compare(utm[2], 1, u, 1);
    compare_each(lattice, NCASES(lattice), 0, l);
    compare_each(small, NCASES(small), 0, s);
    /* more than 16 points a quadrant: a list per quadrant (kl_quad_kernel);
     * utm holds ~100 points within 400, ~155 within 500 */
    static const char *many[] = {
        "count:radius1=300:radius2=300:max_points_per_quadrant=17",
        "invdistnn:radius=500:max_points=80:max_points_per_quadrant=25",
        "invdistnn:power=3:smoothing=2:radius=450:max_points=0:max_points_per_quadrant=30:"
        "min_points_per_quadrant=3",
        "invdist:radius=500:max_points_per_quadrant=20:min_points_per_quadrant=1",
        "average:radius1=400:radius2=250:angle=30:max_points=60:max_points_per_quadrant=20:"
        "min_points_per_quadrant=1",
        "minimum:radius1=400:radius2=400:max_points_per_quadrant=30",
        "range:radius1=500:radius2=500:max_points_per_quadrant=100:min_points_per_quadrant=2",
        "average:radius1=500:radius2=500:max_points=100:min_points_per_quadrant=2",
        "average_distance:radius1=400:radius2=400:max_points_per_quadrant=40:min_points=30",
        "maximum:radius1=600:radius2=600:max_points_per_quadrant=512",
    };
    /* the lattice: ties in every quadrant, nodes on points (exact hits) */
    static const char *lattice_many[] = {
        "invdistnn:radius=5:max_points=0:max_points_per_quadrant=20",
        "average:radius1=5:radius2=4:angle=30:max_points=70:max_points_per_quadrant=18",
        "count:radius1=6:radius2=6:max_points_per_quadrant=25:min_points_per_quadrant=5",
    };
    /* above 512 a quadrant (the CPU's before), and lists too big for shared
     * memory (4 x 3000: global memory); ~2800 points within 3000 */
    static const char *huge[] = {
        "count:radius1=300:radius2=300:max_points_per_quadrant=513",
        "average:radius1=3000:radius2=2000:angle=20:max_points_per_quadrant=3000:"
        "min_points_per_quadrant=100",
    };
    compare_each(many, NCASES(many), 0, u);
    compare(many[1], 1, u, 1);
    compare(many[4], 1, u, 1);
    compare_each(lattice_many, NCASES(lattice_many), 0, l);
    compare_each(huge, NCASES(huge), 0, u);
    const gpu_case windows[] = {
        {utm[2], u, 0}, {lattice[2], l, 0}, {utm[7], u, 0}, {utm[0], u, 0}, {small[0], s, 0},
    };
    windows_cases(windows, NCASES(windows));
}
