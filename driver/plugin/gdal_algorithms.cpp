/* SPDX-License-Identifier: MIT */
/*
 * gdal_algorithms.cpp - gridkit's commands in GDAL's own command line, where
 * the GDAL the plugin is built against lets a driver declare algorithms
 * (RFC 104's registry; CMake's check sets GK_GDAL_ALGORITHMS):
 *
 *   gdal driver gridkit grid   INPUT OUTPUT -a invdistnn:radius=400 [--size X Y] ...
 *   gdal driver gridkit ridges INPUT OUTPUT -a density [-f GPKG] ...
 *
 * Each builds the argument list of `gridkit grid` / `gridkit ridges` and
 * runs the same library call (driver/lib/gridkit_lib.h), so the output is
 * the command's, byte for byte; GDAL's progress and errors are used.
 * `--extra` passes any other gdal_grid-style argument verbatim.
 */
#include "gdal_algorithms.h"

#ifdef GK_GDAL_ALGORITHMS

#include "gdalalgorithm.h"
#include "gdal_priv.h"

#include "gridkit.h"
#include "lib/gridkit_lib.h"

#include <cstdio>
#include <string>
#include <vector>

namespace
{

/* What both commands share: the source options, and running an argument
 * list through the library (GDAL's progress on it, its error as GDAL's). */
class Command : public GDALAlgorithm
{
  protected:
    std::string m_layer, m_where, m_sql, m_zfield, m_device;
    std::vector<std::string> m_open_options, m_extra;
    int m_threads = 0;

    Command(const char *name, const char *description) : GDALAlgorithm(name, description, "") {}

    void DeclareSource()
    {
        AddArg("layer", 'l', "the layer of the points (default: the first)", &m_layer);
        AddArg("where", 0, "an attribute filter on the points", &m_where);
        AddArg("sql", 0, "an SQL statement giving the points", &m_sql);
        AddArg("zfield", 'z', "the field holding the values (default: the geometry's Z)",
               &m_zfield);
        AddArg("open-option", 0, "an open option of the source (NAME=VALUE)", &m_open_options)
            .SetMetaVar("<NAME>=<VALUE>");
        AddArg("threads", 0, "threads (default: every core)", &m_threads);
        AddArg("device", 0, "auto, cpu, cuda or cuda:N (default auto)", &m_device);
        AddArg("extra", 0, "a further argument of the gridkit command, verbatim (repeat for each)",
               &m_extra)
            .SetMetaVar("<ARG>");
    }

    void AppendSource(std::vector<std::string> &v) const
    {
        if (!m_layer.empty())
            v.insert(v.end(), {"-l", m_layer});
        if (!m_where.empty())
            v.insert(v.end(), {"-where", m_where});
        if (!m_sql.empty())
            v.insert(v.end(), {"-sql", m_sql});
        if (!m_zfield.empty())
            v.insert(v.end(), {"-zfield", m_zfield});
        for (const auto &oo : m_open_options)
            v.insert(v.end(), {"-oo", oo});
        if (m_threads > 0)
            v.insert(v.end(), {"--threads", std::to_string(m_threads)});
        if (!m_device.empty())
            v.insert(v.end(), {"--device", m_device});
        v.push_back("-q"); /* GDAL's progress, not the command's */
        v.insert(v.end(), m_extra.begin(), m_extra.end());
    }

    template <typename Options, typename MakeFn, typename ProgressFn, typename RunFn,
              typename FreeFn>
    bool Run(const char *what, std::vector<std::string> &args, MakeFn make,
             ProgressFn set_progress, RunFn run, FreeFn free_options, GDALProgressFunc pfn,
             void *pdata)
    {
        std::vector<char *> argv;
        for (auto &a : args)
            argv.push_back(a.data());
        argv.push_back(nullptr);
        gk_context *ctx = gk_context_new();
        if (!ctx) {
            ReportError(CE_Failure, CPLE_OutOfMemory, "out of memory");
            return false;
        }
        Options *o = make(ctx, static_cast<int>(args.size()), argv.data());
        int rc = o ? GK_OK : gk_errno(ctx);
        if (o) {
            if (pfn)
                set_progress(o, pfn, pdata);
            rc = run(ctx, o);
            free_options(o);
        }
        if (rc != GK_OK)
            ReportError(CE_Failure, CPLE_AppDefined, "gridkit %s: %s", what, gk_errmsg(ctx));
        gk_context_free(ctx);
        return rc == GK_OK;
    }
};

std::string num(double v)
{
    char b[40];
    std::snprintf(b, sizeof b, "%.17g", v);
    return b;
}

class GridAlgorithm final : public Command
{
  public:
    GridAlgorithm()
        : Command("grid", "Grid scattered points into a raster (gridkit grid: gdal_grid's "
                          "algorithms and more)")
    {
        AddArg("input", 'i', "the points: any OGR vector source, or XYZ text", &m_input)
            .SetPositional()
            .SetRequired();
        AddArg("output", 'o', "the raster written", &m_output).SetPositional().SetRequired();
        AddArg("algorithm", 'a', "the algorithm and its keys, as gridkit grid -a", &m_alg)
            .SetRequired();
        AddOutputFormatArg(&m_format);
        AddArg("creation-option", 0, "a creation option of the raster (NAME=VALUE)", &m_co)
            .SetMetaVar("<NAME>=<VALUE>");
        AddArg("output-data-type", 0, "Byte, Int16, ..., Float32, Float64 (default Float64)",
               &m_type);
        AddArg("bbox", 0, "the grid's extent: xmin,ymin,xmax,ymax (default: the points')",
               &m_bbox)
            .SetMinCount(4)
            .SetMaxCount(4)
            .SetRepeatedArgAllowed(false);
        AddArg("size", 0, "columns,rows (default 256,256)", &m_size)
            .SetMinCount(2)
            .SetMaxCount(2)
            .SetRepeatedArgAllowed(false);
        AddArg("resolution", 0, "the pixel size: xres,yres", &m_res)
            .SetMinCount(2)
            .SetMaxCount(2)
            .SetRepeatedArgAllowed(false);
        DeclareSource();
    }

