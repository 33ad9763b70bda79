/* SPDX-License-Identifier: MIT */
/* test_write_raster.h - what the write_raster test's files share: the work
 * folder, paths in it, rasters written by a pattern, and the safety tests'
 * entry points. */
#ifndef GK_TEST_WRITE_RASTER_H
#define GK_TEST_WRITE_RASTER_H

#define GK_CHECK_SHARED
#include "gk_check.h"

#include "io/write_raster.h"

#include <stddef.h>

extern char workdir[1024];

/* workdir/name, from a ring of 4 buffers */
const char *path(const char *name);
int exists(const char *p);
/* Every test ends here: no temporary of any writer may survive. */
void check_no_temporaries(const char *where);
gk_raster_spec base_spec(const char *dst, int nx, int ny);
/* Writes value(band, x, y) tile by tile with the writer's preferred tiles. */
int fill(gk_raster_writer *w, int nx, int ny, int bands, double (*value)(int, int, int));
double ramp(int band, int x, int y);
double seven(int band, int x, int y);
char *read_bytes(const char *p, size_t *n);
void write_text(const char *p, const char *text);
/* Every band of p as doubles, band after band (NULL: unreadable). */
double *read_all(const char *p, int nx, int ny, int bands);
/* Creates dst with value 7 everywhere through the writer. */
int make_raster(gk_context *ctx, const char *dst, int nx, int ny);

/* test_write_raster_safety.c */
void test_abort(gk_context *ctx);
void test_replace(gk_context *ctx);
void test_protect(gk_context *ctx);
void test_directories(gk_context *ctx);
void test_bad_names(gk_context *ctx);
void test_guess_warning(gk_context *ctx);
void test_tile_size(gk_context *ctx);
void test_replace_steps(gk_context *ctx);

/* test_write_raster_edges.c */
void test_registers_drivers(gk_context *ctx);
void test_spec_checks(gk_context *ctx);
void test_window_checks(gk_context *ctx);
void test_describe_edges(gk_context *ctx);
void test_create_refused(gk_context *ctx);
void test_describe_refused(gk_context *ctx);
void test_bigtiff(gk_context *ctx);
void test_unstaged_rows(gk_context *ctx);
void test_unwritten_parts(gk_context *ctx);
void test_replace_edges(gk_context *ctx);

#endif
