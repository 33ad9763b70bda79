/* SPDX-License-Identifier: MIT */
/*
 * gpu_abi.h - the C ABI between gridkit's core and its CUDA module.
 *
 * The module (gridkit_cuda.so) is dlopen()ed by algorithms/core/device.c on first
 * use, so nothing links CUDA into the core or the CLI. It exports one symbol,
 * GK_GPU_ENTRY, returning a table of function pointers; the core refuses a
 * table whose abi_version differs from its own. Plain C, no CUDA types.
 */
#ifndef GK_GPU_ABI_H
#define GK_GPU_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One number: the entry symbol carries it, so a module of another version is
 * not even found, and the table repeats it. */
#define GK_GPU_ABI_VERSION 19
#define GK_GPU_CAT_(a, b) a##b
#define GK_GPU_CAT(a, b) GK_GPU_CAT_(a, b)
#define GK_GPU_STR_(x) #x
#define GK_GPU_STR(x) GK_GPU_STR_(x)
/* gk_gpu_module_v<version>: the function the module defines, its name for dlsym */
#define GK_GPU_ENTRY_FN GK_GPU_CAT(gk_gpu_module_v, GK_GPU_ABI_VERSION)
#define GK_GPU_ENTRY GK_GPU_STR(GK_GPU_ENTRY_FN)

/* What a job computes (the core maps gdal_grid's algorithms onto these):
 * one per line of gpu_ops.def, numbered from 1 in its order. */
typedef enum {
    GK_GPU_OP_NONE = 0,
#define GK_GPU_OP(NAME, row) GK_GPU_##NAME,
#include "gpu_ops.def"
#undef GK_GPU_OP
    GK_GPU_OP_END /* one past the last */
} gk_gpu_op;

/* Search window around a node. */
typedef enum {
    GK_GPU_WIN_ALL = 0, /* every point */
    GK_GPU_WIN_CIRCLE,  /* d2 <= r2 (invdistnn's rule) */
    GK_GPU_WIN_ELLIPSE  /* gdal_grid's rotated ellipse test, boundary inclusive */
} gk_gpu_window_kind;

/* linear: a level of the triangles' buckets; bucket of x: (x - x0) * inv,
 * of nx x ny, row-major (algorithms/linear/tin.c) */
#define GK_GPU_LIN_MAX_LEVELS 24
typedef struct {
    double x0, y0, inv;
    int nx, ny;
} gk_gpu_lin_level;

/* The operations' own parameter blocks (gk_gpu_job_desc's p, by op). */

/* GK_GPU_AIDW: neighbours of the statistic, powers at mu = 0.1 .. 0.9, the
 * membership's R_min / R_max, the expected mean NN distance */
typedef struct {
    int k;
    double alpha[5], rmin, rmax, r_exp;
} gk_gpu_aidw;

/* GK_GPU_LINEAR (algorithms/linear/tin.c's tin; host arrays, read during
 * job_new only): nv vertices (2 doubles each), nt triangles (3 vertex
 * numbers, counter-clockwise; a plane z = p0 + p1 (x - xa) + p2 (y - ya)
 * about the first vertex a, p1 NaN: degenerate), sorted into the buckets of
 * nlev levels, whose offsets (nbuckets + 1) are bstart.
 * GK_GPU_NATURAL (linear/natural.c) reads the vertices and triangles, and
 * neighbor (3 per triangle, across the edge opposite vertex k; -1: hull),
 * z (per vertex), seed (a triangle per bucket of level 0, lev[0]) and
 * nn_type (GK_NN_SIBSON, GK_NN_LAPLACE or GK_NN_SIBSON_C1 of
 * linear/natural_node.h) and, for the last, grad (2 per vertex, NaN: none) */
typedef struct {
    size_t nv, nt, nbuckets;
    const double *xy, *plane;
    const int *vertex, *bstart;
    int nlev;
    gk_gpu_lin_level lev[GK_GPU_LIN_MAX_LEVELS];
    const int *neighbor, *seed;
    const double *z;
    int nn_type;
    const double *grad;
} gk_gpu_linear;

/* GK_GPU_SHEPARD (algorithms/idw/shepard_node.h; host arrays, read during
 * job_new only): the n points in cells of edge cs from (x0, y0), cnx by
 * cny, cell c's at [start[c], start[c + 1]) (ncell + 1 offsets); each
 * point's place, squared radius, value and 5 quadratic terms (ca, 5 a
 * point); rmax the largest radius (finite), s2 the smoothing squared */
