// SPDX-License-Identifier: MIT
// natural_cgal - the peer of `gridkit grid -a natural`: CGAL's
// natural_neighbor_coordinates_2 (Sibson's coordinates) on CGAL's Delaunay
// triangulation, the value sum(w z) / sum(w) at each query.
//   natural_cgal POINTS QUERIES   (POINTS: "x y z" lines; QUERIES: "x y")
// prints one line per query: the value with 17 digits, or "outside" where
// CGAL says the query is outside the convex hull.
//   natural_cgal --c1 POINTS QUERIES
// Sibson's C1 form: the gradients by sibson_gradient_fitting_nn_2, the value by
// sibson_c1_interpolation; "sibson V" (Sibson's value) where a natural neighbour is on the
// hull (CGAL fits no gradient there, and gives no C1 value).
//   natural_cgal --loo POINTS
// leave-one-out: each point's value from all the others, in input order. Points are inserted in
// input order, so that of coincident points the first is the vertex, and
// its value is the first's (gridkit's rule).
#include <CGAL/Delaunay_triangulation_2.h>
#include <CGAL/Exact_predicates_inexact_constructions_kernel.h>
#include <CGAL/Interpolation_gradient_fitting_traits_2.h>
#include <CGAL/interpolation_functions.h>
#include <CGAL/natural_neighbor_coordinates_2.h>
#include <CGAL/sibson_gradient_fitting.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <utility>
#include <vector>

typedef CGAL::Exact_predicates_inexact_constructions_kernel K;
typedef K::FT FT;
typedef K::Point_2 Point;
typedef CGAL::Delaunay_triangulation_2<K> Dt;

// The value at q from the triangulation dt and the points' values.
static void print_value(const Dt &dt, const std::map<Point, double> &value, const Point &q)
{
    std::vector<std::pair<Dt::Vertex_handle, FT>> coords;
    auto r = CGAL::natural_neighbor_coordinates_2(
        dt, q, std::back_inserter(coords), CGAL::Identity<std::pair<Dt::Vertex_handle, FT>>());
    if (!r.third) {
        std::printf("outside\n");
        return;
    }
    double s = 0.0;
    for (const auto &c : coords)
        s += c.second * value.at(c.first->point());
    std::printf("%.17g\n", s / r.second);
}

// Sibson's C1 values at the queries (--c1).
static int c1(std::ifstream &pin, std::ifstream &qin)
{
    typedef std::map<Point, FT, K::Less_xy_2> Values;
    typedef std::map<Point, K::Vector_2, K::Less_xy_2> Gradients;
    typedef CGAL::Interpolation_gradient_fitting_traits_2<K> Traits;
    Dt dt;
    Values value;
    double x, y, z;
    while (pin >> x >> y >> z) {
        Point p(x, y);
        dt.insert(p);
        value.emplace(p, z); // the first of coincident points
    }
    Gradients grad;
    CGAL::sibson_gradient_fitting_nn_2(
        dt, std::inserter(grad, grad.begin()),
        CGAL::Interpolation::internal::Extract_point_in_pair<Dt, K::Vector_2>(),
        CGAL::Data_access<Values>(value), Traits());
    while (qin >> x >> y) {
        Point q(x, y);
        std::vector<std::pair<Point, FT>> coords;
        auto r = CGAL::natural_neighbor_coordinates_2(dt, q, std::back_inserter(coords));
        if (!r.third) {
            std::printf("outside\n");
            continue;
        }
        auto v = CGAL::sibson_c1_interpolation(coords.begin(), coords.end(), r.second, q,
                                               CGAL::Data_access<Values>(value),
                                               CGAL::Data_access<Gradients>(grad), Traits());
        if (v.second) {
            std::printf("%.17g\n", v.first);
            continue;
        }
        double s = 0.0;
        for (const auto &c : coords)
            s += c.second * value.at(c.first);
        std::printf("sibson %.17g\n", s / r.second);
    }
    return 0;
}

static int leave_one_out(const char *path)
{
    std::ifstream pin(path);
    if (!pin) {
        std::cerr << "natural_cgal: cannot open " << path << "\n";
        return 2;
    }
    std::vector<Point> pts;
    std::vector<double> zs;
    double x, y, z;
    while (pin >> x >> y >> z) {
        pts.emplace_back(x, y);
        zs.push_back(z);
    }
    for (size_t i = 0; i < pts.size(); i++) {
        Dt dt;
        std::map<Point, double> value;
        for (size_t j = 0; j < pts.size(); j++)
            if (j != i) {
                dt.insert(pts[j]);
                value.emplace(pts[j], zs[j]);
            }
        print_value(dt, value, pts[i]);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && std::string(argv[1]) == "--loo")
        return leave_one_out(argv[2]);
    if (argc == 4 && std::string(argv[1]) == "--c1") {
        std::ifstream pin(argv[2]), qin(argv[3]);
        if (!pin || !qin) {
            std::cerr << "natural_cgal: cannot open the inputs\n";
            return 2;
        }
        return c1(pin, qin);
    }
    if (argc != 3) {
        std::cerr << "usage: natural_cgal [--c1] POINTS QUERIES | natural_cgal --loo POINTS\n";
        return 2;
    }
    std::ifstream pin(argv[1]), qin(argv[2]);
    if (!pin || !qin) {
        std::cerr << "natural_cgal: cannot open the inputs\n";
        return 2;
    }
    Dt dt;
    std::map<Point, double> value;
    double x, y, z;
    while (pin >> x >> y >> z) {
        Point p(x, y);
        dt.insert(p);
        value.emplace(p, z); // the first of coincident points
    }
    while (qin >> x >> y)
        print_value(dt, value, Point(x, y));
    return 0;
}
