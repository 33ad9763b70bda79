/* SPDX-License-Identifier: MIT */
/*
 * raster_format.h - the output's GDAL driver (-of, else guessed from the
 * extension as gdal_grid does) and pixel type (-ot), checked against each
 * other and against nodata= before any work.
 */
#ifndef GK_RASTER_FORMAT_H
#define GK_RASTER_FORMAT_H

#include "io/write_raster.h"

#include <gdal.h>

/* *drv and *type for spec; an error naming -of, -ot or nodata= when the
 * driver is unknown or cannot write rasters, the type is unknown or not one
 * the driver writes, or nodata is not a value of the type. */
int gk_raster_format_choose(gk_context *ctx, const gk_raster_spec *spec, GDALDriverH *drv,
                            GDALDataType *type);

#endif
