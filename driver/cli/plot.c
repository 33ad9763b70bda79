/* SPDX-License-Identifier: MIT */
/*
 * plot.c - the charts' shared parts (plot.h): cairo text, ticks and axes, and
 * the file: PNG through an image surface, SVG through cairo-svg, written to
 * our own temporary (cairo's file errors do not say why: read-only, disk
 * full) and renamed when complete.
 */
#include "cli/plot.h"
#include "io/cancel_cleanup.h"
#include "io/replace_output.h"

#include <cairo-svg.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const double gk_plot_palette[8][3] = {
    {0.000, 0.447, 0.698}, {0.835, 0.369, 0.000}, {0.000, 0.620, 0.451}, {0.800, 0.475, 0.655},
    {0.337, 0.706, 0.914}, {0.902, 0.624, 0.000}, {0.941, 0.894, 0.259}, {0.000, 0.000, 0.000},
};

void gk_plot_num(double v, double step, char *buf, size_t n)
{
    int dec = step >= 1.0 ? 0 : (int)ceil(-log10(step) - 1e-9);
    if (dec > 8)
        dec = 8;
    if (fabs(v) < step * 1e-9)
        v = 0.0;
    snprintf(buf, n, "%.*f", dec, v);
}

double gk_plot_step(double span, int want)
{
    double raw = span / want;
    double p = pow(10.0, floor(log10(raw)));
    double f = raw / p;
    return (f < 1.5 ? 1.0 : f < 3.5 ? 2.0 : f < 7.5 ? 5.0 : 10.0) * p;
}

void gk_plot_text(cairo_t *cr, const char *s, double x, double y, double ax, double ay)
{
    cairo_text_extents_t e;
    cairo_text_extents(cr, s, &e);
    cairo_move_to(cr, x - ax * e.width - e.x_bearing, y - ay * e.height - e.y_bearing);
    cairo_show_text(cr, s);
}

static void widen(double *lo, double *hi, double *step)
{
    if (!(*hi > *lo)) { /* one value (or none): a unit around it */
        double c = isfinite(*lo) ? *lo : 0.0, d = fabs(c) > 0 ? fabs(c) * 0.1 : 1.0;
        *lo = c - d;
        *hi = c + d;
    }
    *step = gk_plot_step(*hi - *lo, 5);
    *lo = floor(*lo / *step) * *step;
    *hi = ceil(*hi / *step) * *step;
}

void gk_plot_panel_range(gk_plot_panel *p, double xlo, double xhi, double ylo, double yhi)
{
    widen(&xlo, &xhi, &p->xstep);
    widen(&ylo, &yhi, &p->ystep);
    p->x0 = xlo, p->x1 = xhi, p->y0 = ylo, p->y1 = yhi;
}

void gk_plot_axes(cairo_t *cr, const gk_plot_panel *p, const char *xlabel, const char *ylabel)
{
    char buf[64];
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_line_width(cr, 1.0);
    cairo_set_font_size(cr, 12.0);
    /* x labels (map coordinates: long) a step apart that leaves them room */
    double xstep = p->xstep;
    for (int k = 0; k < 8; k++) {
        cairo_text_extents_t e0, e1;
        gk_plot_num(p->x0, xstep, buf, sizeof buf);
        cairo_text_extents(cr, buf, &e0);
        gk_plot_num(p->x1, xstep, buf, sizeof buf);
        cairo_text_extents(cr, buf, &e1);
        if (xstep / (p->x1 - p->x0) * p->w >= fmax(e0.width, e1.width) + 14)
            break;
        xstep = gk_plot_step(xstep * 2.1, 1); /* the next of 1, 2, 5, 10 */
    }
    double first = ceil(p->x0 / xstep - 1e-9);
    for (double i = first; i * xstep <= p->x1 + xstep * 1e-9; i++) {
        double px = floor(gk_plot_px(p, i * xstep)) + 0.5;
        cairo_set_source_rgb(cr, 0.91, 0.91, 0.91);
        cairo_move_to(cr, px, p->y);
        cairo_line_to(cr, px, p->y + p->h);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        cairo_move_to(cr, px, p->y + p->h);
        cairo_line_to(cr, px, p->y + p->h + 5);
        cairo_stroke(cr);
        gk_plot_num(i * xstep, xstep, buf, sizeof buf);
        gk_plot_text(cr, buf, px, p->y + p->h + 9, 0.5, 0.0);
    }
    first = ceil(p->y0 / p->ystep - 1e-9);
    for (double i = first; i * p->ystep <= p->y1 + p->ystep * 1e-9; i++) {
        double py = floor(gk_plot_py(p, i * p->ystep)) + 0.5;
        cairo_set_source_rgb(cr, 0.91, 0.91, 0.91);
        cairo_move_to(cr, p->x, py);
        cairo_line_to(cr, p->x + p->w, py);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        cairo_move_to(cr, p->x - 5, py);
        cairo_line_to(cr, p->x, py);
        cairo_stroke(cr);
        gk_plot_num(i * p->ystep, p->ystep, buf, sizeof buf);
        gk_plot_text(cr, buf, p->x - 9, py, 1.0, 0.5);
    }
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    cairo_rectangle(cr, floor(p->x) + 0.5, floor(p->y) + 0.5, floor(p->w), floor(p->h));
    cairo_stroke(cr);
    cairo_set_font_size(cr, 14.0);
    gk_plot_text(cr, xlabel, p->x + p->w / 2, p->y + p->h + 48, 0.5, 1.0);
    cairo_save(cr);
    cairo_translate(cr, p->x - 62, p->y + p->h / 2);
    cairo_rotate(cr, -GK_PLOT_PI / 2);
    gk_plot_text(cr, ylabel, 0, 0, 0.5, 0.5);
    cairo_restore(cr);
}

