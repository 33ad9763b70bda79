/* SPDX-License-Identifier: MIT */
/*
 * text_number.h - a -zfield value stored as text (a CSV column, a String
 * field) read as a number, strictly: OGR's conversion would give 0 for
 * "grass" and 12 for "12 m", silently. Shared by the OGR and GeoPackage
 * readers so that both read the same text the same way.
 */
#ifndef GK_TEXT_NUMBER_H
#define GK_TEXT_NUMBER_H

#include "cpl_conv.h"

/* 1 with *v for a number (blanks around it allowed; "nan" and "inf" are
 * numbers, which the readers then skip as they skip a NaN Z), 0 for no
 * value (empty or blanks only), -1 for anything else. */
static inline int gk_text_number(const char *s, double *v)
{
    while (*s == ' ' || *s == '\t')
        s++;
    if (!*s)
        return 0;
    char *end = NULL;
    double d = CPLStrtod(s, &end);
    if (!end || end == s)
        return -1;
    while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
        end++;
    if (*end)
        return -1;
    *v = d;
    return 1;
}

#endif
