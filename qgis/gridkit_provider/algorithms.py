# SPDX-License-Identifier: MIT
"""gridkit's Processing algorithms: each builds a `gridkit` command line from
typed parameters, runs it, and turns the GDAL-style progress that gridkit
prints on stderr (0...10...20...100 - done.) into the progress bar.

The program: the Processing setting "gridkit program" (GRIDKIT_PATH) when
set, else found automatically (gridkit_cli.default_executable()).
"""
import json
import os
import re
import select
import shlex
import subprocess

from qgis.core import (QgsProcessing, QgsProcessingAlgorithm, QgsProcessingException,
                       QgsProcessingOutputNumber, QgsProcessingOutputString,
                       QgsProcessingParameterBoolean, QgsProcessingParameterEnum,
                       QgsProcessingParameterExtent, QgsProcessingParameterFeatureSource,
                       QgsProcessingParameterField, QgsProcessingParameterFile,
                       QgsProcessingParameterFileDestination, QgsProcessingParameterNumber,
                       QgsProcessingParameterRasterDestination, QgsProcessingParameterString,
                       QgsProcessingParameterVectorDestination, QgsVectorFileWriter)

from . import gridkit_cli

# The algorithms and the -a keys each takes come from gridkit itself
# (gridkit_cli.algorithms(): `gridkit grid --algorithms`, common ones first),
# read when the provider loads its algorithms (again after the settings change).
_LIST = None


def configured_program():
    """The Processing setting's value ('' when unset or outside QGIS's
    Processing framework)."""
    try:
        from processing.core.ProcessingConfig import ProcessingConfig
    except ImportError:
        return ""
    return (ProcessingConfig.getSetting(gridkit_cli.SETTING) or "").strip()


def reset_algorithm_list():
    global _LIST
    _LIST = None


def algorithm_list():
    """[(name, keys or None, summary)]: keys None when gridkit was not found
    (the names then are the usual ones, and every key is passed on)."""
    global _LIST
    if _LIST is None:
        _LIST = gridkit_cli.algorithms(gridkit_cli.executable(configured_program())) or [
            (n, None, "") for n in gridkit_cli.PREFERRED_ORDER]
    return _LIST


# Typed parameter -> -a key (numbers; omitted when left empty).
NUMBER_KEYS = [("POWER", "power", "Power (invdist, invdistnn)"),
               ("SMOOTHING", "smoothing", "Smoothing (invdist, invdistnn)"),
               ("RADIUS", "radius", "Search radius (invdistnn, linear, aidw, kriging, ...); "
                "heatmap: kernel radius"),
               ("RADIUS1", "radius1", "First search-ellipse radius"),
               ("RADIUS2", "radius2", "Second search-ellipse radius"),
               ("ANGLE", "angle", "Search-ellipse angle, or the density ellipse's (degrees)"),
               ("MAX_POINTS", "max_points", "Maximum number of points"),
               ("MIN_POINTS", "min_points", "Minimum number of points"),
               ("NODATA", "nodata", "Nodata value"),
               ("AIDW_K", "k", "aidw: neighbours for the density (k)"),
               ("AIDW_R_MIN", "r_min", "aidw: r_min"),
               ("AIDW_R_MAX", "r_max", "aidw: r_max"),
               ("PSILL", "psill", "kriging: partial sill"),
               ("RANGE", "range", "kriging: range"),
               ("NUGGET", "nugget", "kriging: nugget"),
               ("BANDWIDTH", "bandwidth",
                "Density: bandwidth sigma (gauss, kernel_smooth; empty: Scott's rule)"),
               ("BANDWIDTH_X", "bandwidth_x", "Density: sigma along the ellipse's first axis"),
               ("BANDWIDTH_Y", "bandwidth_y", "Density: sigma along the ellipse's second axis"),
               ("EPSILON", "epsilon", "Density: error bound epsilon (gauss, kernel_smooth)"),
               ("DECAY", "decay", "heatmap: the triangular kernel's decay")]
