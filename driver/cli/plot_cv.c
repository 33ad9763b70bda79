/* SPDX-License-Identifier: MIT */
/*
 * plot_cv.c - the cross-validation chart (plot_cv.h): two panels side by
 * side in the variogram chart's style (plot.c). Left, observed against
 * predicted, one scale for both, with the 1:1 line; right, the points at
 * their places with a bubble per residual (observed - predicted, as
 * krige.cv's): blue where the prediction is below the datum, orange above,
 * the area proportional to |residual|, on an equal-scale map. Points with no
 * prediction are grey crosses on the map.
 */
#include "cli/plot_cv.h"
#include "cli/plot.h"

#include <math.h>
#include <stdio.h>

#define W 1240.0
#define H 640.0
#define RMAX 13.0 /* the largest bubble's radius */

typedef struct {
    const gk_cv_result *res;
    const char *title, *subtitle;
} cv_plot;

static void dot(cairo_t *cr, double x, double y, double r, const double *c, double alpha)
{
    cairo_new_path(cr);
    cairo_arc(cr, x, y, r, 0, 2 * GK_PLOT_PI);
    cairo_set_source_rgba(cr, c[0], c[1], c[2], alpha);
    cairo_fill_preserve(cr);
    cairo_set_source_rgb(cr, c[0] * 0.7, c[1] * 0.7, c[2] * 0.7);
    cairo_set_line_width(cr, 0.8);
    cairo_stroke(cr);
}

static void scatter(cairo_t *cr, const gk_cv_result *r)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < r->n; i++)
        if (isfinite(r->predicted[i])) {
            lo = fmin(lo, fmin(r->observed[i], r->predicted[i]));
            hi = fmax(hi, fmax(r->observed[i], r->predicted[i]));
        }
    gk_plot_panel p = {90, 80, 470, 470, 0, 0, 0, 0, 0, 0};
    gk_plot_panel_range(&p, lo, hi, lo, hi);
    /* one scale for both axes: the wider of the two ranges */
    p.x0 = p.y0 = fmin(p.x0, p.y0), p.x1 = p.y1 = fmax(p.x1, p.y1);
    p.xstep = p.ystep = fmax(p.xstep, p.ystep);
    gk_plot_axes(cr, &p, "observed", "predicted");
    cairo_save(cr);
    cairo_rectangle(cr, p.x, p.y, p.w, p.h);
    cairo_clip(cr);
    double dash[] = {6.0, 4.0};
    cairo_set_dash(cr, dash, 2, 0);
    cairo_set_line_width(cr, 1.4);
    cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
    cairo_move_to(cr, gk_plot_px(&p, p.x0), gk_plot_py(&p, p.y0));
    cairo_line_to(cr, gk_plot_px(&p, p.x1), gk_plot_py(&p, p.y1));
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
    for (size_t i = 0; i < r->n; i++)
        if (isfinite(r->predicted[i]))
            dot(cr, gk_plot_px(&p, r->observed[i]), gk_plot_py(&p, r->predicted[i]), 3.6,
                gk_plot_palette[0], 0.75);
    cairo_restore(cr);
    cairo_set_font_size(cr, 12.0);
    cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
    gk_plot_text(cr, "1:1", p.x + p.w - 6, p.y + 8, 1.0, 0.0);
}

static void bubbles(cairo_t *cr, const gk_cv_result *r)
{
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY, amax = 0;
    for (size_t i = 0; i < r->n; i++) {
        x0 = fmin(x0, r->x[i]), x1 = fmax(x1, r->x[i]);
        y0 = fmin(y0, r->y[i]), y1 = fmax(y1, r->y[i]);
        if (isfinite(r->residual[i]))
            amax = fmax(amax, fabs(r->residual[i]));
    }
    /* a map: one scale in x and y, the panel shrunk to the data's shape */
    gk_plot_panel p = {700, 80, 470, 470, 0, 0, 0, 0, 0, 0};
    double mx = (x1 - x0) * 0.04 + 1e-9, my = (y1 - y0) * 0.04 + 1e-9;
    gk_plot_panel_range(&p, x0 - mx, x1 + mx, y0 - my, y1 + my);
    double sx = (p.x1 - p.x0) / p.w, sy = (p.y1 - p.y0) / p.h, s = fmax(sx, sy);
    double w = (p.x1 - p.x0) / s, h = (p.y1 - p.y0) / s;
    p.x += (p.w - w) / 2, p.y += (p.h - h) / 2, p.w = w, p.h = h;
    gk_plot_axes(cr, &p, "x", "y");
    cairo_save(cr);
    cairo_rectangle(cr, p.x, p.y, p.w, p.h);
    cairo_clip(cr);
    for (size_t i = 0; i < r->n; i++) {
        double px = gk_plot_px(&p, r->x[i]), py = gk_plot_py(&p, r->y[i]);
        if (!isfinite(r->residual[i])) {
            cairo_set_source_rgb(cr, 0.55, 0.55, 0.55);
            cairo_set_line_width(cr, 1.2);
            cairo_move_to(cr, px - 3, py - 3), cairo_line_to(cr, px + 3, py + 3);
            cairo_move_to(cr, px - 3, py + 3), cairo_line_to(cr, px + 3, py - 3);
            cairo_stroke(cr);
            continue;
        }
        double rad = amax > 0 ? RMAX * sqrt(fabs(r->residual[i]) / amax) : 2.0;
        dot(cr, px, py, fmax(rad, 1.2), gk_plot_palette[r->residual[i] >= 0 ? 0 : 1], 0.55);
    }
    cairo_restore(cr);
    /* legend: the two signs at the largest size */
    char buf[96];
    cairo_set_font_size(cr, 12.0);
    double ly = 62;
    dot(cr, 712, ly, 5.0, gk_plot_palette[0], 0.55);
    cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
    gk_plot_text(cr, "observed > predicted", 722, ly, 0.0, 0.5);
    dot(cr, 882, ly, 5.0, gk_plot_palette[1], 0.55);
    cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
    gk_plot_text(cr, "observed < predicted", 892, ly, 0.0, 0.5);
    snprintf(buf, sizeof buf, "largest |residual| %.4g", amax);
    gk_plot_text(cr, buf, 1180, ly, 1.0, 0.5);
}

static void draw(cairo_t *cr, void *user)
{
    const cv_plot *c = user;
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
    cairo_set_font_size(cr, 17.0);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    gk_plot_text(cr, c->title ? c->title : "Cross-validation", 90, 14, 0.0, 0.0);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    if (c->subtitle) {
        cairo_set_font_size(cr, 13.0);
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        gk_plot_text(cr, c->subtitle, 90, 38, 0.0, 0.0);
    }
    scatter(cr, c->res);
    bubbles(cr, c->res);
}

int gk_plot_cv(gk_context *ctx, const char *path, const gk_cv_result *res, const char *title,
               const char *subtitle)
{
    cv_plot c = {res, title, subtitle};
    return gk_plot_write(ctx, "--plot", path, W, H, draw, &c);
}
