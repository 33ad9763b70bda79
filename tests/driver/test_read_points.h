/* SPDX-License-Identifier: MIT */
/* test_read_points.h - what the read_points test's files share: a temporary
 * folder, text files written into it, OGR layers made by hand, reads with
 * the default options, and a check on error messages. */
#ifndef GK_TEST_READ_POINTS_H
#define GK_TEST_READ_POINTS_H

#define GK_CHECK_SHARED
#include "gk_check.h"

#include "io/read_points.h"

#include "gdal.h"
#include "ogr_api.h"
#include "ogr_srs_api.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The context's last message contains sub. */
#define CHECK_MSG(ctx, sub)                                                                        \
    do {                                                                                           \
        if (getenv("GK_TEST_VERBOSE"))                                                             \
            printf("line %d: %s\n", __LINE__, gk_errmsg(ctx));                                     \
        CHECKF(strstr(gk_errmsg(ctx), (sub)), "message \"%s\" lacks \"%s\"", gk_errmsg(ctx),       \
               (sub));                                                                             \
    } while (0)

extern char tmpdir[256];
/* tmpdir/name, from a ring of 8 buffers */
const char *tpath(const char *name);
void write_text(const char *path, const char *text);
double now(void);
/* text written to a file and read by the XYZ reader */
gk_points *xyz(gk_context *ctx, const char *text, const char *zcol, size_t *skipped, int *rc);

/* OGR fixtures (test_read_points_ogr.c) */
void must(OGRErr e, const char *what);
OGRGeometryH wkt_geom(const char *wkt);
void add_feature(OGRLayerH lyr, const char *wkt, int id, const double *val);
OGRLayerH new_layer(GDALDatasetH ds, const char *name, OGRSpatialReferenceH srs,
                    OGRwkbGeometryType t);
gk_read_options opts(const char *src);
/* Reads; returns rc and leaves the result in *sp (freed by the caller). */
int rd(gk_context *ctx, const gk_read_options *ro, gk_source_points *sp);
size_t npts(const gk_source_points *sp, int i);

void test_ogr(void);   /* test_read_points_ogr.c */
void test_arrow(void); /* test_read_points_arrow.c */

#endif