INTEGER_PARAMS = {"MAX_POINTS", "MIN_POINTS", "AIDW_K"}
# Typed choices -> -a key=value (omitted when left empty).
ENUM_KEYS = [("HEATMAP_KERNEL", "kernel", "heatmap: kernel",
              ["quartic", "triangular", "uniform", "triweight", "epanechnikov"]),
             ("HEATMAP_OUTPUT", "output", "heatmap: output", ["raw", "scaled"]),
             ("DENSITY_METHOD", "method", "Density: method (gauss: auto, direct, cutoff, ifgt, "
              "fft; kernel_smooth: auto, direct, cutoff)",
              ["auto", "direct", "cutoff", "ifgt", "fft"]),
             ("DENSITY_MODE", "mode", "gauss: error bound, absolute or relative",
              ["absolute", "relative"]),
             ("DENSITY_NORMALIZE", "normalize",
              "gauss: a density (divided by 2 pi sigma^2) or the plain sum", ["yes", "no"])]
KRIGING_TYPES = ["ordinary", "simple", "universal"]
DATA_TYPES = ["Float64", "Float32", "Int32", "Int16", "UInt32", "UInt16", "Byte"]


def gridkit_executable():
    """The program to run, or an error that names the setting."""
    setting = configured_program()
    exe = gridkit_cli.executable(setting)
    if not exe or (setting and not (os.path.isfile(exe) and os.access(exe, os.X_OK))):
        raise QgsProcessingException(gridkit_cli.not_found_message(setting))
    return exe


def num(v):
    """A number as gridkit reads it back exactly."""
    return "%d" % v if float(v).is_integer() and abs(v) < 1e15 else repr(float(v))


class ProgressParser:
    """GDAL's text progress, as GDALTermProgress writes it: a number every 10 %
    and a dot every 2.5 %, then ' - done.'; other lines are messages."""

    _progress = re.compile(r"^(\d+|\.)+( - done\.?)?$")

    def __init__(self, feedback):
        self.feedback = feedback
        self.line = ""
        self.messages = []

    def _update(self, text):
        if "done" in text:
            self.feedback.setProgress(100.0)
            return
        text = text.rstrip("0123456789")  # a number still being written
        last, dots = None, 0
        for tok in re.findall(r"\d+|\.", text):
            if tok == ".":
                dots += 1
            else:
                last, dots = int(tok), 0
        if last is not None:
            self.feedback.setProgress(min(100.0, last + 2.5 * dots))

    def feed(self, text):
        self.line += text
        while "\n" in self.line:
            ln, self.line = self.line.split("\n", 1)
            if self._progress.match(ln.strip()):
                self._update(ln.strip())
            elif ln.strip():
                self.messages.append(ln)
                self.feedback.pushInfo(ln)
        if self.line and self._progress.match(self.line.strip() or "x"):
            self._update(self.line.strip())

    def flush(self):
        self.feed("\n")


def run_gridkit(args, feedback, stdout_path=None):
    """Runs gridkit with args; stdout to stdout_path (or discarded). Returns
    the parser (its messages). Raises QgsProcessingException on failure.
    The process and its pipe are closed on every path (with-blocks), so no
    ResourceWarning."""
    cmd = [gridkit_executable()] + [str(a) for a in args]
    feedback.pushCommandInfo(" ".join(shlex.quote(c) for c in cmd))
    parser = ProgressParser(feedback)
    with open(stdout_path, "wb") if stdout_path else open(os.devnull, "wb") as out, \
            subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE) as proc:
        fd = proc.stderr.fileno()
        while True:
            if feedback.isCanceled():
                proc.terminate()
                proc.wait()
                raise QgsProcessingException("cancelled")
            ready, _, _ = select.select([fd], [], [], 0.2)
            if not ready:
                continue
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            parser.feed(chunk.decode("utf-8", "replace"))
        rc = proc.wait()
    parser.flush()
    if rc != 0:
        why = [m for m in parser.messages if "error" in m.lower()] or parser.messages[-3:]
        raise QgsProcessingException("gridkit failed (exit %d): %s" % (rc, " ".join(why)))
    return parser


