/* SPDX-License-Identifier: MIT */
/*
 * input_files.h - the files an input stands for, whatever its spelling.
 *
 * An input is named as the user names it: a plain path, a driver prefix
 * (GPKG:a.gpkg:points, CSV:pts.csv), a virtual file (/vsizip/z.zip/p.shp,
 * /vsigzip/p.csv.gz), a VRT whose sources are other files, a link. What it
 * stands for is every file the dataset it opens uses: GDAL's file list of
 * that dataset (side-cars: .dbf, .prj, .csvt, .aux.xml; a VRT's sources,
 * followed), each archive resolved to the file on disk. They are held by
 * device and inode, so that "is this output one of my inputs" does not
 * depend on how either is spelt (output_check.h asks).
 */
#ifndef GK_INPUT_FILES_H
#define GK_INPUT_FILES_H

#include "gridkit.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gk_inputs gk_inputs;

/* An empty set; NULL when out of memory. */
gk_inputs *gk_inputs_new(void);
void gk_inputs_free(gk_inputs *in);

/* Adds the input `name` (NULL or "" ignored) and every file of the dataset
 * GDAL opens from it with open_options (NULL: none; GDAL's messages are
 * silenced: the reader says what is wrong with an input). A name that GDAL
 * cannot open counts by the file it names, or by its canonical path where
 * no file has that name yet. GK_OK or GK_ERR_NOMEM. */
int gk_inputs_add(gk_inputs *in, const char *name, char **open_options);
/* Adds a plain file read without GDAL (a variogram JSON). */
int gk_inputs_add_file(gk_inputs *in, const char *name);

/* The input (as the user spelt it) of which path is a file, NULL if none;
 * *file (may be NULL) is that file as GDAL or the archive named it. path
 * is compared by device and inode (a link, a hard link, another spelling
 * are the same file), else, where it does not exist, by canonical path. */
const char *gk_inputs_owner(const gk_inputs *in, const char *path, const char **file);

/* The canonical spelling of a name that may not exist yet: realpath of the
 * file, else of its directory + its base name, else the name; malloc'd. */
char *gk_canonical_path(const char *name);

#ifdef __cplusplus
}
#endif
#endif
