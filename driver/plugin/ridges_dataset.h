/* SPDX-License-Identifier: MIT */
/*
 * ridges_dataset.h - the plugin's vector side: `GRIDKIT:ridges ARGS` (or a
 * .gridkit file whose first word is "ridges") opens as a read-only vector
 * dataset whose one layer holds the lines `gridkit ridges` would write,
 * computed on open.
 */
#ifndef GK_RIDGES_DATASET_H
#define GK_RIDGES_DATASET_H

#include "gdal_priv.h"

#include <string>
#include <vector>

/* args: the words after "ridges" (no output name); dir: the .gridkit file's
 * folder (relative paths), empty for an open string; shown: the name for
 * messages. NULL and a CPLError on failure. */
GDALDataset *GKOpenRidges(std::vector<std::string> args, const std::string &dir, const char *shown);

#endif