class GridkitAlgorithmBase(QgsProcessingAlgorithm):
    """Shared parameters: the point source and the gridding algorithm."""

    def createInstance(self):  # noqa: N802
        return type(self)()

    def group(self):
        return "gridkit"

    def groupId(self):  # noqa: N802
        return "gridkit"

    def flags(self):
        return super().flags() | QgsProcessingAlgorithm.FlagNoThreading

    # Toolbox search matches these words, the display name and the short
    # description (tests/driver/qgis_algorithm_list.py checks every tool has them)
    TAGS = []
    SHORT = ""

    def tags(self):
        return list(self.TAGS) + ["gridkit"]

    def shortDescription(self):  # noqa: N802
        return self.SHORT

    # -- source ---------------------------------------------------------
    def add_source_parameters(self):
        self.addParameter(QgsProcessingParameterFeatureSource(
            "INPUT", "Point layer", [QgsProcessing.TypeVectorAnyGeometry]))
        self.addParameter(QgsProcessingParameterField(
            "Z_FIELD", "Z value from field (else the geometry's Z)", parentLayerParameterName="INPUT",
            type=QgsProcessingParameterField.Numeric, optional=True))

    def source_args(self, parameters, context, feedback):
        path, layer = self.parameterAsCompatibleSourceLayerPathAndLayerName(
            parameters, "INPUT", context, QgsVectorFileWriter.supportedFormatExtensions(),
            "gpkg", feedback)
        args = [path]
        if layer:
            args += ["-l", layer]
        z = self.parameterAsString(parameters, "Z_FIELD", context)
        if z:
            args += ["-zfield", z]
        return args

    # -- algorithm (-a) ----------------------------------------------------
    def add_algorithm_parameters(self, default=0):
        self.addParameter(QgsProcessingParameterEnum(
            "ALGORITHM", "Algorithm", options=[a[0] for a in algorithm_list()],
            defaultValue=default))
        for name, _key, desc in NUMBER_KEYS:
            kind = (QgsProcessingParameterNumber.Integer if name in INTEGER_PARAMS
                    else QgsProcessingParameterNumber.Double)
            self.addParameter(QgsProcessingParameterNumber(name, desc, type=kind, optional=True))
        for name, _key, desc, options in ENUM_KEYS:
            self.addParameter(QgsProcessingParameterEnum(name, desc, options=options,
                                                         optional=True))
        self.addParameter(QgsProcessingParameterEnum(
            "KRIGING_TYPE", "kriging: type", options=KRIGING_TYPES, optional=True))
        self.addParameter(QgsProcessingParameterString(
            "VARIOGRAM_MODEL", "kriging: variogram model (Sph, Exp, ..., "
            "'Nug(0.05)+Sph(0.59,897)' or auto)", optional=True))
        self.addParameter(QgsProcessingParameterFile(
            "VARIOGRAM_FILE", "kriging: variogram model file (JSON from the variogram tool)",
            optional=True, fileFilter="JSON (*.json)"))
        self.addParameter(QgsProcessingParameterBoolean(
            "KRIGING_VARIANCE", "kriging: add a variance band", defaultValue=True))
        self.addParameter(QgsProcessingParameterString(
            "ALGORITHM_OPTIONS", "More -a options (key=value:key=value)", optional=True))

    def algorithm_string(self, parameters, context, feedback):
        name, keys, _summary = algorithm_list()[self.parameterAsEnum(parameters, "ALGORITHM",
                                                                       context)]
        if keys is None:  # listed before gridkit was found: ask it now
            keys = dict((n, k) for n, k, _s in gridkit_cli.algorithms(gridkit_executable())
                        ).get(name)
        parts = [name]

        def put(key, value):
            if keys is None or key in keys:
                parts.append("%s=%s" % (key, value))
            else:
                feedback.pushWarning("%s takes no %s: ignored" % (name, key))

        for pname, key, _desc in NUMBER_KEYS:
            if parameters.get(pname) is not None and parameters.get(pname) != "":
                put(key, num(self.parameterAsDouble(parameters, pname, context)))
        for pname, key, _desc, options in ENUM_KEYS:
            if parameters.get(pname) is not None and parameters.get(pname) != "":
                put(key, options[self.parameterAsEnum(parameters, pname, context)])
        if name == "kriging":
            if parameters.get("KRIGING_TYPE") is not None:
                put("type", KRIGING_TYPES[self.parameterAsEnum(parameters, "KRIGING_TYPE",
                                                               context)])
            model = self.parameterAsString(parameters, "VARIOGRAM_MODEL", context)
            if model:
                put("model", model)
            vfile = self.parameterAsFile(parameters, "VARIOGRAM_FILE", context)
            if vfile:
                put("variogram", vfile)
            if not self.parameterAsBool(parameters, "KRIGING_VARIANCE", context):
                put("variance", "no")
        more = self.parameterAsString(parameters, "ALGORITHM_OPTIONS", context)
        if more:
            parts += [p for p in more.strip(":").split(":") if p]
        return ":".join(parts)


