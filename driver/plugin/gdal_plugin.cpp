/* SPDX-License-Identifier: MIT */
/*
 * gdal_plugin.cpp - the GDAL driver "GRIDKIT" (built as gdal_GRIDKIT.so):
 * a gridkit grid that every GDAL program, GDAL's Python bindings and QGIS
 * open like any raster, computed block by block when read.
 *
 * Open strings:
 *   GRIDKIT:<the arguments of `gridkit grid`, without the output name>
 *   file.gridkit   a text file holding the same arguments ('#' starts a
 *                  comment line; relative paths are taken from its folder;
 *                  UTF-8, a byte order mark first skipped: gk_job_file_split)
 * The arguments are split like a POSIX shell splits words, without any
 * expansion (gk_job_args_split in lib/job_args.c): blanks separate words, '...'
 * keeps everything literally, "..." keeps everything but \" and \\, and a
 * backslash outside quotes keeps the next character.
 *
 * The arguments go through the CLI's own parser (gk_grid_options_new) and
 * gk_grid_plan, so the dataset is the raster `gridkit grid` would write,
 * pixel for pixel. Opening reads the points (the extent may depend on them)
 * but grids nothing; the jobs (spatial index, kriging set-up) are built at
 * the first read. Every block is one gk_job_compute_window() call; a read of
 * a large window computes its missing blocks on several threads first.
 * Overviews (factors 2, 4, 8, ...) compute the surface at their own
 * resolution. The points and jobs are shared by every handle opened on the
 * same arguments (QGIS opens several).
 *
 * `GRIDKIT:ridges ARGS` (or a .gridkit file starting with the word ridges)
 * is a vector dataset instead: the lines of `gridkit ridges`, computed on
 * open (ridges_dataset.cpp).
 *
 * Registration does no I/O, starts no thread and touches no GPU: the plugin
 * is loaded by every GDAL process.
 */
#include "gdal_priv.h"

#include "cpl_string.h"
#include "cpl_vsi.h"
#include "ogr_spatialref.h"

