/*
 * ridges_dataset.cpp - `GRIDKIT:ridges ARGS` as a vector dataset (see
 * ridges_dataset.h). The arguments go through the CLI's own parser
 * (gk_ridges_options_new) and gk_ridges_compute, and the layer is made by
 * the CLI's own gk_lines_to_layer in an in-memory dataset (GDAL's "Memory"
 * driver): the same lines, fields and SRS as `gridkit ridges` writes. This
 * dataset owns that one and hands out its layer, read-only.
 */
#include "ridges_dataset.h"

#include "cpl_string.h"

#include "io/write_lines.h"
#include "lib/ridges_options.h"

#include <memory>

namespace
{

class GKRidgesDataset final : public GDALDataset
{
    std::unique_ptr<GDALDataset> mem_;

  public:
    explicit GKRidgesDataset(GDALDataset *mem) : mem_(mem) {}
    int GetLayerCount() override { return mem_->GetLayerCount(); }
    OGRLayer *GetLayer(int i) override { return mem_->GetLayer(i); }
    int TestCapability(const char *) override { return FALSE; }
};

struct Context {
    gk_context *ctx = gk_context_new();
    gk_ridges_options *opt = nullptr;
    gk_ridges_result res{};
    ~Context()
    {
        gk_ridges_result_free(&res);
        gk_ridges_options_free(opt);
        gk_context_free(ctx);
    }
};

/* A relative path that exists relative to dir, made absolute. */
void Resolve(const std::string &dir, char **path)
{
    if (!*path || dir.empty() || !CPLIsFilenameRelative(*path))
        return;
    std::string p = CPLFormFilename(dir.c_str(), *path, nullptr);
    VSIStatBufL st;
    if (VSIStatL(p.c_str(), &st) == 0) {
        CPLFree(*path);
        *path = CPLStrdup(p.c_str());
    }
}

bool Fail(CPLErrorNum num, const char *fmt, const char *a, const char *b)
{
    CPLError(CE_Failure, num, fmt, a, b);
    return false;
}

/* Parses, checks and computes; false and a CPLError otherwise. */
bool Compute(Context &c, std::vector<std::string> &args, const std::string &dir,
             const char *shown)
{
    if (!c.ctx)
        return Fail(CPLE_OutOfMemory, "GRIDKIT: out of memory%s%s", "", "");
    std::vector<char *> argv;
    for (auto &a : args)
        argv.push_back(&a[0]);
    argv.push_back(nullptr);
    c.opt = gk_ridges_options_new(c.ctx, (int)args.size(), argv.data());
    if (!c.opt)
        return Fail(CPLE_IllegalArg, "GRIDKIT: %s (in '%s')", gk_errmsg(c.ctx), shown);
    if (c.opt->src->dst)
        return Fail(CPLE_IllegalArg,
                    "GRIDKIT: '%s' is a second positional argument: a GRIDKIT:ridges dataset has "
                    "no output name (in '%s')",
                    c.opt->src->dst, shown);
    Resolve(dir, &c.opt->src->src);
    Resolve(dir, &c.opt->src->clipsrc);
    if (gk_ridges_compute(c.ctx, c.opt, &c.res))
        return Fail(CPLE_AppDefined, "GRIDKIT: %s (in '%s')", gk_errmsg(c.ctx), shown);
    if (c.res.lines->warning)
        CPLError(CE_Warning, CPLE_AppDefined, "GRIDKIT: %s", c.res.lines->warning);
    CPLDebug("GRIDKIT", "ridges: %zu lines from %zu points on %s", c.res.lines->n_lines,
             c.res.n_points, c.res.device);
    return true;
}

} // namespace

GDALDataset *GKOpenRidges(std::vector<std::string> args, const std::string &dir,
                          const char *shown)
{
    Context c;
    if (!Compute(c, args, dir, shown))
        return nullptr;
    GDALDriver *memdrv = GetGDALDriverManager()->GetDriverByName("Memory");
    GDALDataset *mem = memdrv ? memdrv->Create("", 0, 0, 0, GDT_Unknown, nullptr) : nullptr;
    if (!mem) {
        CPLError(CE_Failure, CPLE_AppDefined, "GRIDKIT: GDAL's Memory driver is missing");
        return nullptr;
    }
    gk_lines_layer spec = {gk_ridges_options_layer_name(c.opt), c.opt->layer_options,
                           c.res.srs_wkt, gk_ridges_method_string(c.res.method)};
    if (gk_lines_to_layer(c.ctx, GDALDataset::ToHandle(mem), &spec, c.res.lines)) {
        CPLError(CE_Failure, CPLE_AppDefined, "GRIDKIT: %s (in '%s')", gk_errmsg(c.ctx), shown);
        delete mem;
        return nullptr;
    }
    auto *ds = new GKRidgesDataset(mem);
    ds->SetMetadataItem("GRIDKIT_METHOD", gk_ridges_method_string(c.res.method));
    ds->SetMetadataItem("GRIDKIT_DEVICE", c.res.device);
    return ds;
}