class GridAlgorithm(GridkitAlgorithmBase):
    """gridkit grid: points to a raster."""

    TAGS = ["interpolation", "interpolate", "gridding", "grid", "gdal_grid", "raster", "points",
            "idw", "inverse distance", "invdist", "nearest neighbour", "nearest neighbor",
            "moving average", "linear", "tin", "triangulation", "delaunay", "aidw",
            "adaptive idw", "kriging", "ordinary kriging", "universal kriging", "geostatistics",
            "heatmap", "kernel density", "kde", "gaussian", "gauss", "nadaraya-watson",
            "minimum", "maximum", "count", "range"]
    SHORT = ("Interpolates points to a raster: IDW, nearest, moving average, linear, "
             "kriging, adaptive IDW, kernel densities (gdal_grid's algorithms, faster).")

    def name(self):
        return "grid"

    def displayName(self):  # noqa: N802
        return "Grid (interpolate points to a raster)"

    def shortHelpString(self):  # noqa: N802
        return ("Runs `gridkit grid` (gdal_grid's arguments and results, faster). "
                "Parameters left empty take gridkit's defaults; parameters an algorithm does "
                "not take are ignored with a warning. For a heatmap on QGIS Heatmap's grid "
                "use the Heatmap tool. The algorithms:<br>" +
                "<br>".join(("<b>%s</b>: %s" % (n, s)) if s else "<b>%s</b>" % n
                            for n, _k, s in algorithm_list()))

    def add_grid_parameters(self):
        self.add_source_parameters()
        self.add_algorithm_parameters()
        self.addParameter(QgsProcessingParameterExtent(
            "EXTENT", "Extent (outer pixel edges; default: the points' bounding box)",
            optional=True))
        self.addParameter(QgsProcessingParameterNumber(
            "WIDTH", "Width (columns)", type=QgsProcessingParameterNumber.Integer,
            defaultValue=256, minValue=1))
        self.addParameter(QgsProcessingParameterNumber(
            "HEIGHT", "Height (rows)", type=QgsProcessingParameterNumber.Integer,
            defaultValue=256, minValue=1))
        self.addParameter(QgsProcessingParameterNumber(
            "PIXEL_SIZE", "Pixel size (instead of width and height)",
            type=QgsProcessingParameterNumber.Double, optional=True, minValue=0))
        self.addParameter(QgsProcessingParameterEnum(
            "DATA_TYPE", "Output data type", options=DATA_TYPES, defaultValue=0))
        self.addParameter(QgsProcessingParameterNumber(
            "THREADS", "Threads (empty: every core)", type=QgsProcessingParameterNumber.Integer,
            optional=True, minValue=1))
        self.addParameter(QgsProcessingParameterString(
            "EXTRA", "Additional command-line parameters", optional=True))

    def initAlgorithm(self, config=None):  # noqa: N802
        self.add_grid_parameters()
        self.addParameter(QgsProcessingParameterRasterDestination("OUTPUT", "Interpolated"))

    def grid_args(self, parameters, context, feedback):
        """Every argument of `gridkit grid` but the output name."""
        args = ["-a", self.algorithm_string(parameters, context, feedback)]
        source = self.parameterAsSource(parameters, "INPUT", context)
        if parameters.get("EXTENT"):
            ext = self.parameterAsExtent(parameters, "EXTENT", context, source.sourceCrs())
            if not ext.isNull():
                args += ["-txe", num(ext.xMinimum()), num(ext.xMaximum()),
                         "-tye", num(ext.yMinimum()), num(ext.yMaximum())]
        if parameters.get("PIXEL_SIZE"):
            px = num(self.parameterAsDouble(parameters, "PIXEL_SIZE", context))
            args += ["-tr", px, px]
        else:
            args += ["-outsize", str(self.parameterAsInt(parameters, "WIDTH", context)),
                     str(self.parameterAsInt(parameters, "HEIGHT", context))]
        args += ["-ot", DATA_TYPES[self.parameterAsEnum(parameters, "DATA_TYPE", context)]]
        if parameters.get("THREADS"):
            args += ["--threads", str(self.parameterAsInt(parameters, "THREADS", context))]
        extra = self.parameterAsString(parameters, "EXTRA", context)
        if extra:
            args += shlex.split(extra)
        return args + self.source_args(parameters, context, feedback)

    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        out = self.parameterAsOutputLayer(parameters, "OUTPUT", context)
        run_gridkit(["grid"] + self.grid_args(parameters, context, feedback) + [out], feedback)
        return {"OUTPUT": out}


