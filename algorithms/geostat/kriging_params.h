/*
 * kriging_params.h - the parameters of -a kriging:... (parsed in
 * kriging_params.c). Plain data: struct gk_algorithm holds one by value.
 */
#ifndef GK_KRIGING_PARAMS_H
#define GK_KRIGING_PARAMS_H

#include "vmodel.h"

typedef enum { GK_KRIGE_ORDINARY = 0, GK_KRIGE_SIMPLE, GK_KRIGE_UNIVERSAL } gk_krige_type;
typedef enum { GK_DRIFT_NONE = 0, GK_DRIFT_LINEAR, GK_DRIFT_QUADRATIC } gk_drift_type;

#define GK_KRIGE_MAX_DRIFT_RASTERS 4

typedef struct {
    gk_krige_type type;
    double mean;                 /* simple kriging */
    gk_drift_type drift;         /* universal: trend in x, y */
    int n_drift_rasters;         /* external drift (sampled by the GDAL layer) */
    char drift_raster[GK_KRIGE_MAX_DRIFT_RASTERS][256];
    gk_vmodel model;
    int model_auto;              /* model=auto: fit on the points */
    char variogram_file[256];    /* variogram=FILE.json: read by the GDAL layer */
    int variance;                /* 1: second band with the kriging variance */
    double block_w, block_h;     /* block kriging; 0 = point kriging */
    /* neighbourhood (gstat's nmax, nmin, maxdist, omax) lives in gk_algorithm:
     * max_points, min_points, max_points_per_quadrant; the radius here: */
    double maxdist;              /* 0 = no distance limit */
    int drift_bilinear;          /* drift rasters: 0 nearest pixel (sp::over), 1 bilinear */
    int have_mean;               /* mean= given */
} gk_kriging_params;

struct gk_algorithm;
struct gk_context;
/* Parses the key=value tokens after "kriging" (strtok_r state in save). */
int gk_kriging_parse(struct gk_context *ctx, const char *spec, char *save,
                     struct gk_algorithm *a);

/* For the GDAL layer (the algorithm is opaque in gridkit.h). */
const gk_kriging_params *gk_algorithm_kriging(const struct gk_algorithm *a); /* NULL if not kriging */
/* Replaces the model (variogram=FILE.json read by the caller); checks it and
 * rebuilds the canonical string. */
/* The model in the compact form "Nug(0.05)+Sph(0.59,897)[@angle/ratio]" that
 * model= also accepts. GK_ERR_ARG when buf is too small. */
int gk_vmodel_format(const gk_vmodel *m, char *buf, size_t room);
/* The model a kriging job uses (the fitted one for model=auto); NULL otherwise. */
const gk_vmodel *gk_job_kriging_model(const gk_job *job);
int gk_kriging_set_model(struct gk_context *ctx, struct gk_algorithm *a, const gk_vmodel *m);

#endif