typedef struct {
    size_t n;
    double x0, y0, cs, rmax, s2;
    long cnx, cny;
    const size_t *start;
    const double *cx, *cy, *crsq, *cf, *ca;
} gk_gpu_shepard;

/* GK_GPU_POLYNOMIAL (algorithms/geostat/polynomial_fit.h): a node's
 * neighbours are the job's max_points (1 .. GK_GPU_POLY_MAX_K) nearest in
 * its window, fewer than min_points none (gstat's rule, as kriging's); the
 * degree, and the weight (GK_PF_W_*) with its power, radius and bandwidth.
 * A tile's *singular counts the nodes fitted at a lower degree. */
#define GK_GPU_POLY_MAX_K 32
typedef struct {
    int degree, weight;
    double power, maxdist, bandwidth;
} gk_gpu_poly;

/* GK_GPU_RBF (algorithms/spline/rbf_system.h): a node's system is its
 * max_points nearest (every point's window, ties by input order) plus the
 * degree's monomials, at most GK_GPU_RBF_MAX_N unknowns; max_points 0: one
 * system of every point (cuSOLVER). The kernel (gk_rbf_kernel; GK_RBF_RST
 * for rst), epsilon, smoothing, and zadd added to every value (rst's zmin).
 * A tile's *singular counts the nodes whose system was singular. */
#define GK_GPU_RBF_MAX_N 160
typedef struct {
    int kernel, degree;
    double epsilon, smoothing, zadd;
} gk_gpu_rbf;

/* GK_GPU_HEATMAP and GK_GPU_GAUSS (algorithms/density/density_bins.h,
 * density_sum.h): the core's bins uploaded as they are (host arrays, read
 * during job_new only), and each term's arithmetic from density_sum.h, so
 * that the bits are the CPU's */
typedef struct {
    int nbx, nby;
    double x0, y0, side;
    const int *start;        /* nbx * nby + 1 */
    const double *x, *y, *z; /* n, in bin order */
    double r;                /* heatmap: radius (d <= r); gauss: cut-off of |dx| (INFINITY: none) */
    double ry;               /* gauss: cut-off of |dy| */
    int kernel;              /* heatmap: GK_HM_* of density_sum.h */
    int scaled;              /* heatmap: output=scaled */
    double decay;            /* heatmap: triangular's decay */
    double c;                /* gauss: 1 / (2 sigma_x^2) */
    double cy;               /* gauss: 1 / (2 sigma_y^2) */
    double div;              /* gauss: the sum is divided by it (normalize=yes), 0: not */
    int smooth;              /* gauss: kernel_smooth, sum K z / sum K (nodata where sum K is 0) */
    int form;                /* gauss: gk_gpu_gauss_form */
    /* gauss, GK_GPU_GS_TURNED: Q / 2 = u^2 c + v^2 cy with u = ca dx + sa dy,
     * v = ca dy - sa dx; a term where Q / 2 <= lim (INFINITY: every one) */
    double ca, sa, lim;
    /* gauss, GK_GPU_GS_IFGT (density/gauss_ifgt.c; host arrays, read during
     * job_new only): K centres, the largest order, h = sqrt(2) sigma; each
     * cluster's order p_k, squared reach and first coefficient (ncoef in
     * all, p_k (p_k + 1) / 2 a cluster, by the power of y then x); no bins */
    int ifgt_k, ifgt_p;
    double ifgt_h;
    const double *ifgt_cx, *ifgt_cy, *ifgt_coef, *ifgt_reach2;
    const int *ifgt_orders, *ifgt_offs;
    size_t ifgt_ncoef;
    /* gauss, GK_GPU_GS_FFT (density/gauss_fft.c, density_fft.h): sigma along
     * x and y (the cut-offs are r, ry); the bins as for the factors, whose
     * kernel takes grids too coarse for a lattice */
    double sx, sy;
    /* gauss, GK_GPU_GS_RELATIVE (density_sum.h's gk_ds_relative): the bins
     * hold the points of positive weight; c as above, E, sum w, and whether
     * every point is kept (method=direct) */
    double eps, sumw;
    int direct;
} gk_gpu_density;

/* A job: what every op shares (the points, the search window of the local
 * ops, gdal_grid's tie order), then the op's own block. */