class GridkitJobFileAlgorithm(GridAlgorithm):
    """A .gridkit job file: a raster that the GDAL plugin computes on read."""

    TAGS = ["lazy", "on the fly", "virtual raster", "gdal plugin", "gdal_gridkit", ".gridkit",
            "job file", "interpolation", "gdal_grid", "idw", "inverse distance", "kriging",
            "heatmap", "kernel density", "overviews"]
    SHORT = ("Writes a .gridkit file: a raster the GDAL plugin computes block by block "
             "as QGIS displays it.")

    def name(self):
        return "gridfile"

    def displayName(self):  # noqa: N802
        return "Lazy grid (.gridkit file, computed as viewed)"

    def shortHelpString(self):  # noqa: N802
        return ("Writes the arguments of `gridkit grid` to a .gridkit file. With the GDAL "
                "plugin gdal_GRIDKIT.so installed (or on GDAL_DRIVER_PATH) QGIS opens it as a "
                "raster whose blocks and overviews are computed when displayed. The source "
                "must be a file that stays where it is.")

    def initAlgorithm(self, config=None):  # noqa: N802
        self.add_grid_parameters()
        self.addParameter(QgsProcessingParameterFileDestination(
            "OUTPUT", "gridkit job file", fileFilter="gridkit job (*.gridkit)"))

    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        out = self.parameterAsFileOutput(parameters, "OUTPUT", context)
        args = self.grid_args(parameters, context, feedback)
        with open(out, "w") as f:
            f.write("# gridkit grid arguments (without the output name)\n")
            f.write(" ".join(shlex.quote(a) for a in args) + "\n")
        return {"OUTPUT": out}


class VariogramAlgorithm(GridkitAlgorithmBase):
    """gridkit variogram: experimental variogram, model fit, plot."""

    ESTIMATORS = ["matheron", "cressie"]
    TAGS = ["variogram", "semivariogram", "semi-variogram", "experimental variogram",
            "variogram model", "fit", "geostatistics", "kriging", "gstat", "spatial correlation",
            "matheron", "cressie"]
    SHORT = ("The points' sample variogram and a fitted model (JSON for kriging), "
             "with a plot.")

    def name(self):
        return "variogram"

    def displayName(self):  # noqa: N802
        return "Variogram (experimental, fitted model, plot)"

    def shortHelpString(self):  # noqa: N802
        return ("Runs `gridkit variogram`: the sample variogram of the points (as gstat's "
                "variogram()), optionally a fitted model (--fit, as gstat's fit.variogram()), "
                "written as JSON (usable as the kriging variogram file) and plotted.")

    def initAlgorithm(self, config=None):  # noqa: N802
        self.add_source_parameters()
        self.addParameter(QgsProcessingParameterNumber(
            "CUTOFF", "Cutoff (largest pair distance)", type=QgsProcessingParameterNumber.Double,
            optional=True, minValue=0))
        self.addParameter(QgsProcessingParameterNumber(
            "LAG_WIDTH", "Lag width", type=QgsProcessingParameterNumber.Double, optional=True,
            minValue=0))
        self.addParameter(QgsProcessingParameterNumber(
            "LAGS", "Number of lags", type=QgsProcessingParameterNumber.Integer, optional=True,
            minValue=1))
        self.addParameter(QgsProcessingParameterEnum(
            "ESTIMATOR", "Estimator", options=self.ESTIMATORS, defaultValue=0))
        self.addParameter(QgsProcessingParameterString(
            "FIT", "Fit model (e.g. Nug,Sph; empty: no fit)", optional=True))
        self.addParameter(QgsProcessingParameterString(
            "EXTRA", "Additional command-line parameters", optional=True))
        self.addParameter(QgsProcessingParameterFileDestination(
            "OUTPUT", "Variogram (JSON)", fileFilter="JSON (*.json)"))
        self.addParameter(QgsProcessingParameterFileDestination(
            "PLOT", "Plot", fileFilter="PNG (*.png);;SVG (*.svg)"))

    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        out = self.parameterAsFileOutput(parameters, "OUTPUT", context)
        plot = self.parameterAsFileOutput(parameters, "PLOT", context)
        args = ["variogram"] + self.source_args(parameters, context, feedback)
        for pname, opt in (("CUTOFF", "--cutoff"), ("LAG_WIDTH", "--width")):
            if parameters.get(pname):
                args += [opt, num(self.parameterAsDouble(parameters, pname, context))]
        if parameters.get("LAGS"):
            args += ["--lags", str(self.parameterAsInt(parameters, "LAGS", context))]
        args += ["--estimator",
                 self.ESTIMATORS[self.parameterAsEnum(parameters, "ESTIMATOR", context)]]
        fit = self.parameterAsString(parameters, "FIT", context)
        if fit:
            args += ["--fit", fit]
        extra = self.parameterAsString(parameters, "EXTRA", context)
        if extra:
            args += shlex.split(extra)
        args += ["--format", "json", "-o", out]
        if plot:
            args += ["--plot", plot]
        run_gridkit(args, feedback)
        return {"OUTPUT": out, "PLOT": plot}


