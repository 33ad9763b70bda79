# SPDX-License-Identifier: MIT
"""Heatmap (kernel density, gridkit): QGIS Heatmap's parameters and grid,
computed by `gridkit grid -a heatmap` (docs/heatmap.md). Given only a pixel
size, gridkit takes QGIS's grid: the points' extent widened by the radius."""
from qgis.core import (QgsProcessing, QgsProcessingParameterDefinition,
                       QgsProcessingParameterDistance, QgsProcessingParameterEnum,
                       QgsProcessingParameterFeatureSource, QgsProcessingParameterField,
                       QgsProcessingParameterNumber, QgsProcessingParameterRasterDestination,
                       QgsVectorFileWriter)

from .algorithms import GridkitAlgorithmBase, num, run_gridkit

# QGIS Heatmap's choices, in its order (so an index means the same kernel)
KERNELS = [("Quartic", "quartic"), ("Triangular", "triangular"), ("Uniform", "uniform"),
           ("Triweight", "triweight"), ("Epanechnikov", "epanechnikov")]
OUTPUT_VALUES = [("Raw", "raw"), ("Scaled", "scaled")]
DATA_TYPES = ["Float32", "Float64"]
# QGIS Heatmap writes -9999 where no point is within the radius
NODATA = -9999


class HeatmapAlgorithm(GridkitAlgorithmBase):
    """QGIS's Heatmap (Kernel Density Estimation), by gridkit."""

    TAGS = ["heatmap", "heat map", "kde", "kernel density", "kernel density estimation",
            "density", "hotspot", "hot spot", "quartic", "triangular", "uniform", "triweight",
            "epanechnikov", "points", "raster", "interpolation"]
    SHORT = ("QGIS Heatmap's kernel density on QGIS's grid (radius, pixel size, kernel, "
             "weight, raw or scaled), computed exactly by gridkit.")

    def name(self):
        return "heatmap"

    def displayName(self):  # noqa: N802
        return "Heatmap (kernel density, gridkit)"

    def shortHelpString(self):  # noqa: N802
        return ("Runs `gridkit grid -a heatmap`: the kernel density of the points with the "
                "parameters of QGIS's <i>Heatmap (Kernel Density Estimation)</i> and its grid: "
                "the points' extent widened by the radius on every side, from its top-left "
                "corner, in pixels of exactly the pixel size. Each cell holds the sum over the "
                "points within the radius of weight &times; K(d / radius) (<b>Raw</b>), or that "
                "times QGIS's scaling constant (<b>Scaled</b>); cells with no point within the "
                "radius are nodata (-9999), as in QGIS. The weight comes from the weight field, "
                "else every point weighs 1. The decay ratio applies to the triangular kernel "
                "only. gridkit computes the exact kernel sum at every cell centre, so on "
                "ordinary data its values can differ from QGIS 3.22's by up to about 1 % "
                "(docs/heatmap.md says where and why).")

    def initAlgorithm(self, config=None):  # noqa: N802
        self.addParameter(QgsProcessingParameterFeatureSource(
            "INPUT", "Point layer", [QgsProcessing.TypeVectorPoint]))
        self.addParameter(QgsProcessingParameterDistance(
            "RADIUS", "Radius", 100.0, "INPUT", False, 0.0))
        self.addParameter(QgsProcessingParameterDistance(
            "PIXEL_SIZE", "Pixel size", 10.0, "INPUT", False, 0.0))
        advanced = []
        advanced.append(QgsProcessingParameterField(
            "WEIGHT_FIELD", "Weight from field", None, "INPUT",
            QgsProcessingParameterField.Numeric, optional=True))
        advanced.append(QgsProcessingParameterEnum(
            "KERNEL", "Kernel shape", options=[k[0] for k in KERNELS], defaultValue=0))
        advanced.append(QgsProcessingParameterNumber(
            "DECAY", "Decay ratio (Triangular kernels only)", QgsProcessingParameterNumber.Double,
            0.0, True, -100.0, 100.0))
        advanced.append(QgsProcessingParameterEnum(
            "OUTPUT_VALUE", "Output value scaling", options=[o[0] for o in OUTPUT_VALUES],
            defaultValue=0))
        advanced.append(QgsProcessingParameterEnum(
            "DATA_TYPE", "Output data type (QGIS Heatmap: Float32)", options=DATA_TYPES,
            defaultValue=0))
        advanced.append(QgsProcessingParameterNumber(
            "THREADS", "Threads (empty: every core)", type=QgsProcessingParameterNumber.Integer,
            optional=True, minValue=1))
        for p in advanced:
            p.setFlags(p.flags() | QgsProcessingParameterDefinition.FlagAdvanced)
            self.addParameter(p)
        self.addParameter(QgsProcessingParameterRasterDestination("OUTPUT", "Heatmap"))

    def heatmap_args(self, parameters, context, feedback):
        """Every argument of `gridkit grid` but the output name."""
        kernel = KERNELS[self.parameterAsEnum(parameters, "KERNEL", context)][1]
        a = ["heatmap", "radius=" + num(self.parameterAsDouble(parameters, "RADIUS", context)),
             "kernel=" + kernel]
        if kernel == "triangular" and parameters.get("DECAY") not in (None, ""):
            a.append("decay=" + num(self.parameterAsDouble(parameters, "DECAY", context)))
        a.append("output=" + OUTPUT_VALUES[self.parameterAsEnum(parameters, "OUTPUT_VALUE",
                                                                context)][1])
        a.append("nodata=%d" % NODATA)
        px = num(self.parameterAsDouble(parameters, "PIXEL_SIZE", context))
        # -tr without -txe/-tye: QGIS Heatmap's grid (docs/heatmap.md)
        args = ["-a", ":".join(a), "-tr", px, px,
                "-ot", DATA_TYPES[self.parameterAsEnum(parameters, "DATA_TYPE", context)]]
        if parameters.get("THREADS"):
            args += ["--threads", str(self.parameterAsInt(parameters, "THREADS", context))]
        path, layer = self.parameterAsCompatibleSourceLayerPathAndLayerName(
            parameters, "INPUT", context, QgsVectorFileWriter.supportedFormatExtensions(),
            "gpkg", feedback)
        args.append(path)
        if layer:
            args += ["-l", layer]
        weight = self.parameterAsString(parameters, "WEIGHT_FIELD", context)
        if weight:
            args += ["-zfield", weight]
        return args

    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        out = self.parameterAsOutputLayer(parameters, "OUTPUT", context)
        run_gridkit(["grid"] + self.heatmap_args(parameters, context, feedback) + [out],
                    feedback)
        return {"OUTPUT": out}
