/* SPDX-License-Identifier: MIT */
/*
 * plot_variogram.c - variogram chart with cairo: sample points labelled with
 * their pair counts, the model curve, axes with "nice" ticks; one colour per
 * direction; the file is written by plot.c.
 */
#include "cli/plot_variogram.h"
#include "cli/plot.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define W 880.0
#define H 600.0
#define ML 88.0 /* margins: left, right, top, bottom */
#define MR 36.0
#define MT 72.0
#define MB 70.0

void gk_vmodel_describe(const gk_vmodel *m, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; m && i < m->n && len < size; i++) {
        const gk_vm_structure *s = &m->s[i];
        int k;
        if (s->type == GK_VM_NUG)
            k = snprintf(buf + len, size - len, "%s%.4g Nug", i ? " + " : "", s->psill);
        else if (s->type == GK_VM_MAT || s->type == GK_VM_STE || s->type == GK_VM_EXC)
            k = snprintf(buf + len, size - len, "%s%.4g %s(%.4g, \xce\xba=%.3g)", i ? " + " : "",
                         s->psill, gk_vm_type_name(s->type), s->range, s->kappa);
        else
            k = snprintf(buf + len, size - len, "%s%.4g %s(%.4g)", i ? " + " : "", s->psill,
                         gk_vm_type_name(s->type), s->range);
        if (k < 0)
            break;
        len += (size_t)k;
        if (len < size && s->anis_ratio != 1.0) {
            k = snprintf(buf + len, size - len, " anis(%.4g\xc2\xb0, %.3g)", s->anis_angle,
                         s->anis_ratio);
            if (k > 0)
                len += (size_t)k;
        }
    }
}

