/*
 * methods.c - the list of gridding methods: the one place that knows them
 * all. A method is a row (core/method.h) defined in its own file; adding one
 * is that file and a line here (docs/dev/adding-a-method.md). The order is
 * the order of -a's "known:" message.
 */
#include "core/method.h"

extern const gk_method gk_method_invdist, gk_method_invdistnn, gk_method_average,
    gk_method_nearest, gk_method_linear, gk_method_minimum, gk_method_maximum, gk_method_range,
    gk_method_count, gk_method_average_distance, gk_method_average_distance_pts, gk_method_aidw,
    gk_method_kriging;

const gk_method *const gk_methods[] = {
    &gk_method_invdist,          /* idw/invdist.c */
    &gk_method_invdistnn,        /* idw/invdistnn.c */
    &gk_method_average,          /* window/average.c */
    &gk_method_nearest,          /* idw/nearest.c */
    &gk_method_linear,           /* linear/linear.c */
    &gk_method_minimum,          /* window/metrics.c */
    &gk_method_maximum,          /* window/metrics.c */
    &gk_method_range,            /* window/metrics.c */
    &gk_method_count,            /* window/metrics.c */
    &gk_method_average_distance, /* window/metrics.c */
    &gk_method_average_distance_pts, /* window/metrics.c */
    &gk_method_aidw,             /* idw/aidw.c */
    &gk_method_kriging,          /* geostat/kriging.c */
};
const int gk_n_methods = (int)(sizeof gk_methods / sizeof gk_methods[0]);