#include "io/write_raster.h"
#include "lib/grid_plan.h"
#include "lib/job_args.h"
#include "gdal_algorithms.h"
#include "ridges_dataset.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace
{

const int kBlock = 256; /* block size, and the overview floor */
const char *const kPrefix = "GRIDKIT:";

/* Text for a message: control characters and bytes of invalid UTF-8 as
 * '?', at most max bytes then "...", so that a binary file or a string with
 * escape sequences is never echoed raw to the terminal. */
std::string Printable(const std::string &s, size_t max = 240)
{
    std::string out;
    size_t i = 0;
    while (i < s.size() && out.size() < max) {
        unsigned cp = 0;
        size_t len = gk_utf8_next(s.data() + i, s.size() - i, &cp);
        if (!len || cp < 32 || (cp >= 127 && cp < 160))
            out += '?';
        else
            out.append(s, i, len);
        i += len ? len : 1;
    }
    if (i < s.size())
        out += "...";
    return out;
}

/* A relative path that exists relative to dir, made absolute; else as is. */
std::string Resolve(const std::string &dir, const char *path)
{
    if (!path || !*path || dir.empty() || !CPLIsFilenameRelative(path))
        return path ? path : "";
    std::string p = CPLFormFilename(dir.c_str(), path, nullptr);
    VSIStatBufL st;
    return VSIStatL(p.c_str(), &st) == 0 ? p : std::string(path);
}

void ReplaceString(char **field, const std::string &v)
{
    if (*field && v != *field) {
        CPLFree(*field);
        *field = CPLStrdup(v.c_str());
    }
}

/* variogram=FILE and drift_raster=FILE inside -a, relative to dir. */
/* The folder may hold ':', which separates the keys: a path that does is
 * written in double quotes, as the kriging parser reads it. */
std::string ResolveAlgorithmPaths(const std::string &dir, const char *alg)
{
    std::string out;
    char **tok = CSLTokenizeString2(alg, ":",
                                    CSLT_ALLOWEMPTYTOKENS | CSLT_HONOURSTRINGS |
                                        CSLT_PRESERVEQUOTES | CSLT_PRESERVEESCAPES);
    for (int i = 0; tok && tok[i]; i++) {
        std::string t = tok[i];
        for (const char *key : {"variogram=", "drift_raster="}) {
            size_t k = strlen(key);
            if (t.compare(0, k, key) != 0)
                continue;
            std::string v = t.substr(k);
            if (v.size() >= 2 && v.front() == '"' && v.back() == '"')
                v = v.substr(1, v.size() - 2);
            v = Resolve(dir, v.c_str());
            t = key + (v.find(':') != std::string::npos ? '"' + v + '"' : v);
        }
        out += (i ? ":" : "") + t;
    }
    CSLDestroy(tok);
    return out;
}

/* ---- state shared by every handle on the same arguments ------------- */

struct Shared {
    gk_context *ctx = nullptr;
    gk_grid_options *opt = nullptr;
    gk_grid_plan plan{};
    bool have_plan = false;
    GDALDataType type = GDT_Float64;
    /* the values Compute gives: Float32 for Float32 bands where GDAL
     * converts as gridkit does (a GPU then converts them itself), else doubles */
    GDALDataType wire = GDT_Float64;
    OGRSpatialReference srs;
    int threads = 1;

    std::mutex mu;                                   /* lazy job creation */
    std::vector<gk_job *> jobs;                      /* one per input layer, built at first read */
    std::vector<std::unique_ptr<std::mutex>> gpu_mu; /* serialises a GPU job */
    std::vector<char> on_gpu;
    std::string job_error;

    std::atomic<unsigned long long> windows{0}, nodes{0};

    ~Shared()
    {
        for (gk_job *j : jobs)
            gk_job_free(j);
        if (have_plan)
            gk_grid_plan_free(&plan);
        gk_grid_options_free(opt);
        gk_context_free(ctx);
    }

    /* The job of one layer, built once (under the mutex: QGIS reads from
     * several threads through several handles). */
    gk_job *Job(int layer, std::string &err)
    {
        std::lock_guard<std::mutex> lock(mu);
        if (jobs.empty()) {
            jobs.assign(plan.sp.n_layers, nullptr);
            on_gpu.assign(plan.sp.n_layers, 0);
            for (int i = 0; i < plan.sp.n_layers; i++)
                gpu_mu.emplace_back(new std::mutex);
        }
        if (!jobs[layer]) {
            gk_error_clear(ctx);
            jobs[layer] = gk_grid_plan_job(ctx, &plan, layer);
            if (!jobs[layer]) {
                err = gk_errmsg(ctx);
                return nullptr;
            }
            if (const char *w = gk_job_warning(jobs[layer]))
                CPLError(CE_Warning, CPLE_AppDefined, "GRIDKIT: layer %d: %s", layer + 1, w);
            on_gpu[layer] = strncmp(gk_context_device_name(ctx), "cuda", 4) == 0;
            CPLDebug("GRIDKIT", "layer %d: job ready on %s", layer + 1,
                     gk_context_device_name(ctx));
        }
        return jobs[layer];
    }

    /* planes x w x h values (of type wire) of window (x0, y0) of grid g. */
    bool Compute(int layer, const gk_grid &g, int x0, int y0, int w, int h, void *out,
                 std::string &err)
    {
        gk_job *job = Job(layer, err);
        if (!job)
            return false;
        const gk_value_type vt = wire == GDT_Float32 ? GK_VALUES_FLOAT32 : GK_VALUES_FLOAT64;
        int rc;
        if (on_gpu[layer]) {
            std::lock_guard<std::mutex> lock(*gpu_mu[layer]);
            rc = gk_job_compute_window_typed(job, &g, x0, y0, w, h, vt, out);
        } else {
            rc = gk_job_compute_window_typed(job, &g, x0, y0, w, h, vt, out);
        }
        if (rc) {
            err = gk_errmsg(ctx);
            return false;
        }
        windows++;
        nodes += (unsigned long long)w * h;
        CPLDebug("GRIDKIT", "computed window %d,%d %dx%d of the %dx%d grid (layer %d)", x0, y0, w,
                 h, g.nx, g.ny, layer + 1);
        return true;
    }
};

std::mutex &CacheMutex()
{
    static std::mutex *m = new std::mutex; /* never destroyed: safe at exit */
    return *m;
}
std::map<std::string, std::weak_ptr<Shared>> &Cache()
{
    static auto *c = new std::map<std::string, std::weak_ptr<Shared>>;
    return *c;
}

/* ---- dataset and band -------------------------------------------------- */

/* Pixels of a side of n at factor f: ceil(n / f), in 64 bits (n + f - 1
 * overflows an int near 2^31). */
int OverviewSize(int n, int f) { return (int)(((long long)n + f - 1) / f); }

/* The end of the row of blocks (of height bh) that holds row r, within
 * rows: in 64 bits, since the last block row may end past 2^31 - 1. */
int BlockRowEnd(int r, int bh, int rows)
{
    return (int)std::min<long long>(rows, ((long long)r / bh + 1) * bh);
}

class GKDataset;

class GKBand final : public GDALRasterBand
{
    friend class GKDataset;
    int layer_, plane_;

  public:
    GKBand(GKDataset *ds, int band);
    CPLErr IReadBlock(int bx, int by, void *data) override;
    CPLErr IRasterIO(GDALRWFlag rw, int x, int y, int w, int h, void *buf, int bw, int bh,
                     GDALDataType bt, GSpacing ps, GSpacing ls,
                     GDALRasterIOExtraArg *extra) override;
    double GetNoDataValue(int *ok) override;
    int GetOverviewCount() override;
    GDALRasterBand *GetOverview(int i) override;
};

class GKDataset final : public GDALDataset
{
    friend class GKBand;
    std::shared_ptr<Shared> sh_;
    gk_grid g_{};    /* the grid of this level */
    int factor_ = 1; /* 1 = full resolution */
    std::vector<std::unique_ptr<GKDataset>> ovr_;

  public:
    static int Identify(GDALOpenInfo *oi);
    static GDALDataset *Open(GDALOpenInfo *oi);

    GKDataset(std::shared_ptr<Shared> sh, int factor);
#if GDAL_VERSION_NUM >= GDAL_COMPUTE_VERSION(3, 12, 0)
    CPLErr GetGeoTransform(GDALGeoTransform &gt) const override;
#else
    CPLErr GetGeoTransform(double *gt) override;
#endif
    const OGRSpatialReference *GetSpatialRef() const override;
    const char *GetMetadataItem(const char *name, const char *domain) override;
    CPLErr IRasterIO(GDALRWFlag rw, int x, int y, int w, int h, void *buf, int bw, int bh,
                     GDALDataType bt, int nb, int *bands, GSpacing ps, GSpacing ls, GSpacing bs,
                     GDALRasterIOExtraArg *extra) override;

    /* Computes the blocks of window (x, y, w, h) that the block cache lacks,
     * for the layers of the given bands, on several threads. */
    CPLErr Prefetch(int x, int y, int w, int h, int nb, const int *bands);
    /* Puts planes of a computed block into the other bands' caches. */
    void Store(int layer, int bx, int by, int w, int h, const void *v, int skip_band);
};

GKDataset::GKDataset(std::shared_ptr<Shared> sh, int factor) : sh_(std::move(sh)), factor_(factor)
{
    g_ = sh_->plan.g;
    g_.nx = OverviewSize(g_.nx, factor);
    g_.ny = OverviewSize(g_.ny, factor);
    nRasterXSize = g_.nx;
    nRasterYSize = g_.ny;
    for (int b = 1; b <= sh_->plan.bands; b++)
        SetBand(b, new GKBand(this, b));
    if (factor == 1) {
        SetMetadata(sh_->plan.md);
        /* 2, 4, 8, ... until an overview fits in one block (at most 2^24
         * for 2^31 - 1 pixels) */
        for (int f = 2; std::max(OverviewSize(g_.nx, f / 2), OverviewSize(g_.ny, f / 2)) > kBlock;
             f *= 2)
            ovr_.emplace_back(new GKDataset(sh_, f));
    }
}

GKBand::GKBand(GKDataset *ds, int band)
{
    poDS = ds;
    nBand = band;
    eDataType = ds->sh_->type;
    nBlockXSize = std::min(kBlock, ds->nRasterXSize);
    nBlockYSize = std::min(kBlock, ds->nRasterYSize);
    layer_ = (band - 1) / ds->sh_->plan.planes;
    plane_ = (band - 1) % ds->sh_->plan.planes;
    const char *d = CSLGetField(ds->sh_->plan.desc, band - 1);
    if (*d)
        GDALMajorObject::SetDescription(d);
}

double GKBand::GetNoDataValue(int *ok)
{
    const Shared &s = *static_cast<GKDataset *>(poDS)->sh_;
    if (ok)
        *ok = s.plan.set_nodata;
    return s.plan.set_nodata ? s.plan.nodata : GDALRasterBand::GetNoDataValue(nullptr);
}

int GKBand::GetOverviewCount() { return (int)static_cast<GKDataset *>(poDS)->ovr_.size(); }

GDALRasterBand *GKBand::GetOverview(int i)
{
    GKDataset *ds = static_cast<GKDataset *>(poDS);
    if (i < 0 || i >= (int)ds->ovr_.size())
        return nullptr;
    return ds->ovr_[i]->GetRasterBand(nBand);
}

void GKDataset::Store(int layer, int bx, int by, int w, int h, const void *v, int skip_band)
{
    const int planes = sh_->plan.planes;
    const GDALDataType wt = sh_->wire;
    const int ws = GDALGetDataTypeSizeBytes(wt);
    for (int p = 0; p < planes; p++) {
        int b = layer * planes + p + 1;
        if (b == skip_band)
            continue;
        GDALRasterBand *band = GetRasterBand(b);
        GDALRasterBlock *blk = band->TryGetLockedBlockRef(bx, by);
        if (blk) { /* already there */
            blk->DropLock();
            continue;
        }
        blk = band->GetLockedBlockRef(bx, by, TRUE);
        if (!blk)
            continue;
        int bw, bh;
        band->GetBlockSize(&bw, &bh);
        int sz = GDALGetDataTypeSizeBytes(band->GetRasterDataType());
        GByte *dst = static_cast<GByte *>(blk->GetDataRef());
        for (int r = 0; r < h; r++)
            GDALCopyWords(static_cast<const GByte *>(v) + ((size_t)p * w * h + (size_t)r * w) * ws,
                          wt, ws, dst + (size_t)r * bw * sz, band->GetRasterDataType(), sz, w);
        blk->DropLock();
    }
}

CPLErr GKBand::IReadBlock(int bx, int by, void *data)
{
    GKDataset *ds = static_cast<GKDataset *>(poDS);
    Shared &s = *ds->sh_;
    const int x0 = bx * nBlockXSize, y0 = by * nBlockYSize;
    const int w = std::min(nBlockXSize, nRasterXSize - x0);
    const int h = std::min(nBlockYSize, nRasterYSize - y0);
    const int ws = GDALGetDataTypeSizeBytes(s.wire);
    std::vector<double> v((size_t)s.plan.planes * w * h); /* room for doubles */
    std::string err;
    if (!s.Compute(layer_, ds->g_, x0, y0, w, h, v.data(), err)) {
        CPLError(CE_Failure, CPLE_AppDefined, "GRIDKIT: %s", err.c_str());
        return CE_Failure;
    }
    const int sz = GDALGetDataTypeSizeBytes(eDataType);
    if (w < nBlockXSize || h < nBlockYSize)
        memset(data, 0, (size_t)nBlockXSize * nBlockYSize * sz);
    const GByte *src = reinterpret_cast<const GByte *>(v.data());
    for (int r = 0; r < h; r++)
        GDALCopyWords(src + ((size_t)plane_ * w * h + (size_t)r * w) * ws, s.wire, ws,
                      static_cast<GByte *>(data) + (size_t)r * nBlockXSize * sz, eDataType, sz, w);
    ds->Store(layer_, bx, by, w, h, v.data(), nBand);
    return CE_None;
}

CPLErr GKDataset::Prefetch(int x, int y, int w, int h, int nb, const int *bands)
{
    Shared &s = *sh_;
    GDALRasterBand *b1 = GetRasterBand(1);
    int bw, bh;
    b1->GetBlockSize(&bw, &bh);
    std::vector<char> want(s.plan.sp.n_layers, 0);
    for (int i = 0; i < nb; i++)
        if (bands[i] >= 1 && bands[i] <= s.plan.bands)
            want[(bands[i] - 1) / s.plan.planes] = 1;
    struct Task {
        int layer, bx, by, w, h;
        std::vector<double> v;
        std::string err;
    };
    std::vector<Task> todo;
    for (int by = y / bh; by <= (y + h - 1) / bh; by++)
        for (int bx = x / bw; bx <= (x + w - 1) / bw; bx++)
            for (int l = 0; l < s.plan.sp.n_layers; l++) {
                if (!want[l])
                    continue;
                bool missing = false;
                for (int p = 0; p < s.plan.planes && !missing; p++) {
                    GDALRasterBlock *blk =
                        GetRasterBand(l * s.plan.planes + p + 1)->TryGetLockedBlockRef(bx, by);
                    if (blk)
                        blk->DropLock();
                    else
                        missing = true;
                }
                if (missing)
                    todo.push_back({l,
                                    bx,
                                    by,
                                    std::min(bw, nRasterXSize - bx * bw),
                                    std::min(bh, nRasterYSize - by * bh),
                                    {},
                                    {}});
            }
    if (todo.size() < 2)
        return CE_None; /* one block: IReadBlock does it */
    /* Batches bounded in memory, so the cache keeps what was just computed. */
    const size_t per_block = (size_t)bw * bh * s.plan.planes * sizeof(double);
    const size_t batch = std::max<size_t>(1, ((size_t)64 << 20) / per_block);
    for (size_t first = 0; first < todo.size(); first += batch) {
        size_t last = std::min(todo.size(), first + batch);
        std::atomic<size_t> next{first};
        auto work = [&]() {
            for (size_t k; (k = next++) < last;) {
                Task &t = todo[k];
                t.v.resize((size_t)s.plan.planes * t.w * t.h);
                if (!s.Compute(t.layer, g_, t.bx * bw, t.by * bh, t.w, t.h, t.v.data(), t.err))
                    t.v.clear();
            }
        };
        int nt = (int)std::min<size_t>(s.threads, last - first);
        std::vector<std::thread> pool;
        for (int i = 1; i < nt; i++)
            pool.emplace_back(work);
        work();
        for (auto &th : pool)
            th.join();
        for (size_t k = first; k < last; k++) {
            Task &t = todo[k];
            if (t.v.empty()) {
                CPLError(CE_Failure, CPLE_AppDefined, "GRIDKIT: %s", t.err.c_str());
                return CE_Failure;
            }
            Store(t.layer, t.bx, t.by, t.w, t.h, t.v.data(), 0);
            std::vector<double>().swap(t.v);
        }
    }
    return CE_None;
}

CPLErr GKBand::IRasterIO(GDALRWFlag rw, int x, int y, int w, int h, void *buf, int bw, int bh,
                         GDALDataType bt, GSpacing ps, GSpacing ls, GDALRasterIOExtraArg *extra)
{
    if (rw != GF_Read) {
        CPLError(CE_Failure, CPLE_NotSupported, "GRIDKIT datasets are read-only");
        return CE_Failure;
    }
    GKDataset *ds = static_cast<GKDataset *>(poDS);
    /* A resampled read may go to an overview: let GDAL choose. */
    if (bw != w || bh != h)
        return GDALRasterBand::IRasterIO(rw, x, y, w, h, buf, bw, bh, bt, ps, ls, extra);
    /* One row of blocks at a time: computed in parallel, then copied out. */
    for (int r0 = y; r0 < y + h;) {
        int r1 = BlockRowEnd(r0, nBlockYSize, y + h);
        if (ds->Prefetch(x, r0, w, r1 - r0, 1, &nBand) != CE_None)
            return CE_Failure;
        CPLErr e = GDALRasterBand::IRasterIO(rw, x, r0, w, r1 - r0,
                                             static_cast<GByte *>(buf) + (r0 - y) * ls, w, r1 - r0,
                                             bt, ps, ls, extra);
        if (e != CE_None)
            return e;
        r0 = r1;
    }
    return CE_None;
}

CPLErr GKDataset::IRasterIO(GDALRWFlag rw, int x, int y, int w, int h, void *buf, int bw, int bh,
                            GDALDataType bt, int nb, int *bands, GSpacing ps, GSpacing ls,
                            GSpacing bs, GDALRasterIOExtraArg *extra)
{
    if (rw != GF_Read) {
        CPLError(CE_Failure, CPLE_NotSupported, "GRIDKIT datasets are read-only");
        return CE_Failure;
    }
    if (bw != w || bh != h)
        return GDALDataset::IRasterIO(rw, x, y, w, h, buf, bw, bh, bt, nb, bands, ps, ls, bs,
                                      extra);
    int bxs, bys;
    GetRasterBand(1)->GetBlockSize(&bxs, &bys);
    for (int r0 = y; r0 < y + h;) {
        int r1 = BlockRowEnd(r0, bys, y + h);
        if (Prefetch(x, r0, w, r1 - r0, nb, bands) != CE_None)
            return CE_Failure;
        CPLErr e =
            GDALDataset::IRasterIO(rw, x, r0, w, r1 - r0, static_cast<GByte *>(buf) + (r0 - y) * ls,
                                   w, r1 - r0, bt, nb, bands, ps, ls, bs, extra);
        if (e != CE_None)
            return e;
        r0 = r1;
    }
    return CE_None;
}

#if GDAL_VERSION_NUM >= GDAL_COMPUTE_VERSION(3, 12, 0)
CPLErr GKDataset::GetGeoTransform(GDALGeoTransform &gt) const
{
    double v[6];
    gk_grid_geotransform(&g_, v);
    gt = GDALGeoTransform(v);
    return CE_None;
}
#else
CPLErr GKDataset::GetGeoTransform(double *gt)
{
    gk_grid_geotransform(&g_, gt);
    return CE_None;
}
#endif

const OGRSpatialReference *GKDataset::GetSpatialRef() const
{
    return sh_->srs.IsEmpty() ? nullptr : &sh_->srs;
}

/* Domain GRIDKIT_DEBUG: WINDOWS_COMPUTED and NODES_COMPUTED, shared by every
 * handle on the same arguments (the tests check what a read computed). */
const char *GKDataset::GetMetadataItem(const char *name, const char *domain)
{
    if (domain && EQUAL(domain, "GRIDKIT_DEBUG") && name) {
        if (EQUAL(name, "WINDOWS_COMPUTED"))
            return CPLSPrintf("%llu", sh_->windows.load());
        if (EQUAL(name, "NODES_COMPUTED"))
            return CPLSPrintf("%llu", sh_->nodes.load());
        return nullptr;
    }
    return GDALDataset::GetMetadataItem(name, domain);
}

/* ---- identify and open ------------------------------------------------ */

int GKDataset::Identify(GDALOpenInfo *oi)
{
    if (STARTS_WITH_CI(oi->pszFilename, kPrefix))
        return TRUE;
    return oi->fpL != nullptr && EQUAL(CPLGetExtension(oi->pszFilename), "gridkit");
}

/* The text of a .gridkit file (at most 1 MB). */
bool ReadJobFile(const char *path, std::string &text)
{
    VSILFILE *f = VSIFOpenL(path, "rb");
    if (!f)
        return false;
    char buf[4096];
    size_t n;
    while ((n = VSIFReadL(buf, 1, sizeof buf, f)) > 0 && text.size() < (1 << 20))
        text.append(buf, n);
    VSIFCloseL(f);
    return text.size() < (1 << 20);
}

GDALDataset *GKDataset::Open(GDALOpenInfo *oi)
{
    if (!Identify(oi))
        return nullptr;
    const char *name = oi->pszFilename;
    const std::string shown_name = Printable(name);
    const char *shown = shown_name.c_str();
    if (oi->eAccess == GA_Update) {
        CPLError(CE_Failure, CPLE_NotSupported, "GRIDKIT: %s: the dataset is read-only", shown);
        return nullptr;
    }
    std::string text, dir;
    bool file = !STARTS_WITH_CI(name, kPrefix);
    if (file) {
        if (!ReadJobFile(name, text)) {
            CPLError(CE_Failure, CPLE_OpenFailed, "GRIDKIT: cannot read %s (or larger than 1 MB)",
                     shown);
            return nullptr;
        }
        dir = CPLGetPath(name);
    } else {
        text = name + strlen(kPrefix);
    }
    std::vector<std::string> args;
    {
        char **words = nullptr;
        const char *why = nullptr;
        size_t bad = (size_t)-1;
        int rc = file ? gk_job_file_split(text.data(), text.size(), &words, &why, &bad)
                      : gk_job_args_split(text.data(), text.size(), 0, &words, &why);
        if (rc && bad != (size_t)-1) {
            CPLError(CE_Failure, CPLE_OpenFailed,
                     "GRIDKIT: %s is not a text file (byte 0x%02X at offset %zu: %s): a "
                     ".gridkit file holds the arguments of `gridkit grid` as UTF-8 text",
                     shown, (unsigned char)text[bad], bad, why);
            return nullptr;
        }
        if (rc) {
            CPLError(CE_Failure, CPLE_IllegalArg, "GRIDKIT: %s in '%s'", why, shown);
            return nullptr;
        }
        for (int i = 0; words && words[i]; i++)
            args.emplace_back(words[i]);
        CSLDestroy(words);
    }
    const bool ridges = !args.empty() && args[0] == "ridges";
    /* the driver has both capabilities: each kind opens only as itself */
    if (!(oi->nOpenFlags & (ridges ? GDAL_OF_VECTOR : GDAL_OF_RASTER))) {
        CPLError(CE_Failure, CPLE_OpenFailed,
                 ridges ? "GRIDKIT: %s is a vector dataset (lines): open it with ogrinfo, "
                          "ogr2ogr or as a vector layer"
                        : "GRIDKIT: %s is a raster dataset (a grid): open it with gdalinfo, "
                          "gdal_translate or as a raster layer",
                 shown);
        return nullptr;
    }
    if (ridges)
        return GKOpenRidges(std::vector<std::string>(args.begin() + 1, args.end()), dir, shown);

    auto sh = std::make_shared<Shared>();
    if (!(sh->ctx = gk_context_new())) {
        CPLError(CE_Failure, CPLE_OutOfMemory, "GRIDKIT: out of memory");
        return nullptr;
    }
    std::vector<char *> argv;
    for (auto &a : args)
        argv.push_back(&a[0]);
    argv.push_back(nullptr);
    gk_grid_options *o = gk_grid_options_new(sh->ctx, (int)args.size(), argv.data());
    if (!o) {
        CPLError(CE_Failure, CPLE_IllegalArg, "GRIDKIT: %s (in '%s')",
                 Printable(gk_errmsg(sh->ctx), 1000).c_str(), shown);
        return nullptr;
    }
    sh->opt = o;
    if (!o->src) {
        CPLError(CE_Failure, CPLE_IllegalArg,
                 "GRIDKIT: no point source in '%s' (expected the arguments of `gridkit grid` "
                 "without the output name)",
                 shown);
        return nullptr;
    }
    if (o->dst) {
        CPLError(CE_Failure, CPLE_IllegalArg,
                 "GRIDKIT: '%s' is a second positional argument: a GRIDKIT dataset has no output "
                 "name (in '%s')",
                 Printable(o->dst).c_str(), shown);
        return nullptr;
    }
    if (o->type) {
        sh->type = GDALGetDataTypeByName(o->type);
        if (sh->type == GDT_Unknown) {
            CPLError(CE_Failure, CPLE_IllegalArg, "GRIDKIT: -ot: unknown data type '%s'",
                     Printable(o->type).c_str());
            return nullptr;
        }
    }
    if (sh->type == GDT_Float32 && gk_float32_rule_holds())
        sh->wire = GDT_Float32;
    if (file) {
        ReplaceString(&o->src, Resolve(dir, o->src));
        if (o->clipsrc)
            ReplaceString(&o->clipsrc, Resolve(dir, o->clipsrc));
        if (o->algorithm) {
            const std::string a = ResolveAlgorithmPaths(dir, o->algorithm);
            if (a != o->algorithm &&
                gk_grid_options_set_algorithm(sh->ctx, o, CPLStrdup(a.c_str()))) {
                CPLError(CE_Failure, CPLE_IllegalArg, "GRIDKIT: %s (in '%s')",
                         Printable(gk_errmsg(sh->ctx), 1000).c_str(), shown);
                return nullptr;
            }
        }
    }

    /* Same arguments (and same source file state): share points and jobs. */
    std::string key;
    for (auto &a : args)
        key += a + '\x1f';
    key += dir;
    VSIStatBufL st;
    if (VSIStatL(o->src, &st) == 0)
        key += CPLSPrintf("|%lld|%lld", (long long)st.st_size, (long long)st.st_mtime);

    std::shared_ptr<Shared> use;
    {
        std::lock_guard<std::mutex> lock(CacheMutex());
        auto it = Cache().find(key);
        if (it != Cache().end())
            use = it->second.lock();
        if (!use) {
            if (gk_grid_plan_init(sh->ctx, o, &sh->plan)) {
                CPLError(CE_Failure, CPLE_AppDefined, "GRIDKIT: %s (in '%s')",
                         Printable(gk_errmsg(sh->ctx), 1000).c_str(), shown);
                return nullptr;
            }
            sh->have_plan = true;
            int t = gk_context_threads(sh->ctx);
            sh->threads = t > 0 ? t : std::max(1u, std::thread::hardware_concurrency());
            if (const char *wkt = gk_grid_plan_srs(&sh->plan)) {
                sh->srs.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
                sh->srs.importFromWkt(wkt);
            }
            for (auto i = Cache().begin(); i != Cache().end();) /* drop closed entries */
                i = i->second.expired() ? Cache().erase(i) : std::next(i);
            Cache()[key] = sh;
            use = sh;
        }
    }
    GKDataset *ds = new GKDataset(use, 1);
    if (file)
        ds->SetDescription(name);
    return ds;
}

} // namespace