  protected:
    bool RunImpl(GDALProgressFunc pfn, void *pdata) override
    {
        std::vector<std::string> v = {"-a", m_alg};
        if (!m_format.empty())
            v.insert(v.end(), {"-of", m_format});
        for (const auto &c : m_co)
            v.insert(v.end(), {"-co", c});
        if (!m_type.empty())
            v.insert(v.end(), {"-ot", m_type});
        if (m_bbox.size() == 4)
            v.insert(v.end(), {"-txe", num(m_bbox[0]), num(m_bbox[2]), "-tye", num(m_bbox[1]),
                               num(m_bbox[3])});
        if (m_size.size() == 2)
            v.insert(v.end(),
                     {"-outsize", std::to_string(m_size[0]), std::to_string(m_size[1])});
        if (m_res.size() == 2)
            v.insert(v.end(), {"-tr", num(m_res[0]), num(m_res[1])});
        AppendSource(v);
        v.insert(v.end(), {m_input, m_output});
        return Run<gk_grid_options>("grid", v, gk_grid_options_new, gk_grid_options_set_progress,
                                    gk_grid_run, gk_grid_options_free, pfn, pdata);
    }

  private:
    std::string m_input, m_output, m_alg, m_format, m_type;
    std::vector<std::string> m_co;
    std::vector<double> m_bbox, m_res;
    std::vector<int> m_size;
};

class RidgesAlgorithm final : public Command
{
  public:
    RidgesAlgorithm() : Command("ridges", "Ridge lines of a point cloud (gridkit ridges)")
    {
        AddArg("input", 'i', "the points: any OGR vector source, or XYZ text", &m_input)
            .SetPositional()
            .SetRequired();
        AddArg("output", 'o', "the lines written", &m_output).SetPositional().SetRequired();
        AddArg("method", 'a', "curve or density and their keys, as gridkit ridges -a", &m_method)
            .SetRequired();
        AddOutputFormatArg(&m_format);
        AddArg("layer-creation-option", 0, "a layer creation option (NAME=VALUE)", &m_lco)
            .SetMetaVar("<NAME>=<VALUE>");
        AddArg("output-layer", 0, "the layer's name (default ridges)", &m_nln);
        AddArg("3d", 0, "z as the third coordinate: LineStringZ out", &m_3d);
        DeclareSource();
    }

  protected:
    bool RunImpl(GDALProgressFunc pfn, void *pdata) override
    {
        std::vector<std::string> v = {m_input, m_output, "-a", m_method};
        if (!m_format.empty())
            v.insert(v.end(), {"-of", m_format});
        for (const auto &c : m_lco)
            v.insert(v.end(), {"-lco", c});
        if (!m_nln.empty())
            v.insert(v.end(), {"-nln", m_nln});
        if (m_3d)
            v.push_back("--3d");
        AppendSource(v);
        return Run<gk_ridges_options>("ridges", v, gk_ridges_options_new,
                                      gk_ridges_options_set_progress, gk_ridges_run,
                                      gk_ridges_options_free, pfn, pdata);
    }

  private:
    std::string m_input, m_output, m_method, m_format, m_nln;
    std::vector<std::string> m_lco;
    bool m_3d = false;
};

GDALAlgorithm *instantiate(const std::vector<std::string> &path)
{
    if (path.size() == 1 && path[0] == "grid")
        return new GridAlgorithm();
    if (path.size() == 1 && path[0] == "ridges")
        return new RidgesAlgorithm();
    return nullptr;
}

} // namespace

void gk_gdal_declare_algorithms(GDALDriver *d)
{
    d->pfnInstantiateAlgorithm = instantiate;
    d->DeclareAlgorithm({"grid"});
    d->DeclareAlgorithm({"ridges"});
}

#else

void gk_gdal_declare_algorithms(GDALDriver *) {}

#endif
