#include "dynamics/validation.h"

#include "core/number_text.h"

#include <impulse/error.h>

#include <cmath>
#include <numbers>
#include <variant>

namespace impulse {
namespace {

// How far from 1 the length of a plane normal or joint axis may be before it is no unit vector.
constexpr Real k_unit_tolerance = Real(1e-3);

std::optional<SettingsProblem> problem(std::string path, std::string message) {
  return SettingsProblem{std::move(path), std::move(message)};
}

std::optional<SettingsProblem> prefixed(std::optional<SettingsProblem> p,
                                        const std::string& prefix) {
  if (p) p->path = prefix + p->path;
  return p;
}

std::optional<SettingsProblem> check_positive(Real value, const char* path) {
  if (!is_finite(value) || value <= 0) return problem(path, "must be a finite number > 0");
  return std::nullopt;
}

std::optional<SettingsProblem> check_non_negative(Real value, const char* path) {
  if (!is_finite(value) || value < 0) return problem(path, "must be a finite number >= 0");
  return std::nullopt;
}

std::optional<SettingsProblem> check_finite(const Vec3& v, const char* path) {
  if (!is_finite(v)) return problem(path, "must hold finite numbers");
  return std::nullopt;
}

std::optional<SettingsProblem> check_orientation(const Quat& q, const char* path) {
  if (!is_finite(q)) return problem(path, "must hold finite numbers");
  if (length(q) < k_min_direction_length) {
    return problem(path, "a quaternion of length " + number_text(length(q)) +
                             " is no rotation (its length must be at least " +
                             number_text(k_min_direction_length) + ")");
  }
  return std::nullopt;
}

struct GeometryChecker {
  std::optional<SettingsProblem> operator()(const Sphere& s) const {
    return check_positive(s.radius, "/radius");
  }
  std::optional<SettingsProblem> operator()(const Box& b) const {
    for (int i = 0; i < 3; ++i) {
      if (!is_finite(b.half_extents[i]) || b.half_extents[i] <= 0)
        return problem("/half_extents/" + std::to_string(i), "must be a finite number > 0");
    }
    return std::nullopt;
  }
  std::optional<SettingsProblem> operator()(const Capsule& c) const {
    if (auto p = check_positive(c.radius, "/radius")) return p;
    return check_non_negative(c.half_height, "/half_height");
  }
  std::optional<SettingsProblem> operator()(const ConvexHull& h) const {
    if (h.points.size() < 4) return problem("/points", "a convex hull needs at least 4 points");
    if (h.points.size() > k_max_hull_points)
      return problem("/points", "a convex hull takes at most " + std::to_string(k_max_hull_points) +
                                    " points");
    for (std::size_t i = 0; i < h.points.size(); ++i) {
      if (!is_finite(h.points[i]))
        return problem("/points/" + std::to_string(i), "must hold finite numbers");
    }
    return std::nullopt;
  }
  std::optional<SettingsProblem> operator()(const Plane& p) const {
    if (auto q = check_finite(p.normal, "/normal")) return q;
    if (length(p.normal) < k_min_direction_length) return problem("/normal", "normal of length 0");
    if (!is_finite(p.offset)) return problem("/offset", "must be a finite number");
    return std::nullopt;
  }
  std::optional<SettingsProblem> operator()(const Mesh& m) const {
    if (m.triangles.empty()) return problem("/triangles", "a mesh needs at least one triangle");
    for (std::size_t i = 0; i < m.vertices.size(); ++i) {
      if (!is_finite(m.vertices[i]))
        return problem("/vertices/" + std::to_string(i), "must hold finite numbers");
    }
    for (std::size_t t = 0; t < m.triangles.size(); ++t) {
      for (int k = 0; k < 3; ++k) {
        if (m.triangles[t][k] >= m.vertices.size())
          return problem("/triangles/" + std::to_string(t) + "/" + std::to_string(k),
                         "vertex index out of range (the mesh has " +
                             std::to_string(m.vertices.size()) + " vertices)");
      }
    }
    return std::nullopt;
  }
};

}  // namespace

std::optional<SettingsProblem> find_problem(const ShapeGeometry& geometry) {
  return std::visit(GeometryChecker{}, geometry);
}

std::optional<SettingsProblem> find_problem(const WorldSettings& s) {
  if (auto p = check_finite(s.gravity, "/gravity")) return p;
  if (auto p = check_positive(s.timestep, "/timestep")) return p;
  const SolverSettings& solver = s.solver;
  if (solver.iterations < 1) return problem("/solver/iterations", "must be at least 1");
  if (!is_finite(solver.baumgarte) || solver.baumgarte < 0 || solver.baumgarte > 1)
    return problem("/solver/baumgarte", "must be in [0, 1]");
  if (auto p = check_non_negative(solver.slop, "/solver/slop")) return p;
  if (!is_finite(solver.sor) || solver.sor <= 0 || solver.sor >= 2)
    return problem("/solver/sor", "must be in (0, 2)");
  if (auto p = check_non_negative(solver.tolerance, "/solver/tolerance")) return p;
  if (auto p = check_non_negative(solver.max_push_speed, "/solver/max_push_speed")) return p;
  if (auto p = check_non_negative(solver.max_angular_push_speed, "/solver/max_angular_push_speed"))
    return p;
  if (auto p = check_non_negative(solver.restitution_threshold, "/solver/restitution_threshold"))
    return p;
  if (auto p = check_non_negative(solver.joint_softness, "/solver/joint_softness")) return p;
  if (solver.position_iterations < 0) return problem("/solver/position_iterations", "must be >= 0");
  if (solver.relax_iterations < 0) return problem("/solver/relax_iterations", "must be >= 0");
  if (solver.substeps < 1) return problem("/solver/substeps", "must be at least 1");
  if (auto p = check_non_negative(s.speculative_margin, "/speculative_margin")) return p;
  if (auto p = check_positive(s.max_linear_speed, "/max_linear_speed")) return p;
  if (auto p = check_positive(s.max_angular_speed, "/max_angular_speed")) return p;
  if (auto p = check_finite(s.plane_normal, "/plane_normal")) return p;
  if (s.plane_normal != Vec3::zero() && std::abs(length(s.plane_normal) - 1) > k_unit_tolerance)
    return problem("/plane_normal", "must be zero (3D) or a unit vector (within 1e-3)");
  return std::nullopt;
}

std::optional<SettingsProblem> find_problem(const BodySettings& s) {
  if (auto p = check_finite(s.position, "/position")) return p;
  if (auto p = check_orientation(s.orientation, "/orientation")) return p;
  if (auto p = check_finite(s.linear_velocity, "/linear_velocity")) return p;
  if (auto p = check_finite(s.angular_velocity, "/angular_velocity")) return p;
  if (s.particle && s.angular_velocity != Vec3::zero())
    return problem("/angular_velocity", "a particle never rotates: must be zero");
  if (s.shapes.empty()) return problem("/shapes", "a body needs at least one shape");
  for (std::size_t i = 0; i < s.shapes.size(); ++i) {
    const std::string prefix = "/shapes/" + std::to_string(i);
    const ShapeSettings& shape = s.shapes[i];
    if (is_static_only(shape.geometry) && s.type != BodyType::static_body)
      return problem(prefix + "/type", std::string("a ") + shape_type_name(shape.geometry) +
                                           " can only belong to a static body");
    if (auto p = prefixed(check_finite(shape.local.position, "/position"), prefix)) return p;
    if (auto p = prefixed(check_orientation(shape.local.orientation, "/orientation"), prefix))
      return p;
    if (auto p = prefixed(find_problem(shape.geometry), prefix)) return p;
  }
  if (s.type == BodyType::dynamic_body) {
    if (s.mass) {
      if (auto p = check_positive(*s.mass, "/mass")) return p;
    } else if (auto p = check_positive(s.density, "/density")) {
      return p;
    }
  }
  if (auto p = check_non_negative(s.friction, "/friction")) return p;
  if (!is_finite(s.restitution) || s.restitution < 0 || s.restitution > 1)
    return problem("/restitution", "must be in [0, 1]");
  if (auto p = check_non_negative(s.linear_damping, "/linear_damping")) return p;
  if (auto p = check_non_negative(s.angular_damping, "/angular_damping")) return p;
  if (!is_finite(s.gravity_scale)) return problem("/gravity_scale", "must be a finite number");
  if (!is_finite(s.min_inertia_ratio) || s.min_inertia_ratio < 0 || s.min_inertia_ratio > 1)
    return problem("/min_inertia_ratio", "must be in [0, 1]");
  return std::nullopt;
}

namespace {

std::optional<SettingsProblem> check_axis(const Vec3& axis, const char* path) {
  if (auto p = check_finite(axis, path)) return p;
  if (std::abs(length(axis) - 1) > k_unit_tolerance) return problem(path, "must be a unit vector");
  return std::nullopt;
}

std::optional<SettingsProblem> check_range(const Range& r, const std::string& path, Real bound) {
  if (!is_finite(r.lo) || !is_finite(r.hi) || r.lo > r.hi)
    return problem(path, "must be a range [lo, hi] of finite numbers with lo <= hi");
  if (r.lo < -bound || r.hi > bound)
    return problem(path, "must lie within [-pi, pi] (angles are measured in (-pi, pi])");
  return std::nullopt;
}

std::optional<SettingsProblem> check_spring(const std::optional<Spring>& spring,
                                            const std::string& path) {
  if (!spring) return std::nullopt;
  if (!is_finite(spring->frequency) || spring->frequency <= 0)
    return problem(path + "/frequency", "must be a finite number > 0");
  if (!is_finite(spring->damping_ratio) || spring->damping_ratio < 0)
    return problem(path + "/damping_ratio", "must be a finite number >= 0");
  return std::nullopt;
}

std::optional<SettingsProblem> check_axes(const std::array<AxisMotion, 3>& axes, const char* prefix,
                                          bool angular) {
  for (std::size_t i = 0; i < 3; ++i) {
    const std::string path = std::string(prefix) + "/" + std::to_string(i);
    if (axes[i].mode == AxisMotion::Mode::limited) {
      if (auto p =
              check_range(axes[i].range, path, angular ? std::numbers::pi_v<Real> : k_infinity))
        return p;
    }
    if (auto p = check_spring(axes[i].spring, path + "/spring")) return p;
  }
  return std::nullopt;
}

}  // namespace

std::optional<SettingsProblem> find_problem(const JointSettings& s) {
  const Real pi = std::numbers::pi_v<Real>;
  if (auto p = check_finite(s.anchor, "/anchor")) return p;
  switch (s.type) {
    case JointType::ball:
    case JointType::nail:
    case JointType::fixed:
      break;
    case JointType::distance:
      if (auto p = check_finite(s.anchor_a, "/anchor_a")) return p;
      if (auto p = check_finite(s.anchor_b, "/anchor_b")) return p;
      if (s.min_distance) {
        if (auto p = check_non_negative(*s.min_distance, "/min")) return p;
      }
      if (s.max_distance) {
        if (auto p = check_non_negative(*s.max_distance, "/max")) return p;
        if (s.min_distance && *s.max_distance < *s.min_distance)
          return problem("/max", "must be >= min");
      }
      if (auto p = check_spring(s.spring, "/spring")) return p;
      break;
    case JointType::hinge:
    case JointType::prismatic: {
      const bool hinge = s.type == JointType::hinge;
      if (auto p = check_axis(s.axis, "/axis")) return p;
      if (s.limits) {
        if (auto p = check_range(*s.limits, "/limits", hinge ? pi : k_infinity)) return p;
      }
      if (s.motor) {
        if (!is_finite(s.motor->speed)) return problem("/motor/speed", "must be a finite number");
        if (auto p = check_non_negative(s.motor->max_force,
                                        hinge ? "/motor/max_torque" : "/motor/max_force"))
          return p;
      }
      break;
    }
    case JointType::cone_twist:
      if (auto p = check_axis(s.axis, "/axis")) return p;
      if (!is_finite(s.swing_limit) || s.swing_limit < 0 || s.swing_limit > pi)
        return problem("/swing_limit", "must be in [0, pi]");
      if (auto p = check_range(s.twist_limits, "/twist_limits", pi)) return p;
      break;
    case JointType::six_dof:
      if (auto p = check_orientation(s.frame, "/frame")) return p;
      if (auto p = check_axes(s.linear, "/linear", false)) return p;
      if (auto p = check_axes(s.angular, "/angular", true)) return p;
      break;
  }
  if (s.break_force) {
    if (auto p = check_positive(*s.break_force, "/break_force")) return p;
  }
  if (s.break_torque) {
    if (auto p = check_positive(*s.break_torque, "/break_torque")) return p;
  }
  return std::nullopt;
}

void throw_if_problem(const std::optional<SettingsProblem>& problem, const char* what) {
  if (problem)
    throw InvalidArgument(std::string(what) + ": " + problem->path + ": " + problem->message);
}

}  // namespace impulse