/* The one exported symbol (everything else is hidden). */
extern "C" __attribute__((visibility("default"))) void GDALRegister_GRIDKIT();

void GDALRegister_GRIDKIT()
{
    if (!GDAL_CHECK_VERSION("GRIDKIT"))
        return;
    if (GDALGetDriverByName("GRIDKIT") != nullptr)
        return;
    GDALDriver *d = new GDALDriver();
    d->SetDescription("GRIDKIT");
    d->SetMetadataItem(GDAL_DCAP_RASTER, "YES");
    d->SetMetadataItem(GDAL_DCAP_VECTOR, "YES"); /* GRIDKIT:ridges */
    d->SetMetadataItem(GDAL_DMD_LONGNAME,
                       "gridkit: scattered points gridded on read, or their ridge lines");
    d->SetMetadataItem(GDAL_DMD_EXTENSION, "gridkit");
    d->SetMetadataItem("GRIDKIT_VERSION", GK_VERSION_STRING); /* gdalinfo --format GRIDKIT */
    d->SetMetadataItem(GDAL_DMD_CONNECTION_PREFIX, kPrefix);
    d->SetMetadataItem(GDAL_DCAP_VIRTUALIO, "YES");
    d->pfnIdentify = GKDataset::Identify;
    d->pfnOpen = GKDataset::Open;
    gk_gdal_declare_algorithms(d); /* gdal driver gridkit grid|ridges, where GDAL has them */
    GetGDALDriverManager()->RegisterDriver(d);
}
