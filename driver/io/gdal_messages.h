/* SPDX-License-Identifier: MIT */
/*
 * gdal_messages.h - GDAL's failures kept for gridkit's own messages while
 * points are read (read_points.c, clip_region.c), and the names of layers
 * and fields for them.
 */
#ifndef GK_GDAL_MESSAGES_H
#define GK_GDAL_MESSAGES_H

#include "cpl_error.h"
#include "gdal.h"
#include "ogr_api.h"

#include <stddef.h>

/* Pushed with CPLPushErrorHandlerEx(gk_capture_handler, &capture): failures
 * are kept for our own message (and not printed twice); warnings and debug
 * output still reach the user through the default handler. */
typedef struct {
    char msg[1024];
    int n_fail;
} gk_err_capture;

void CPL_STDCALL gk_capture_handler(CPLErr cls, CPLErrorNum no, const char *msg);
/* ": <GDAL message>" or "" for appending to our messages. */
const char *gk_gdal_reason(const gk_err_capture *ec, char *buf, size_t cap);
/* The names of ds's layers, of defn's fields, for messages: "a", "b", ...
 * (cut short with "..." at cap), or "none". */
void gk_layer_list(GDALDatasetH ds, char *buf, size_t cap);
void gk_field_list(OGRFeatureDefnH defn, char *buf, size_t cap);

#endif
