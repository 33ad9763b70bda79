/*
 * vmodel.h - variogram models with gstat's parameter conventions.
 *
 * A model is a nested sum of structures, each with its partial sill, range
 * (gstat's scale parameter: Exp is 1 - exp(-h/range)), kappa where used, and
 * 2-D geometric anisotropy as gstat's anis = c(angle, ratio): angle of the
 * major axis in degrees clockwise from north, ratio = minor/major range.
 * The nugget is a structure of type GK_VM_NUG. gamma(0) = 0 always.
 */
#ifndef GK_VMODEL_H
#define GK_VMODEL_H

#include "gridkit.h"

typedef enum {
    GK_VM_NUG, /* nugget */
    GK_VM_SPH, /* spherical */
    GK_VM_EXP, /* exponential */
    GK_VM_GAU, /* gaussian */
    GK_VM_MAT, /* Matern (kappa) */
    GK_VM_STE, /* Matern, Stein's parameterisation (kappa) */
    GK_VM_EXC, /* exponential class / stable (kappa) */
    GK_VM_CIR, /* circular */
    GK_VM_PEN, /* pentaspherical */
    GK_VM_LIN, /* linear (range 0: unbounded, psill = slope) */
    GK_VM_POW, /* power (range = exponent, unbounded) */
    GK_VM_HOL, /* hole effect, c (1 - sin(u)/u) */
    GK_VM_N_TYPES
} gk_vm_type;

#define GK_VM_MAX_STRUCTURES 8

typedef struct {
    gk_vm_type type;
    double psill;
    double range;
    double kappa;      /* Mat, Ste, Exc */
    double anis_angle; /* degrees clockwise from north */
    double anis_ratio; /* minor / major, (0, 1]; 1 = isotropic */
} gk_vm_structure;

typedef struct {
    int n;
    gk_vm_structure s[GK_VM_MAX_STRUCTURES];
} gk_vmodel;

/* gstat's three-letter names ("Sph", "Exp", ...), case-insensitive. */
int gk_vm_type_from_name(const char *name, gk_vm_type *type);
const char *gk_vm_type_name(gk_vm_type type);

/* Checks every structure (ranges > 0 where needed, psill >= 0, kappa and
 * anisotropy in range); a message naming the offending structure. */
int gk_vmodel_check(gk_context *ctx, const gk_vmodel *m);
/* gamma at separation (dx, dy) (anisotropy applied); 0 at (0, 0). */
double gk_vmodel_gamma(const gk_vmodel *m, double dx, double dy);
/* gamma at isotropic distance h, ignoring anisotropy (for plots and fits). */
double gk_vmodel_gamma_h(const gk_vmodel *m, double h);
/* Total sill; 1 when every structure is bounded, else 0. */
int gk_vmodel_bounded(const gk_vmodel *m);
double gk_vmodel_sill(const gk_vmodel *m);

#endif
