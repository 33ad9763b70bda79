/* SPDX-License-Identifier: MIT */
/*
 * ridges_dataset.cpp - `GRIDKIT:ridges ARGS` as a vector dataset (see
 * ridges_dataset.h). The arguments go through the CLI's own parser
 * (gk_ridges_options_new) and gk_ridges_compute, and the layer is made by
 * the CLI's own gk_lines_to_layer in an in-memory dataset (GDAL's "Memory"
 * driver): the same lines, fields and SRS as `gridkit ridges` writes. This
 * dataset owns that one and hands out its layer behind a read-only layer.
 */
#include "ridges_dataset.h"

#include "cpl_string.h"
#include "ogrsf_frmts.h"

#include "io/write_lines.h"
#include "lib/ridges_options.h"

#include <memory>
#include <vector>

namespace
{

/* The lines' layer, read-only: reads go to the in-memory layer, and every
 * write (features, fields, renaming) gets OGRLayer's "not supported",
 * whatever the Memory driver would allow. */
/* GDAL 3.11 made a layer's extent and spatial filter non-virtual (IGetExtent,
 * ISetSpatialFilter); 3.12 made its getters and the datasets' const. */
#if GDAL_VERSION_NUM >= GDAL_COMPUTE_VERSION(3, 12, 0)
#define GK_CONST312 const
#else
#define GK_CONST312
#endif

class GKRidgesLayer final : public OGRLayer
{
    OGRLayer *in_;
    GDALDataset *ds_;

  public:
    GKRidgesLayer(OGRLayer *in, GDALDataset *ds) : in_(in), ds_(ds) {}
    void ResetReading() override { in_->ResetReading(); }
    OGRFeature *GetNextFeature() override { return in_->GetNextFeature(); }
    OGRErr SetNextByIndex(GIntBig i) override { return in_->SetNextByIndex(i); }
    OGRFeature *GetFeature(GIntBig fid) override { return in_->GetFeature(fid); }
    GDALDataset *GetDataset() override { return ds_; }
    const char *GetName() GK_CONST312 override { return in_->GetName(); }
    OGRwkbGeometryType GetGeomType() GK_CONST312 override { return in_->GetGeomType(); }
    GK_CONST312 OGRFeatureDefn *GetLayerDefn() GK_CONST312 override
    {
        return in_->GetLayerDefn();
    }
    GK_CONST312 OGRSpatialReference *GetSpatialRef() GK_CONST312 override
    {
        return in_->GetSpatialRef();
    }
    const char *GetFIDColumn() GK_CONST312 override { return in_->GetFIDColumn(); }
    const char *GetGeometryColumn() GK_CONST312 override { return in_->GetGeometryColumn(); }
    GIntBig GetFeatureCount(int force) override { return in_->GetFeatureCount(force); }
    OGRGeometry *GetSpatialFilter() override { return in_->GetSpatialFilter(); }
#if GDAL_VERSION_NUM >= GDAL_COMPUTE_VERSION(3, 11, 0)
    OGRErr IGetExtent(int g, OGREnvelope *e, bool force) override
    {
        return in_->GetExtent(g, e, force);
    }
    OGRErr ISetSpatialFilter(int i, const OGRGeometry *g) override
    {
        return in_->SetSpatialFilter(i, g);
    }
#else
    OGRErr GetExtent(OGREnvelope *e, int force) override { return in_->GetExtent(e, force); }
    OGRErr GetExtent(int g, OGREnvelope *e, int force) override
    {
        return in_->GetExtent(g, e, force);
    }
    void SetSpatialFilter(OGRGeometry *g) override { in_->SetSpatialFilter(g); }
    void SetSpatialFilter(int i, OGRGeometry *g) override { in_->SetSpatialFilter(i, g); }
    void SetSpatialFilterRect(double x0, double y0, double x1, double y1) override
    {
        in_->SetSpatialFilterRect(x0, y0, x1, y1);
    }
    void SetSpatialFilterRect(int i, double x0, double y0, double x1, double y1) override
    {
        in_->SetSpatialFilterRect(i, x0, y0, x1, y1);
    }
#endif
    OGRErr SetAttributeFilter(const char *q) override { return in_->SetAttributeFilter(q); }
#if GDAL_VERSION_NUM >= GDAL_COMPUTE_VERSION(3, 12, 0)
    OGRErr SetIgnoredFields(CSLConstList f) override { return in_->SetIgnoredFields(f); }
#else
    OGRErr SetIgnoredFields(const char **f) override { return in_->SetIgnoredFields(f); }
#endif
    int TestCapability(const char *cap) GK_CONST312 override
    {
        for (const char *read :
             {OLCRandomRead, OLCFastSpatialFilter, OLCFastFeatureCount, OLCFastGetExtent,
              OLCFastSetNextByIndex, OLCStringsAsUTF8, OLCIgnoreFields, OLCCurveGeometries,
              OLCMeasuredGeometries, OLCZGeometries})
            if (EQUAL(cap, read))
                return in_->TestCapability(cap);
        return FALSE; /* every write */
    }
};

class GKRidgesDataset final : public GDALDataset
{
    std::unique_ptr<GDALDataset> mem_;
    std::vector<std::unique_ptr<GKRidgesLayer>> layers_;

  public:
    explicit GKRidgesDataset(GDALDataset *mem) : mem_(mem)
    {
        for (int i = 0; i < mem_->GetLayerCount(); i++)
            layers_.emplace_back(new GKRidgesLayer(mem_->GetLayer(i), this));
    }
    int GetLayerCount() GK_CONST312 override { return (int)layers_.size(); }
    GK_CONST312 OGRLayer *GetLayer(int i) GK_CONST312 override
    {
        return i >= 0 && i < (int)layers_.size() ? layers_[i].get() : nullptr;
    }
    int TestCapability(const char *) GK_CONST312 override { return FALSE; }
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
bool Compute(Context &c, std::vector<std::string> &args, const std::string &dir, const char *shown)
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

GDALDataset *GKOpenRidges(std::vector<std::string> args, const std::string &dir, const char *shown)
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
    gk_lines_layer spec = {gk_ridges_options_layer_name(c.opt), c.opt->layer_options, c.res.srs_wkt,
                           gk_ridges_method_string(c.res.method)};
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