static int has_ext(const char *path, const char *ext)
{
    size_t n = strlen(path), e = strlen(ext);
    if (n < e)
        return 0;
    for (size_t i = 0; i < e; i++) {
        char c = path[n - e + i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != ext[i])
            return 0;
    }
    return 1;
}

typedef struct {
    FILE *f;
    int err; /* errno of the first failed write */
} plot_sink;

static cairo_status_t sink_write(void *closure, const unsigned char *data, unsigned int length)
{
    plot_sink *o = closure;
    if (!o->err && fwrite(data, 1, length, o->f) != length)
        o->err = errno ? errno : EIO;
    return o->err ? CAIRO_STATUS_WRITE_ERROR : CAIRO_STATUS_SUCCESS;
}

int gk_plot_write(gk_context *ctx, const char *opt, const char *path, double w, double h,
                  gk_plot_draw_fn draw, void *user)
{
    int svg = has_ext(path, ".svg");
    if (!svg && !has_ext(path, ".png"))
        return gk_error(ctx, GK_ERR_ARG, "%s %s: the file name must end in .png or .svg", opt, path);
    /* the temporary naming that cancel and stale sweeps know (io/replace_output.h) */
    char *tmp = gk_output_temp_name(path, "", NULL);
    if (!tmp)
        return gk_error(ctx, GK_ERR_NOMEM, "out of memory");
    plot_sink out = {gk_output_open_temp(ctx, opt, path, tmp), 0};
    if (!out.f) {
        int rc = gk_errno(ctx);
        free(tmp);
        return rc;
    }
    gk_cancel_watch(tmp);
    cairo_surface_t *sf = svg ? cairo_svg_surface_create_for_stream(sink_write, &out, w, h)
                              : cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)w, (int)h);
    int rc = GK_OK;
    cairo_status_t st = cairo_surface_status(sf);
    if (st == CAIRO_STATUS_SUCCESS) {
        cairo_t *cr = cairo_create(sf);
        draw(cr, user);
        cairo_destroy(cr);
        if (svg) {
            cairo_surface_finish(sf);
            st = cairo_surface_status(sf);
        } else {
            st = cairo_surface_write_to_png_stream(sf, sink_write, &out);
        }
    }
    cairo_surface_destroy(sf);
    if (fclose(out.f) != 0 && !out.err)
        out.err = errno ? errno : EIO;
    if (st != CAIRO_STATUS_SUCCESS || out.err) {
        rc = gk_error(ctx, GK_ERR_IO, "%s %s: cannot write %s: %s", opt, path, tmp,
                      out.err ? strerror(out.err) : cairo_status_to_string(st));
        unlink(tmp);
        gk_cancel_forget(tmp);
    } else {
        rc = gk_output_commit_file(ctx, opt, tmp, path);
    }
    free(tmp);
    return rc;
}
