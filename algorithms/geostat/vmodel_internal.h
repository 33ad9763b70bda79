/* SPDX-License-Identifier: MIT */
/* vmodel_internal.h - pieces of vmodel.c shared with the fit and the tests. */
#ifndef GK_VMODEL_INTERNAL_H
#define GK_VMODEL_INTERNAL_H

#include "gridkit_geostat.h"

/* Modified Bessel function of the second kind K_nu(x), nu real, x > 0
 * (no external library); the _scaled form returns e^x K_nu(x). */
double gk_bessel_k(double nu, double x);
double gk_bessel_k_scaled(double nu, double x);

/* Unit-sill model function of structure s at distance h with range `range`. */
double gk_vm_unit(const gk_vm_structure *s, double h, double range);
/* Its derivative with respect to the range, as gstat's fit uses it. */
double gk_vm_unit_drange(const gk_vm_structure *s, double h, double range);
/* Separation (dx, dy) after the structure's anisotropy transform. */
double gk_vm_distance(const gk_vm_structure *s, double dx, double dy);
/* 0 for Pow and Lin without range (no sill). */
int gk_vm_structure_bounded(const gk_vm_structure *s);

#endif