typedef struct {
    int op;     /* gk_gpu_op */
    int single; /* 1: single-precision kernels where the op has them */
    size_t n;
    const double *x, *y, *z; /* host arrays, read during job_new only */
    double power, smoothing; /* the IDW ops */
    int max_points, min_points;
    int window;                      /* gk_gpu_window_kind */
    double r2;                       /* circle: squared radius */
    double e_r1, e_r2, e_cos, e_sin; /* ellipse semi-axes and rotation */
    double box_hx, box_hy;           /* half extents of the box holding the window */
    double nodata;
    /* per-quadrant selection (IDW_KNN, AVERAGE and the metrics; gdal_grid >=
     * 3.6, algorithms/search/neighbours.c): limits per quadrant, 0 = none; max_points
     * then bounds the round robin (0 = none). KRIGE: quad_max > 0 selects
     * each quadrant's quad_max nearest of every point (max_points_per_quadrant
     * with no max_points or radius), max_points = 4 quad_max */
    int quad_min, quad_max;
    /* cross-validation (GK_GPU_KRIGE): each point's fold (>= 1), n of them in
     * the order of x, y, z (host, read during job_new only), which a tile's
     * given points leave out (gk_gpu_tile's qgroup); NULL: none */
    const int *group;
    /* 1: the module puts the points in gdal_grid's quadtree order (core/
     * quadtree_order.h) before anything else, as the core would have: ties
     * by index then follow that order */
    int quadtree_order;
    /* The op's own block; only the op's member is meaningful (a new op with
     * parameters of its own adds its member here). Kriging's are set per job
     * by krige_set (gk_gpu_krige below). */
    union {
        gk_gpu_aidw aidw;
        gk_gpu_linear lin;
        gk_gpu_density dens;
        gk_gpu_shepard shep;
        gk_gpu_poly poly;
        gk_gpu_rbf rbf;
    } p;
} gk_gpu_job_desc;

/* How a GK_GPU_GAUSS job forms its terms. */
typedef enum {
    GK_GPU_GS_FACTORS = 0, /* an x factor times a y factor (unturned kernels) */
    GK_GPU_GS_TURNED,      /* a turned ellipse: a term a pair */
    GK_GPU_GS_IFGT,        /* the fast Gauss transform's expansions */
    GK_GPU_GS_FFT,         /* binned onto a lattice, convolved by FFTs */
    GK_GPU_GS_RELATIVE     /* mode=relative: a cut-off per node, a thread a node */
} gk_gpu_gauss_form;

/* A window [x0, x0+w) x [y0, y0+h) of the grid; node coordinates are computed
 * exactly as gk_grid_node_x/y do. */
typedef struct {
    double xmin, xmax, ymin, ymax;
    int nx, ny;
    int x0, y0, w, h;
    double hit2; /* exact-hit threshold (squared distance) */
    /* kriging with external drift: the standardised covariates at the
     * tile's nodes, node (i, j) of covariate r at g0[r * g0_ld + j * g0_pitch
     * + i] (host, read during tile only), NaN where the node has none; NULL
     * without external drift */
    const double *g0;
    size_t g0_ld;
    int g0_pitch;
    /* local kriging: the nearest points taken in this tile, where the core
     * knows no node's window holds more (0: the job's max_points; never more) */
    int max_points;
    /* cross-validation (GK_GPU_KRIGE with up to 64 neighbours, no
     * per-quadrant search): node (i, j) of the w x h tile is the given point
     * (qx, qy)[j * w + i] instead of a lattice node (x0 = y0 = 0), and its
     * search skips the points of fold qgroup[j * w + i] (the job's group);
     * host arrays, read during tile only. NULL: the lattice. */
    const double *qx, *qy;
    const int *qgroup;
    /* 1: out gets floats, converted on the device by core/to_float32.h's
     * rule (half the copy back, no conversion on the host); 0: doubles */
    int out_float;
} gk_gpu_tile;

/* Kriging (set once per job, before its first tile): the covariance
 * C(h) = A - gamma(h) of the model, structures of gk_gpu_vtype with gstat's
 * anisotropy transform precomputed (t0 = ca dx + sa dy, t1 = f (ca dy - sa dx)). */
