/* SPDX-License-Identifier: MIT */
/* test_window.c - average, nearest and the metrics (minimum, maximum,
 * range, count, average_distance) on hand-checked cases (part of
 * test_algorithms). */
#include "core/algo_harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void test_average_nearest(void)
{
    int nd;
    const double x[] = {2, 0}, y[] = {0, 2}, z[] = {5, 9};
    gk_algorithm a = alg_of(GK_ALG_AVERAGE);
    CHECK(eval1(&a, x, y, z, 2, 0, 0, &nd) == 7.0); /* no radius: all */
    a.radius1 = 3;
    a.radius2 = 1;
    CHECK(eval1(&a, x, y, z, 2, 0, 0, &nd) == 5.0);
    a.angle = 90;
    CHECK(eval1(&a, x, y, z, 2, 0, 0, &nd) == 9.0);
    a.min_points = 2;
    eval1(&a, x, y, z, 2, 0, 0, &nd);
    CHECK(nd);

    /* nearest honours the radius (gdal_grid's quadtree path does not) */
    a = alg_of(GK_ALG_NEAREST);
    const double x1[] = {1.27}, y1[] = {0}, z1[] = {42};
    a.radius1 = a.radius2 = 1;
    eval1(&a, x1, y1, z1, 1, 0, 0, &nd);
    CHECK(nd);
    a.radius1 = a.radius2 = 0;
    CHECK(eval1(&a, x1, y1, z1, 1, 0, 0, &nd) == 42.0);
    /* ties: the last in input order */
    const double x2[] = {1, -1, 3, 1}, y2[] = {0, 0, 3, 0}, z2[] = {1, 2, 3, 4};
    CHECK(eval1(&a, x2, y2, z2, 3, 0, 0, &nd) == 2.0);
    CHECK(eval1(&a, x2, y2, z2, 4, 0, 0, &nd) == 4.0);
    a.radius1 = a.radius2 = 5;
    CHECK(eval1(&a, x2, y2, z2, 4, 0, 0, &nd) == 4.0);
    /* a narrow ellipse: the nearest point overall is outside it */
    const double x3[] = {2, 0}, y3[] = {0, 1}, z3[] = {1, 2};
    a.radius1 = 3;
    a.radius2 = 0.5;
    CHECK(eval1(&a, x3, y3, z3, 2, 0, 0, &nd) == 1.0);
    a.radius1 = a.radius2 = 0;
    CHECK(eval1(&a, x3, y3, z3, 2, 0, 0, &nd) == 2.0);
}

void test_metrics(void)
{
    int nd;
    const double x[] = {0, 3, 0, 10}, y[] = {0, 0, 4, 10}, z[] = {1, 4, 10, 0};
    gk_algorithm a = alg_of(GK_ALG_MINIMUM);
    a.radius1 = a.radius2 = 5;
    CHECK(eval1(&a, x, y, z, 4, 0, 0, &nd) == 1.0);
    eval1(&a, x, y, z, 4, 100, 100, &nd);
    CHECK(nd);
    a.kind = GK_ALG_MAXIMUM;
    CHECK(eval1(&a, x, y, z, 4, 0, 0, &nd) == 10.0);
    a.kind = GK_ALG_RANGE;
    CHECK(eval1(&a, x, y, z, 4, 0, 0, &nd) == 9.0);
    a.kind = GK_ALG_COUNT;
    CHECK(eval1(&a, x, y, z, 4, 0, 0, &nd) == 3.0);
    CHECK(eval1(&a, x, y, z, 4, 100, 100, &nd) == 0.0 && !nd); /* empty: 0 */
    a.min_points = 4;
    eval1(&a, x, y, z, 4, 0, 0, &nd);
    CHECK(nd);
    a.min_points = 0;
    a.kind = GK_ALG_AVERAGE_DISTANCE;
    CHECK_NEAR(eval1(&a, x, y, z, 4, 0, 0, &nd), 7.0 / 3.0, 1e-14);
    a.kind = GK_ALG_AVERAGE_DISTANCE_PTS; /* pairs 3, 4, 5 */
    CHECK_NEAR(eval1(&a, x, y, z, 4, 0, 0, &nd), 4.0, 1e-14);
    const double xa[] = {0, 1}, ya[] = {0, 0};
    CHECK_NEAR(eval1(&a, xa, ya, NULL, 2, 0.5, 0, &nd), 1.0, 1e-14); /* not 0.5 */
    eval1(&a, xa, ya, NULL, 1, 0, 0, &nd);
    CHECK(nd);
    a.radius1 = a.radius2 = 0; /* all four */
    a.kind = GK_ALG_COUNT;
    CHECK(eval1(&a, x, y, z, 4, 0, 0, &nd) == 4.0);
    a.kind = GK_ALG_RANGE;
    CHECK(eval1(&a, x, y, z, 4, 0, 0, &nd) == 10.0);
}
