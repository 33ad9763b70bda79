/* SPDX-License-Identifier: MIT */
/* gdal_algorithms.h - `gdal driver gridkit grid|ridges` where the GDAL the
 * plugin is built against has RFC 104's algorithm registry for drivers
 * (gdal_algorithms.cpp); a no-op elsewhere. */
#ifndef GK_GDAL_ALGORITHMS_H
#define GK_GDAL_ALGORITHMS_H

class GDALDriver;

/* Before the driver is registered. */
void gk_gdal_declare_algorithms(GDALDriver *d);

#endif