static void draw(cairo_t *cr, const gk_vgm *v, const gk_vmodel *m, const char *subtitle)
{
    /* data ranges */
    double xmax = v->cutoff, ymax = 0.0;
    for (size_t q = 0; q < (size_t)v->ndir * v->nlags; q++)
        if (v->np[q] > 0) {
            if (v->dist[q] > xmax)
                xmax = v->dist[q];
            if (v->gamma[q] > ymax)
                ymax = v->gamma[q];
        }
    if (m)
        for (int i = 0; i <= 200; i++) {
            double g = gk_vmodel_gamma_h(m, xmax * i / 200.0);
            if (isfinite(g) && g > ymax)
                ymax = g;
        }
    if (!(xmax > 0.0))
        xmax = 1.0;
    if (!(ymax > 0.0))
        ymax = 1.0;
    double xs = gk_plot_step(xmax, 6), ys = gk_plot_step(ymax * 1.08, 6);
    double xhi = ceil(xmax * 1.0001 / xs) * xs, yhi = ceil(ymax * 1.08 / ys) * ys;
    double pw = W - ML - MR, ph = H - MT - MB;
#define PX(d) (ML + (d) / xhi * pw)
#define PY(g) (MT + ph - (g) / yhi * ph)

    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);

    /* grid and ticks */
    char buf[64];
    cairo_set_line_width(cr, 1.0);
    cairo_set_font_size(cr, 13.0);
    for (int i = 0; i * xs <= xhi * (1 + 1e-9); i++) {
        double px = floor(PX(i * xs)) + 0.5;
        cairo_set_source_rgb(cr, 0.91, 0.91, 0.91);
        cairo_move_to(cr, px, MT);
        cairo_line_to(cr, px, MT + ph);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        cairo_move_to(cr, px, MT + ph);
        cairo_line_to(cr, px, MT + ph + 5);
        cairo_stroke(cr);
        gk_plot_num(i * xs, xs, buf, sizeof buf);
        gk_plot_text(cr, buf, px, MT + ph + 9, 0.5, 0.0);
    }
    for (int i = 0; i * ys <= yhi * (1 + 1e-9); i++) {
        double py = floor(PY(i * ys)) + 0.5;
        cairo_set_source_rgb(cr, 0.91, 0.91, 0.91);
        cairo_move_to(cr, ML, py);
        cairo_line_to(cr, ML + pw, py);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        cairo_move_to(cr, ML - 5, py);
        cairo_line_to(cr, ML, py);
        cairo_stroke(cr);
        gk_plot_num(i * ys, ys, buf, sizeof buf);
        gk_plot_text(cr, buf, ML - 9, py, 1.0, 0.5);
    }
    /* frame */
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    cairo_rectangle(cr, floor(ML) + 0.5, floor(MT) + 0.5, floor(pw), floor(ph));
    cairo_stroke(cr);

    /* axis labels */
    cairo_set_font_size(cr, 15.0);
    gk_plot_text(cr, "distance", ML + pw / 2, H - 22, 0.5, 1.0);
    cairo_save(cr);
    cairo_translate(cr, 24, MT + ph / 2);
    cairo_rotate(cr, -GK_PLOT_PI / 2);
    gk_plot_text(cr, "semivariance", 0, 0, 0.5, 0.5);
    cairo_restore(cr);

    /* title */
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
    cairo_set_font_size(cr, 17.0);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    gk_plot_text(cr, m ? "Sample variogram and model" : "Sample variogram", ML, 18, 0.0, 0.0);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, 13.0);
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    char desc[512];
    if (m) {
        gk_vmodel_describe(m, desc, sizeof desc);
        char line[700];
        snprintf(line, sizeof line, "%s%s%s", desc, subtitle ? "    " : "",
                 subtitle ? subtitle : "");
        gk_plot_text(cr, line, ML, 44, 0.0, 0.0);
    } else if (subtitle) {
        gk_plot_text(cr, subtitle, ML, 44, 0.0, 0.0);
    }

    cairo_rectangle(cr, ML, MT, pw, ph);
    cairo_save(cr);
    cairo_clip(cr);
    int directional = v->azimuth && isfinite(v->azimuth[0]);
    for (int a = 0; a < v->ndir; a++) {
        const double *c = gk_plot_palette[a % 8];
        if (!directional && v->ndir == 1)
            c = gk_plot_palette[0];
        /* model curve, along the direction when the model is anisotropic */
        if (m && (a == 0 || directional)) {
            double az = directional ? v->azimuth[a] : 0.0;
            double ex = sin(az * GK_PLOT_PI / 180.0), ey = cos(az * GK_PLOT_PI / 180.0);
            cairo_set_line_width(cr, 2.2);
            if (directional)
                cairo_set_source_rgba(cr, c[0], c[1], c[2], 0.85);
            else
                cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
            int started = 0;
            for (int i = 1; i <= 600; i++) {
                double d = xhi * i / 600.0;
                double g = gk_vmodel_gamma(m, ex * d, ey * d);
                if (!isfinite(g))
                    continue;
                if (!started) {
                    /* the nugget jump: start at the first h > 0 */
                    cairo_move_to(cr, PX(d), PY(g));
                    started = 1;
                } else {
                    cairo_line_to(cr, PX(d), PY(g));
                }
            }
            cairo_stroke(cr);
        }
    }
    cairo_restore(cr);
    for (int a = 0; a < v->ndir; a++) {
        const double *c = gk_plot_palette[a % 8];
        for (int k = 0; k < v->nlags; k++) {
            size_t q = (size_t)a * v->nlags + k;
            if (!(v->np[q] > 0))
                continue;
            double px = PX(v->dist[q]), py = PY(v->gamma[q]);
            cairo_new_path(cr); /* no segment from the last label */
            cairo_arc(cr, px, py, 4.6, 0, 2 * GK_PLOT_PI);
            cairo_set_source_rgb(cr, c[0], c[1], c[2]);
            cairo_fill_preserve(cr);
            cairo_set_source_rgb(cr, 1, 1, 1);
            cairo_set_line_width(cr, 1.0);
            cairo_stroke(cr);
            snprintf(buf, sizeof buf, "%.0f", v->np[q]);
            cairo_set_font_size(cr, 10.5);
            cairo_set_source_rgb(cr, c[0] * 0.75, c[1] * 0.75, c[2] * 0.75);
            gk_plot_text(cr, buf, px + 6, py - 5, 0.0, 1.0);
        }
    }
    /* legend for directions: one row at the top right, outside the data */
    if (directional) {
        cairo_set_font_size(cr, 12.5);
        double wsum = 0.0, item[GK_VGM_MAX_DIRECTIONS];
        for (int a = 0; a < v->ndir; a++) {
            cairo_text_extents_t e;
            snprintf(buf, sizeof buf, "%g\xc2\xb0", v->azimuth[a]);
            cairo_text_extents(cr, buf, &e);
            item[a] = 16 + e.x_advance + 14;
            wsum += item[a];
        }
        double lx = ML + pw - wsum + 10, yy = 24;
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        gk_plot_text(cr, "azimuth:", lx - 8, yy, 1.0, 0.5);
        for (int a = 0; a < v->ndir; a++) {
            const double *c = gk_plot_palette[a % 8];
            cairo_new_path(cr);
            cairo_set_source_rgb(cr, c[0], c[1], c[2]);
            cairo_arc(cr, lx + 5, yy, 4.6, 0, 2 * GK_PLOT_PI);
            cairo_fill(cr);
            cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
            snprintf(buf, sizeof buf, "%g\xc2\xb0", v->azimuth[a]);
            gk_plot_text(cr, buf, lx + 14, yy, 0.0, 0.5);
            lx += item[a];
        }
    }
#undef PX
#undef PY
}

typedef struct {
    const gk_vgm *v;
    const gk_vmodel *m;
    const char *subtitle;
} vgm_plot;

static void draw_vgm(cairo_t *cr, void *user)
{
    const vgm_plot *p = user;
    draw(cr, p->v, p->m, p->subtitle);
}

int gk_plot_variogram(gk_context *ctx, const char *path, const gk_vgm *v, const gk_vmodel *m,
                      const char *subtitle)
{
    vgm_plot p = {v, m, subtitle};
    return gk_plot_write(ctx, "--plot", path, W, H, draw_vgm, &p);
}
