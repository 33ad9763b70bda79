# SPDX-License-Identifier: MIT
"""gridkit ridges in Processing: the curves a point cloud is spread around,
as lines (docs/ridges.md)."""
import shlex

from qgis.core import (QgsProcessing, QgsProcessingParameterBoolean,
                       QgsProcessingParameterEnum, QgsProcessingParameterNumber,
                       QgsProcessingParameterString, QgsProcessingParameterVectorDestination)

from .algorithms import GridkitAlgorithmBase, num, run_gridkit

METHODS = ["curve", "density"]
SEEDS = ["data", "mesh"]
THRESHOLD_MODES = ["relative", "absolute"]
# Typed parameter -> -a key, the methods that take it, description.
RIDGE_KEYS = [("R1", "r1", ("curve",), "curve: r1, the balls' radius (empty: estimated)"),
              ("R2", "r2", ("curve",), "curve: r2, the joining radius (empty: 2 r1)"),
              ("GAP", "gap", ("curve",), "curve: gap bridged between ends (empty: 2 r2; 0 off)"),
              ("BANDWIDTH", "bandwidth", ("density",),
               "density: bandwidth, the kernel's sigma (empty: estimated)"),
              ("THRESHOLD", "threshold", ("density",),
               "density: density threshold (empty: 0.1)"),
              ("SPACING", "spacing", ("density",),
               "density: mesh spacing (seeds=mesh; empty: bandwidth / 2)"),
              ("MIN_LENGTH", "min_length", ("curve", "density"),
               "Shortest line kept (empty: the method's default)"),
              ("SIMPLIFY", "simplify", ("curve", "density"),
               "Douglas-Peucker tolerance (empty or 0: none)")]


class RidgesAlgorithm(GridkitAlgorithmBase):
    """gridkit ridges: ridge lines of a point cloud, to a vector layer."""

    TAGS = ["ridges", "ridge lines", "lines", "centreline", "centerline", "skeleton",
            "curve reconstruction", "mean shift", "density ridges", "faults", "veins", "tracks",
            "noisy points", "point cloud", "vectorize"]
    SHORT = "The lines that noisy points are spread around (faults, tracks, veins), as a layer."

    def name(self):
        return "ridges"

    def displayName(self):  # noqa: N802
        return "Ridges (lines from noisy points)"

    def shortHelpString(self):  # noqa: N802
        return ("Runs `gridkit ridges`: the curves that the points are spread around (fault "
                "traces, veins, power lines, tracks), as lines with length, n_support, closed, "
                "mean_density, width and method. curve: Rupniewski's curve reconstruction "
                "(r1, r2); density: density ridges by subspace-constrained mean shift "
                "(bandwidth, threshold, seeds). 3-D uses the Z field, else the geometry's Z, "
                "as the third coordinate.")

    def initAlgorithm(self, config=None):  # noqa: N802
        self.add_source_parameters()
        self.addParameter(QgsProcessingParameterEnum(
            "METHOD", "Method", options=METHODS, defaultValue=0))
        for name, _key, _methods, desc in RIDGE_KEYS:
            self.addParameter(QgsProcessingParameterNumber(
                name, desc, type=QgsProcessingParameterNumber.Double, optional=True,
                minValue=0))
        self.addParameter(QgsProcessingParameterEnum(
            "THRESHOLD_MODE", "density: threshold mode", options=THRESHOLD_MODES,
            optional=True))
        self.addParameter(QgsProcessingParameterEnum(
            "SEEDS", "density: walkers start at", options=SEEDS, optional=True))
        self.addParameter(QgsProcessingParameterBoolean(
            "THREE_D", "3-D (Z is the third coordinate; LineStringZ)", defaultValue=False))
        self.addParameter(QgsProcessingParameterString(
            "METHOD_OPTIONS", "More -a options (key=value:key=value)", optional=True))
        self.addParameter(QgsProcessingParameterString(
            "EXTRA", "Additional command-line parameters", optional=True))
        out = QgsProcessingParameterVectorDestination(
            "OUTPUT", "Ridge lines", type=QgsProcessing.TypeVectorLine)
        out.setSupportsNonFileBasedOutput(False)  # gridkit writes a file (no memory: layers)
        self.addParameter(out)

    def method_string(self, parameters, context, feedback):
        method = METHODS[self.parameterAsEnum(parameters, "METHOD", context)]
        parts = [method]
        for pname, key, methods, _desc in RIDGE_KEYS:
            if parameters.get(pname) is None or parameters.get(pname) == "":
                continue
            if method in methods:
                parts.append("%s=%s" % (key, num(self.parameterAsDouble(parameters, pname,
                                                                        context))))
            else:
                feedback.pushWarning("%s takes no %s: ignored" % (method, key))
        for pname, key, options in (("THRESHOLD_MODE", "threshold_mode", THRESHOLD_MODES),
                                    ("SEEDS", "seeds", SEEDS)):
            if parameters.get(pname) is None:
                continue
            if method == "density":
                parts.append("%s=%s" % (key, options[self.parameterAsEnum(parameters, pname,
                                                                           context)]))
            else:
                feedback.pushWarning("%s takes no %s: ignored" % (method, key))
        more = self.parameterAsString(parameters, "METHOD_OPTIONS", context)
        if more:
            parts += [p for p in more.strip(":").split(":") if p]
        return ":".join(parts)

    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        out = self.parameterAsOutputLayer(parameters, "OUTPUT", context)
        args = ["ridges"] + self.source_args(parameters, context, feedback)
        args += [out, "-a", self.method_string(parameters, context, feedback)]
        if self.parameterAsBool(parameters, "THREE_D", context):
            args.append("--3d")
        extra = self.parameterAsString(parameters, "EXTRA", context)
        if extra:
            args += shlex.split(extra)
        run_gridkit(args, feedback)
        return {"OUTPUT": out}
