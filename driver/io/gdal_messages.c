/* SPDX-License-Identifier: MIT */
/* gdal_messages.c - GDAL's failures and names kept for gridkit's messages
 * (see gdal_messages.h). */
#include "io/gdal_messages.h"

#include "ogr_api.h"

#include <stdio.h>
#include <string.h>

void CPL_STDCALL gk_capture_handler(CPLErr cls, CPLErrorNum no, const char *msg)
{
    gk_err_capture *ec = CPLGetErrorHandlerUserData();
    if (ec && cls >= CE_Failure) {
        snprintf(ec->msg, sizeof ec->msg, "%s", msg ? msg : "");
        ec->n_fail++;
        return;
    }
    CPLDefaultErrorHandler(cls, no, msg);
}

const char *gk_gdal_reason(const gk_err_capture *ec, char *buf, size_t cap)
{
    if (ec->msg[0])
        snprintf(buf, cap, ": %s", ec->msg);
    else
        buf[0] = '\0';
    return buf;
}

/* "name", "name", ... (cut with "..." at cap), or "none". */
static void name_list(int n, const char *(*name)(void *, int), void *obj, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && len + 8 < cap; i++) {
        const char *s = name(obj, i);
        len += (size_t)snprintf(buf + len, cap - len, "%s\"%s\"", i ? ", " : "", s ? s : "");
    }
    if (len >= cap)
        memcpy(buf + cap - 4, "...", 4);
    if (n == 0)
        snprintf(buf, cap, "none");
}

static const char *layer_name(void *ds, int i) { return OGR_L_GetName(GDALDatasetGetLayer(ds, i)); }

void gk_layer_list(GDALDatasetH ds, char *buf, size_t cap)
{
    name_list(GDALDatasetGetLayerCount(ds), layer_name, ds, buf, cap);
}

static const char *field_name(void *defn, int i)
{
    return OGR_Fld_GetNameRef(OGR_FD_GetFieldDefn(defn, i));
}

void gk_field_list(OGRFeatureDefnH defn, char *buf, size_t cap)
{
    name_list(OGR_FD_GetFieldCount(defn), field_name, defn, buf, cap);
}