typedef enum {
    GK_GPU_V_NUG = 0,
    GK_GPU_V_SPH,
    GK_GPU_V_EXP,
    GK_GPU_V_GAU,
    /* algorithms/geostat/vmodel_eval.h's other functions, evaluated in double */
    GK_GPU_V_MAT, /* Matern (kappa) */
    GK_GPU_V_STE, /* Matern, Stein's parameterisation (kappa) */
    GK_GPU_V_EXC, /* exponential class (kappa) */
    GK_GPU_V_CIR,
    GK_GPU_V_PEN,
    GK_GPU_V_LIN, /* range 0: unbounded, psill = slope */
    GK_GPU_V_POW, /* range = exponent */
    GK_GPU_V_HOL
} gk_gpu_vtype;
/* The most neighbours kriging's GPU kernels take (max_points): systems of
 * that many points a node, factored in panels (kriging_big.cu). */
#define GK_GPU_MAX_K 2048
/* The most neighbours the other GPU kernels take (max_points, aidw's k, and
 * the points one quadrant keeps): the lists of knn_list.cuh, a
 * warp's in shared memory where they fit, else in global memory. At this
 * many, one warp's list takes 100 MB; the CPU takes what is above. */
#define GK_GPU_MAX_LIST_K 4194304
#define GK_GPU_KRIGE_MAX_STRUCT 8
#define GK_GPU_KRIGE_MAX_P 10     /* drift columns: 1 + 5 + 4 external */
#define GK_GPU_KRIGE_MAX_DISCR 16 /* block discretisation points */
typedef struct {
    int type, aniso;
    double psill, range, ca, sa, f;
    double kappa; /* Mat, Ste, Exc */
} gk_gpu_vstruct;
typedef struct {
    int p;      /* drift columns: 0 simple, else 1 + poly + nr */
    int nbands; /* 1 estimate, 2 estimate and variance */
    int ns;
    gk_gpu_vstruct st[GK_GPU_KRIGE_MAX_STRUCT];
    double A, c00, mean; /* C(0); variance of the target; simple kriging's mean */
    /* The drift's columns [1, u, v, u^2, v^2, uv, g...] (algorithms/geostat/kriging.h):
     * poly polynomial terms after the constant (0, 2 or 5) in the selection's
     * centred, scaled coordinates, then nr external drift covariates, gpts
     * (host, read during krige_set only) nr blocks of n standardised values
     * at the points in input order. */
    int poly, nr;
    const double *gpts;
    /* Block kriging: nb (1, or GK_GPU_KRIGE_MAX_DISCR) offsets of the block's
     * discretisation from the node and their weights; c00 is then the
     * block-to-block average. */
    int nb;
    double bdx[GK_GPU_KRIGE_MAX_DISCR], bdy[GK_GPU_KRIGE_MAX_DISCR], bw[GK_GPU_KRIGE_MAX_DISCR];
    /* max_points_per_quadrant (gstat's omax, GK_GPU_KRIGE only): of the
     * max_points nearest, the omax nearest of each quadrant; 0 = none */
    int omax;
} gk_gpu_krige;

/* Experimental variogram over all pairs (algorithms/geostat/variogram.c's rules):
 * sums per class, direction-major, ndir * ncls entries each. */
typedef struct {
    size_t n;
    const double *x, *y, *z;
    double cutoff, width;
    int ncls, ndir, cressie;
    int all_dirs[16];
    double ux[16], uy[16];
    double cos_tol, bandwidth;
} gk_gpu_vgm;

/* Ridges, curve (algorithms/ridges/curve.c): evolve's Jacobi steps until a
 * step moves no representative or max_iter steps, with the arithmetic of
 * ridges/curve_step.h, so that the bits are the CPU's. */
typedef struct {
    int dim;         /* 2 or 3 */
    size_t n;        /* samples */
    const double *p; /* n * dim, interleaved, renumbered (curve_step.h's order) */
    double r1;
    size_t m;  /* representatives */
    double *s; /* m * dim, interleaved: in, and out after the steps */
    int max_iter;
    int iters;        /* out: steps taken */
    int converged;    /* out: 1 when the last step moved nothing */
    double kernel_ms; /* out */
} gk_gpu_evolve;

/* Ridges, density (algorithms/ridges/density.c): subspace-constrained mean
 * shift of every walker with the arithmetic of ridges/scms_step.h (the sums
 * over the samples in the CPU's order; exp() may differ in the last bit). */
