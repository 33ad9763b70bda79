/* SPDX-License-Identifier: MIT */
/*
 * test_plugin_threads.c - the plugin's concurrent readers, from C so that the
 * sanitizer builds see them (the plugin is linked in, not dlopen()ed: an
 * instrumented GDAL module cannot be loaded by an uninstrumented GDAL).
 *
 *   test_plugin_threads DATA_DIR
 *
 * Four threads open the same GRIDKIT: string (four handles on one shared set
 * of points and jobs, as QGIS does) and read every block in different orders
 * while one reads whole windows; every read must equal one reference read.
 */
#include "gk_check.h"

#include "gdal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

void GDALRegister_GRIDKIT(void);

#define NX 600
#define NY 520
#define NT 4

static char open_string[1024];
static double *reference;

typedef struct {
    int k, bad, errors;
} reader;

static void *read_blocks(void *arg)
{
    reader *r = arg;
    GDALDatasetH ds = GDALOpen(open_string, GA_ReadOnly);
    if (!ds) {
        r->errors++;
        return NULL;
    }
    GDALRasterBandH b = GDALGetRasterBand(ds, 1);
    int bx, by;
    GDALGetBlockSize(b, &bx, &by);
    int nbx = (NX + bx - 1) / bx, nby = (NY + by - 1) / by, n = nbx * nby;
    double *win = malloc(sizeof *win * (size_t)NX * NY);
    for (int i = 0; i < n; i++) {
        /* thread k walks the blocks with its own stride (coprime to n or not:
         * a repeat only reads a cached block again) */
        int j = (int)(((long)i * (2 * r->k + 1) + r->k * 7) % n);
        int x0 = (j % nbx) * bx, y0 = (j / nbx) * by;
        int w = x0 + bx > NX ? NX - x0 : bx, h = y0 + by > NY ? NY - y0 : by;
        if (r->k == NT - 1) { /* one reader reads odd windows across blocks */
            x0 = (x0 + 37) % NX, y0 = (y0 + 11) % NY;
            w = NX - x0 < 301 ? NX - x0 : 301, h = NY - y0 < 97 ? NY - y0 : 97;
        }
        if (GDALRasterIO(b, GF_Read, x0, y0, w, h, win, w, h, GDT_Float64, 0, 0) != CE_None) {
            r->errors++;
            break;
        }
        for (int y = 0; y < h; y++)
            if (memcmp(win + (size_t)y * w, reference + (size_t)(y0 + y) * NX + x0,
                       sizeof *win * (size_t)w))
                r->bad++;
    }
    free(win);
    GDALClose(ds);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_plugin_threads DATA_DIR\n");
        return 2;
    }
    GDALAllRegister();
    GDALRegister_GRIDKIT();
    snprintf(open_string, sizeof open_string,
             "GRIDKIT:%s/meuse.gpkg -zfield zinc -a invdist:power=2:max_points=30:radius=600 "
             "-outsize %d %d --threads 2 --device cpu",
             argv[1], NX, NY);

    /* the reference: one handle, one whole-raster read, then closed */
    reference = malloc(sizeof *reference * (size_t)NX * NY);
    GDALDatasetH ds = GDALOpen(open_string, GA_ReadOnly);
    CHECK(ds != NULL);
    if (!ds)
        return 1;
    CHECK(GDALGetRasterXSize(ds) == NX && GDALGetRasterYSize(ds) == NY);
    CHECK(GDALRasterIO(GDALGetRasterBand(ds, 1), GF_Read, 0, 0, NX, NY, reference, NX, NY,
                       GDT_Float64, 0, 0) == CE_None);
    GDALClose(ds);

    pthread_t th[NT];
    reader rd[NT];
    for (int k = 0; k < NT; k++) {
        rd[k] = (reader){k, 0, 0};
        CHECK(pthread_create(&th[k], NULL, read_blocks, &rd[k]) == 0);
    }
    for (int k = 0; k < NT; k++) {
        pthread_join(th[k], NULL);
        CHECK(rd[k].errors == 0);
        CHECK(rd[k].bad == 0);
        if (rd[k].errors || rd[k].bad)
            fprintf(stderr, "reader %d: %d read errors, %d rows unlike the reference\n", k,
                    rd[k].errors, rd[k].bad);
    }
    free(reference);
    GDALDestroyDriverManager();
    printf("%d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