class CrossValidationAlgorithm(GridkitAlgorithmBase):
    """gridkit cv: leave-one-out or K-fold cross-validation of an algorithm."""

    STATS = ["n", "n_failed", "mean_error", "rmse", "mae", "cor", "msdr"]
    TAGS = ["cross-validation", "cross validation", "crossvalidation", "leave-one-out", "loo",
            "k-fold", "validation", "accuracy", "error", "rmse", "mae", "residuals",
            "interpolation", "idw", "inverse distance", "kriging"]
    SHORT = ("Leave-one-out or K-fold cross-validation of an interpolation: RMSE, MAE, "
             "residuals.")

    def name(self):
        return "crossvalidation"

    def displayName(self):  # noqa: N802
        return "Cross-validation"

    def shortHelpString(self):  # noqa: N802
        return ("Runs `gridkit cv`: predicts every point from the others (leave-one-out) or "
                "each of K folds from the rest, with the same algorithm and parameters as the "
                "Grid tool, and reports the errors.")

    def initAlgorithm(self, config=None):  # noqa: N802
        self.add_source_parameters()
        self.add_algorithm_parameters()
        self.addParameter(QgsProcessingParameterNumber(
            "NFOLD", "Folds (empty: leave-one-out)", type=QgsProcessingParameterNumber.Integer,
            optional=True, minValue=2))
        self.addParameter(QgsProcessingParameterNumber(
            "SEED", "Random seed of the folds", type=QgsProcessingParameterNumber.Integer,
            defaultValue=1))
        self.addParameter(QgsProcessingParameterVectorDestination(
            "OUTPUT", "Cross-validation residuals", optional=True,
            createByDefault=False))
        self.addParameter(QgsProcessingParameterFileDestination(
            "REPORT", "Summary (JSON)", fileFilter="JSON (*.json)"))
        for s in self.STATS:
            self.addOutput(QgsProcessingOutputNumber(s.upper(), s))
        self.addOutput(QgsProcessingOutputString("SUMMARY", "Summary"))

    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        report = self.parameterAsFileOutput(parameters, "REPORT", context)
        args = ["cv"] + self.source_args(parameters, context, feedback)
        args += ["-a", self.algorithm_string(parameters, context, feedback), "--format=json"]
        if parameters.get("NFOLD"):
            args += ["--nfold", str(self.parameterAsInt(parameters, "NFOLD", context)),
                     "--seed", str(self.parameterAsInt(parameters, "SEED", context))]
        out = None
        if parameters.get("OUTPUT"):
            out = self.parameterAsOutputLayer(parameters, "OUTPUT", context)
            if out:
                args += ["-o", out]
        run_gridkit(args, feedback, stdout_path=report)
        with open(report) as f:
            summary = json.load(f)
        result = {"REPORT": report, "SUMMARY": json.dumps(summary)}
        for s in self.STATS:
            if isinstance(summary.get(s), (int, float)):
                result[s.upper()] = summary[s]
                feedback.pushInfo("%s = %s" % (s, summary[s]))
        if out:
            result["OUTPUT"] = out
        return result