typedef struct {
    int dim;
    size_t n;
    const double *p; /* n * dim, interleaved */
    const double *w; /* n weights, or NULL (every weight 1) */
    /* the samples binned as ridges/scms_step.h's gk_scms_index (the CPU's
     * bins, uploaded as they are) */
    double origin[3], side;
    int64_t nc[3];
    size_t n_bins;
    const uint64_t *key; /* n_bins */
    const size_t *start; /* n_bins + 1 */
    const double *ps;    /* n * dim, in bin order */
    const double *ws;    /* n, or NULL */
    double h;            /* Gaussian sigma */
    double cutoff;       /* kernel cut-off, in h */
    double tol;
    int max_iter;
    size_t n_walkers;
    double *walkers;  /* n_walkers * dim: in, and out at convergence */
    double *density;  /* out, n_walkers: the kernel sum at the final position */
    double *tangent;  /* out, n_walkers * dim: the unit ridge direction there */
    int32_t *iters;   /* out, n_walkers: steps taken, max_iter + 1 when it did not converge */
    double kernel_ms; /* out */
} gk_gpu_scms;

/* -a surface (algorithms/spline/surface_solve.c): one grid of its cascade,
 * swept in five colours ((col + 2 row) mod 5, the colours' nodes updated at
 * once) until the largest change of a sweep is at most limit or maxit sweeps,
 * with the arithmetic of algorithms/spline/surface_node.h (the CPU's bits).
 * Arrays of (ny + 4) rows of nx + 4, two ghost rows and columns a side, row 0
 * north. */
typedef struct {
    int nx, ny;
    double *u;               /* in, and out after the sweeps */
    const unsigned char *st; /* 0 free, 1-4 its datum's quadrant, 5 fixed */
    const int32_t *bi;       /* a quadrant node's row of b */
    const double *b;         /* nb rows of 6 (Briggs's b1..b4, b5 z, the normaliser) */
    size_t nb;
    double coef[2][12], a0c2; /* [0]: a node with a datum, [1]: a free node */
    double alpha, btension, relax;
    /* bounds in z units, at a node's final-grid position (c rx, rup ry): */
    int lower, upper;
    double lo, hi, icept, sx, sy, rzrms, rx, ry;
    double limit;
    long maxit;
    long iterations;  /* out */
    int converged;    /* out */
    double kernel_ms; /* out */
} gk_gpu_surface;

/* rst's segments (algorithms/spline/rst_segments.c): every node's value, the
 * sum of its leaf over the leaf's window of points as gk_rst_segments_value
 * adds it (the same operations in the same order; CUDA's exp and log for
 * the C library's); with solve, the leaves' systems first (cuBLAS's batched
 * LU: other roundings than the CPU's Crout). */
typedef struct {
    int nx, ny; /* the grid: node (col, row), row 0 at the top */
    int nleaf;
    const int *leaf;       /* 5 a leaf: col0, row0 (from the south), cols, rows, singular */
    const double *step;    /* 2 a leaf: its cell's width and height in units of dnorm */
    const size_t *off;     /* nleaf + 1: leaf k's points at [off[k], off[k + 1]) */
    const double *xn, *yn; /* the points, in units of dnorm from their leaf's corner */
    const double *b;       /* off[k] + k: leaf k's constant, then its points' coefficients */
    double fi, zmin;
    /* solve: b holds each leaf's right-hand side (0, then z less zmin) and
     * the leaves' systems (the constant first, -smooth on the diagonal; maxn
     * points at most) are solved here first; else b holds their solutions */
    int solve, maxn;
    double smooth;
    double *out;      /* nx * ny (row-major from the top); NaN in a singular leaf */
    double kernel_ms; /* out */
} gk_gpu_rst;

/* Simulation (algorithms/geostat/simulation_weights.c): every node's kriging
 * weights at path positions [p0, p1), as node_weights computes them there
 * (the same operations in the same order, no contraction): the K nearest of
 * the data (within r2max) and of the nodes before it on the path, then the
 * simple or ordinary kriging system. Models: structures of types Nug, Sph,
 * Exp, Gau only (GK_VM_* in type). */
typedef struct {
    int nx, ny;
    double xmin, ymax, cw, ch;
    const uint32_t *path, *rank, *bmin; /* bmin: GK_SIM_BLOCK-wide blocks, nbx a row */
    int nbx, block;
    size_t nd;
    const double *dx, *dy, *dv; /* the data */
    int K;
    double r2max, mean;
    int ordinary;
    int D;
    const double *ctab; /* (2D + 1)^2 covariances of node offsets */
    int ns;             /* the model's structures */
    int type[8], aniso[8];
    double psill[8], range[8], ca[8], sa[8], f[8], A;
    double chol_tol;
    uint32_t p0, p1;
    /* out, for positions p0 .. p1 - 1 */
    double *cst, *sd, *w; /* w: K per position */
    uint16_t *nn;
    uint32_t *nb;               /* K per position */
    unsigned long long lowered; /* out: systems singular with all their neighbours */
    double kernel_ms;           /* out */
} gk_gpu_sim;

