/* SPDX-License-Identifier: MIT */
/*
 * gauss.h - the parts of gauss that live in files of their own, called by
 * density/gauss.c: mode=relative (density/gauss_relative.c), method=ifgt
 * (density/gauss_ifgt.c) and method=fft (density/gauss_fft.c).
 */
#ifndef GK_GAUSS_H
#define GK_GAUSS_H

#include "core/gk_internal.h"
#include "density_bins.h"

/* gauss's and kernel_smooth's parameters (the algorithm's own). */
typedef struct {
    double sigma;   /* along x (or the ellipse's first axis); NaN: Scott's rule, set in build */
    double sigma_y; /* along y (the second axis); NaN: sigma */
    double angle;   /* the first axis's rotation from x, degrees counter-clockwise */
    double epsilon; /* absolute bound's factor, in (0, 1) */
    double rc;      /* isotropic cut-off radius (reported), set with sigma */
    int method;     /* GK_GAUSS_* below */
    int method_auto, normalize;
    int smooth;         /* kernel_smooth: sum K z / sum K */
    int relative;       /* mode=relative: |error| <= E exact (density/gauss_relative.c) */
    double sumw;        /* relative: sum of the weights (>= 0), set in build */
    int ifgt_k, ifgt_p; /* method=ifgt: clusters and largest truncation order, set in build */
    int ifgt_pmin;      /* and the smallest (each cluster has its own) */
    double ifgt_rx, ifgt_ry, ifgt_bound; /* its cluster radius, reach and error bound */
} gk_gauss_params;
GK_ALG_OWN_FITS(gk_gauss_params);
static inline gk_gauss_params *gk_gauss_of(const gk_algorithm *a)
{
    return GK_ALG_OWN(gk_gauss_params, a);
}

/* gk_gauss_params.method */
enum { GK_GAUSS_DIRECT, GK_GAUSS_CUTOFF, GK_GAUSS_IFGT, GK_GAUSS_FFT };

/* method=auto's cost model, one core of this project's EPYC, ns: a product
 * of the cut-off (100,000 points, 1024^2 nodes, sigma 3 km over 10 km,
 * every point within every node's box: 10.4 s on 2 cores), a unit of the
 * IFGT's count at its largest order (0.14 to 0.19 measured: 16 clusters
 * there, 1.10 s; 256 for 300,000 points, sigma 500 m, 2048^2, 22.8 s), a
 * point-centre distance of the clustering. The same numbers on every
 * machine, so that the choice, and so the bytes, depend on the inputs only. */
#define GK_GAUSS_NS_PAIR 0.21
#define GK_IFGT_NS_UNIT 0.18
#define GK_IFGT_NS_CLUSTER 1.0

/* The share of an extent L that [u - r, u + r] covers, on average over u
 * in it: the cost model's fraction of the points within r of a node. */
static inline double gk_gauss_overlap(double r, double L)
{
    const double q = L > 0 ? r / L : 1.0;
    return q >= 1.0 ? 1.0 : 2.0 * q - q * q;
}

/* mode=relative: checks the weights (>= 0), sums them and bins the points
 * of positive weight (the state's bins); then a tile. */
int gk_gauss_relative_build(gk_job *job);
uint64_t gk_gauss_relative_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s);

/* method=ifgt: clusters the points, picks the clusters' number and the
 * truncation order for the bound E sum|w| and computes the expansions
 * (a->gauss.ifgt_* get them); GK_OK, or GK_ERR_ARG when no choice meets the
 * bound in double. cut_ns: method=auto's cost of the cut-off a node (ns,
 * GK_IFGT_NS_* below), INFINITY for method=ifgt; GK_IFGT_TAKE_CUTOFF (no
 * error; not a gk_status, whose GK_ERR_ARG is 1) when no plan beats it,
 * never for method=ifgt. Then a tile; the free. */
#define GK_IFGT_TAKE_CUTOFF (-1)
int gk_ifgt_build(gk_job *job, double cut_ns);
uint64_t gk_ifgt_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s);
void gk_ifgt_free(struct gk_ifgt *g);
/* The expansions into a GPU job's description (core/gpu_abi.h's ifgt_ fields). */
void gk_ifgt_gpu_desc(const struct gk_ifgt *g, gk_gpu_job_desc *d);

/* method=fft's blocks of cells, shared by the tiles (thread-safe). */
struct gk_gauss_fft *gk_gauss_fft_new(void);
void gk_gauss_fft_free(struct gk_gauss_fft *c);

/* The job's expansions and lattice blocks (its gk_dens_state), NULL where
 * not made. */
static inline struct gk_ifgt *gk_gauss_ifgt_of(const gk_job *job)
{
    const gk_dens_state *s = (const gk_dens_state *)job->state;
    return s ? s->ifgt : NULL;
}
static inline struct gk_gauss_fft *gk_gauss_fft_of(const gk_job *job)
{
    const gk_dens_state *s = (const gk_dens_state *)job->state;
    return s ? s->fft : NULL;
}
/* method=fft: a tile from the binned lattice (the cut-off sum, cutoff_tile,
 * where the cells are too coarse for a lattice); UINT64_MAX out of memory. */
uint64_t gk_gauss_fft_tile(const gk_job *job, const gk_tile *t, double *out, gk_scratch *s,
                           gk_tile_fn cutoff_tile);
/* Its bound per unit of sum|w| beyond E: the binning's, lattice steps of
 * at most sigma / 4 on each axis (gauss_fft.c). */
#define GK_GAUSS_FFT_BINNING (1.0 / 64.0)

#endif
