/* SPDX-License-Identifier: MIT */
/* plot.h - what the charts of `gridkit variogram --plot` and `gridkit cv
 * --plot` share (plot.c): the palette, text, "nice" ticks, a panel's axes,
 * and writing a PNG or SVG under a temporary name renamed when complete. */
#ifndef GK_PLOT_H
#define GK_PLOT_H

#include "gridkit.h"

#include <cairo.h>
#include <stddef.h>

#define GK_PLOT_PI 3.14159265358979323846

/* colour-blind-safe palette (Okabe & Ito) */
extern const double gk_plot_palette[8][3];

/* v as a tick label for ticks step apart (as many decimals as step needs). */
void gk_plot_num(double v, double step, char *buf, size_t n);
/* A 1-2-5 step giving about `want` intervals over a span. */
double gk_plot_step(double span, int want);
/* s at (x, y), anchored by (ax, ay) in [0, 1] of its extents. */
void gk_plot_text(cairo_t *cr, const char *s, double x, double y, double ax, double ay);

/* A panel: its rectangle on the page and the data range it shows. */
typedef struct {
    double x, y, w, h;      /* on the page */
    double x0, x1, y0, y1;  /* data shown, x0 < x1, y0 < y1 */
    double xstep, ystep;    /* ticks */
} gk_plot_panel;
/* Ticks on [lo, hi] widened to whole steps; equal: 1 either side. */
void gk_plot_panel_range(gk_plot_panel *p, double xlo, double xhi, double ylo, double yhi);
static inline double gk_plot_px(const gk_plot_panel *p, double v)
{
    return p->x + (v - p->x0) / (p->x1 - p->x0) * p->w;
}
static inline double gk_plot_py(const gk_plot_panel *p, double v)
{
    return p->y + p->h - (v - p->y0) / (p->y1 - p->y0) * p->h;
}
/* Grid lines, ticks, labels, frame and axis titles of a panel. */
void gk_plot_axes(cairo_t *cr, const gk_plot_panel *p, const char *xlabel, const char *ylabel);

/* Writes path (.png or .svg, by extension; opt names the option for
 * messages) of w x h points, drawn by draw(cr, user), under a temporary name
 * renamed when complete. */
typedef void (*gk_plot_draw_fn)(cairo_t *cr, void *user);
int gk_plot_write(gk_context *ctx, const char *opt, const char *path, double w, double h,
                  gk_plot_draw_fn draw, void *user);

#endif