typedef struct {
    int abi_version;
    /* Checks device dev (>= 0) can run this module's kernels; 0 and its name
     * on success, else non-zero and a reason. */
    int (*probe)(int dev, char *name, size_t name_cap, char *err, size_t err_cap);
    /* Uploads the points and builds the GPU index; NULL and a reason on failure. */
    void *(*job_new)(int dev, const gk_gpu_job_desc *d, char *err, size_t err_cap);
    /* Computes a tile into out (w*h doubles per band, or floats where
     * t->out_float, row-major, nodata where no value); *nodata gets the count of nodata nodes (band 1), *singular the
     * nodes whose kriging system was singular (polynomial: fitted at a lower degree). 0; GK_GPU_TILE_NOMEM when the
     * GPU's memory was too small for the tile; else non-zero and a reason.
     * Thread-safe (serialised per job: a caller wanting tiles in flight at
     * once makes several jobs). */
    int (*tile)(void *job, const gk_gpu_tile *t, double *out, uint64_t *nodata, uint64_t *singular,
                char *err, size_t err_cap);
    void (*job_free)(void *job);
    /* Kernel time of the job's last tile (CUDA events around the kernels only). */
    double (*last_kernel_ms)(void *job);
    /* Kriging parameters of a GK_GPU_KRIGE or GK_GPU_KRIGE_GLOBAL job (the latter
     * factorises its system here); 0, or non-zero and a reason. */
    int (*krige_set)(void *job, const gk_gpu_krige *k, char *err, size_t err_cap);
    /* All-pairs variogram on device dev: np, sd (sum of distances), sg (sum of
     * the estimator's terms), each ndir * ncls; *kernel_ms the kernel time.
     * 0, or non-zero and a reason. */
    int (*variogram)(int dev, const gk_gpu_vgm *v, double *np, double *sd, double *sg,
                     double *kernel_ms, char *err, size_t err_cap);
    /* CUDA devices visible to this process (0 when none). */
    int (*device_count)(void);
    /* Page-locked host memory for tile buffers (copies at full speed,
     * asynchronous); NULL when none can be had. */
    void *(*host_alloc)(size_t bytes);
    void (*host_free)(void *p);
    /* Another job on the same device sharing this one's uploaded points and
     * index, with its own stream and buffers; freed before it. NULL and a
     * reason where it cannot (global kriging). */
    void *(*job_clone)(void *job, char *err, size_t err_cap);
    /* Ridges on device dev (NULL in a module without them): 0, or non-zero
     * and a reason (the CPU then runs them). */
    int (*curve_evolve)(int dev, gk_gpu_evolve *e, char *err, size_t err_cap);
    int (*scms)(int dev, gk_gpu_scms *s, char *err, size_t err_cap);
    /* gdal_grid's quadtree order of n points on device dev into order (host),
     * as job_new makes it (tests, benchmarks); *ms its time on the device, the
     * points there already. 0, or non-zero and a reason. */
    int (*quadtree_order)(int dev, const double *x, const double *y, size_t n, uint32_t *order,
                          double *ms, char *err, size_t err_cap);
    /* surface's sweeps of one grid on device dev: 0, or non-zero and a
     * reason (the CPU then sweeps it). */
    int (*surface)(int dev, gk_gpu_surface *s, char *err, size_t err_cap);
    /* simulation's weights of a range of path positions on device dev: 0, or
     * non-zero and a reason (the CPU then computes them). */
    int (*sim_weights)(int dev, gk_gpu_sim *s, char *err, size_t err_cap);
    /* rst's segments: every node's value on device dev: 0, or non-zero and a
     * reason (the CPU then computes them). */
    int (*rst_sums)(int dev, gk_gpu_rst *s, char *err, size_t err_cap);
} gk_gpu_api;

/* tile()'s code when the GPU had no memory for the tile (the caller splits it) */
#define GK_GPU_TILE_NOMEM 2

typedef const gk_gpu_api *(*gk_gpu_entry_fn)(void);

#ifdef __cplusplus
}
#endif
#endif
