/* SPDX-License-Identifier: MIT */
/* test_gpu_quadtree_order.c - gdal_grid's tie order built on the GPU (gpu/
 * quadtree_order.cu) is the CPU's (algorithms/core/quadtree_order.c), index
 * for index, on data sets that shape the tree differently (part of
 * test_gpu): uniform points, a lattice (ties everywhere), duplicates
 * (nodes that cannot split), clusters many magnitudes apart (deep trees),
 * points on one line (boxes without width), a few points, and large
 * coordinates with tiny spacing (where rounding leaves gaps between
 * quarters). */
#include "gpu_harness.h"

#include "core/device.h"
#include "core/quadtree_order.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t qs = 0x9e3779b97f4a7c15ULL;
static double urand(void)
{
    qs ^= qs << 13, qs ^= qs >> 7, qs ^= qs << 17;
    return (double)(qs >> 11) * 0x1p-53;
}

static void one(const char *name, const double *x, const double *y, size_t n)
{
    const gk_gpu_api *api = gk_device_module();
    uint32_t *cpu = malloc(n * sizeof *cpu), *gpu = malloc(n * sizeof *gpu);
    char err[512] = "";
    double ms = 0;
    int ok = cpu && gpu && !gk_gdal_quadtree_order(x, y, n, cpu, NULL, NULL, NULL, 0);
    CHECKF(ok, "%s: the CPU's order failed", name);
    int grc = ok ? api->quadtree_order(0, x, y, n, gpu, &ms, err, sizeof err) : -1;
    CHECKF(grc == 0, "%s: the GPU's order failed: %s", name, err);
    size_t first = n;
    for (size_t k = 0; ok && grc == 0 && k < n && first == n; k++)
        if (cpu[k] != gpu[k])
            first = k;
    CHECKF(grc == 0 && first == n, "%s: %zu points, GPU order differs first at %zu (%u, CPU %u)",
           name, n, first, first < n ? gpu[first] : 0, first < n ? cpu[first] : 0);
    if (grc == 0 && first == n)
        printf("ok   quadtree order %-28s %9zu points, the CPU's, %.2f ms on the GPU\n", name, n,
               ms);
    free(cpu);
    free(gpu);
}

void test_quadtree_order(void)
{
    const gk_gpu_api *api = gk_device_module();
    if (!api || !api->quadtree_order) {
        CHECKF(0, "the GPU module has no quadtree order");
        return;
    }
    const size_t N = 1 << 20;
    double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    if (!x || !y) {
        CHECKF(0, "out of memory");
        free(x), free(y);
        return;
    }
    size_t n;
    for (size_t i = 0; i < N; i++)
        x[i] = 10000 * urand(), y[i] = 10000 * urand();
    one("uniform", x, y, N);
    n = 0; /* a lattice, rows reversed, then every tenth node again */
    for (int r = 299; r >= 0; r--)
        for (int c = 0; c < 300; c++)
            x[n] = c, y[n] = r, n++;
    for (size_t k = 0; k < 90000; k += 10)
        x[n] = x[k], y[n] = y[k], n++;
    one("lattice with repeats", x, y, n);
    n = 0; /* 3000 copies of one point among uniform ones */
    for (size_t i = 0; i < 20000; i++) {
        if (i % 7 == 3 && n < 20000)
            x[n] = 1234.5, y[n] = 678.25, n++;
        x[n] = 5000 * urand(), y[n] = 5000 * urand(), n++;
    }
    one("duplicates", x, y, n);
    n = 0; /* clusters 1e-9 .. 1e3 wide around a few centres */
    for (size_t i = 0; i < 200000; i++) {
        double s = pow(10.0, -9.0 + 12.0 * urand()), cx = 100.0 * (double)(i % 5);
        x[n] = cx + s * urand(), y[n] = -cx + s * urand(), n++;
    }
    one("clusters many magnitudes apart", x, y, n);
    n = 0;
    for (size_t i = 0; i < 50000; i++)
        x[n] = 42.0, y[n] = 1000.0 * urand(), n++;
    one("one vertical line", x, y, n);
    for (size_t i = 0; i < 50000; i++)
        y[i] = x[i], x[i] = 1000.0 * urand();
    one("one horizontal line", x, y, 50000);
    n = 0;
    for (size_t i = 0; i < 100000; i++)
        x[n] = 6.5e15 + (double)(qs % 97), y[n] = 1e-300 * (double)(i % 13), n++, urand();
    one("large coordinates, tiny spacing", x, y, n);
    static const size_t few[] = {1, 2, 8, 9, 17, 100};
    for (size_t f = 0; f < sizeof few / sizeof *few; f++) {
        char nm[40];
        for (size_t i = 0; i < few[f]; i++)
            x[i] = floor(10 * urand()), y[i] = floor(10 * urand());
        snprintf(nm, sizeof nm, "%zu points", few[f]);
        one(nm, x, y, few[f]);
    }
    free(x);
    free(y);
}
