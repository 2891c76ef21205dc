// Scene files: reading, checking and writing the JSON format of docs/scene-format.md.

#include <impulse/error.h>
#include <impulse/scene.h>

#include "core/number_text.h"
#include "dynamics/body_preparation.h"
#include "dynamics/validation.h"
#include "scene/json_reader.h"
#include "scene/json_values.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

namespace impulse {
namespace {

constexpr std::string_view k_format = "impulse-scene/1";

// An axis written within this of unit length is kept as written rather than normalised again, so
// that a saved (normalised) axis loads back bit for bit.
constexpr Real k_unit_length_tolerance = Real(1e-6);

// ---------------------------------------------------------------------------------------------
// Names

// Every name of an enumeration, for "expected ..." hints: the values whose names read back.
template <typename Enum>
std::string enum_names(const char* (*name)(Enum),
                       std::optional<Enum> (*from_name)(std::string_view)) {
  std::string names;
  for (int i = 0; i <= 0xff; ++i) {
    const auto value = static_cast<Enum>(i);
    if (from_name(name(value)) != value) continue;
    if (!names.empty()) names += ", ";
    names += name(value);
  }
  return names;
}

template <typename Enum>
Enum read_enum(const JsonNode& node, const std::string& what, const char* (*name)(Enum),
               std::optional<Enum> (*from_name)(std::string_view)) {
  const std::string& text = node.string();
  if (auto value = from_name(text)) return *value;
  node.fail("unknown " + what + " '" + text + "' (expected one of: " + enum_names(name, from_name) +
            ")");
}

// One default value of every kind of shape, in variant order.
template <std::size_t... I>
std::array<ShapeGeometry, sizeof...(I)> geometry_kinds(std::index_sequence<I...>) {
  return {ShapeGeometry(std::in_place_index<I>)...};
}
std::array<ShapeGeometry, std::variant_size_v<ShapeGeometry>> geometry_kinds() {
  return geometry_kinds(std::make_index_sequence<std::variant_size_v<ShapeGeometry>>{});
}

ShapeGeometry read_shape_type(const JsonNode& node) {
  const std::string& text = node.string();
  std::string names;
  for (const ShapeGeometry& kind : geometry_kinds()) {
    if (text == shape_type_name(kind)) return kind;
    names += names.empty() ? "" : ", ";
    names += shape_type_name(kind);
  }
  node.fail("unknown shape type '" + text + "' (expected one of: " + names + ")");
}

// ---------------------------------------------------------------------------------------------
// Writing values

Json number(Real x) {
  return json_number<Json>(x);
}
Json encode(Real x) {
  return number(x);
}
Json encode(const Vec3& v) {
  return json_vec3<Json>(v);
}
Json encode(const Quat& q) {
  return json_quat<Json>(q);
}
Json encode(const Range& r) {
  return Json::array({number(r.lo), number(r.hi)});
}

// Equality that tells -0 from 0, so that omitting a default value loses nothing.
bool same(Real a, Real b) {
  return a == b && std::signbit(a) == std::signbit(b);
}
bool same(const Vec3& a, const Vec3& b) {
  return same(a.x, b.x) && same(a.y, b.y) && same(a.z, b.z);
}
bool same(const Quat& a, const Quat& b) {
  return same(a.vec(), b.vec()) && same(a.w, b.w);
}

template <typename T>
void put_unless_default(Json& out, const char* key, const T& value, const T& default_value) {
  if (!same(value, default_value)) out[key] = encode(value);
}

// Writes the geometry's own keys (everything but "type").
struct GeometryWriter {
  Json& out;
  void operator()(const Sphere& s) const { out["radius"] = number(s.radius); }
  void operator()(const Box& b) const { out["half_extents"] = encode(b.half_extents); }
  void operator()(const Capsule& c) const {
    out["radius"] = number(c.radius);
    out["half_height"] = number(c.half_height);
  }
  void operator()(const ConvexHull& h) const {
    Json& points = out["points"] = Json::array();
    for (const Vec3& p : h.points)
      points.push_back(encode(p));
  }
  void operator()(const Plane& p) const {
    out["normal"] = encode(p.normal);
    out["offset"] = number(p.offset);
  }
  void operator()(const Mesh& m) const {
    Json& vertices = out["vertices"] = Json::array();
    for (const Vec3& v : m.vertices)
      vertices.push_back(encode(v));
    Json& triangles = out["triangles"] = Json::array();
    for (const auto& t : m.triangles)
      triangles.push_back(Json::array({t[0], t[1], t[2]}));
  }
};

Json geometry_json(const ShapeGeometry& geometry) {
  Json out = Json::object();
  std::visit(GeometryWriter{out}, geometry);
  return out;
}

Json shape_json(const ShapeSettings& shape) {
  Json out = {{"type", shape_type_name(shape.geometry)}};
  out.update(geometry_json(shape.geometry));
  put_unless_default(out, "position", shape.local.position, Vec3{});
  put_unless_default(out, "orientation", shape.local.orientation, Quat{});
  return out;
}

Json body_json(const BodySettings& body) {
  const BodySettings defaults;
  Json out = Json::object();
  if (!body.name.empty()) out["name"] = body.name;
  out["type"] = body_type_name(body.type);
  if (body.shapes.size() == 1 && same(body.shapes[0].local.position, Vec3{}) &&
      same(body.shapes[0].local.orientation, Quat{})) {
    out["shape"] = shape_json(body.shapes[0]);
  } else {
    Json& shapes = out["shapes"] = Json::array();
    for (const ShapeSettings& shape : body.shapes)
      shapes.push_back(shape_json(shape));
  }
  put_unless_default(out, "position", body.position, defaults.position);
  put_unless_default(out, "orientation", body.orientation, defaults.orientation);
  put_unless_default(out, "linear_velocity", body.linear_velocity, defaults.linear_velocity);
  put_unless_default(out, "angular_velocity", body.angular_velocity, defaults.angular_velocity);
  if (body.mass) out["mass"] = number(*body.mass);
  put_unless_default(out, "density", body.density, defaults.density);
  put_unless_default(out, "friction", body.friction, defaults.friction);
  put_unless_default(out, "restitution", body.restitution, defaults.restitution);
  put_unless_default(out, "linear_damping", body.linear_damping, defaults.linear_damping);
  put_unless_default(out, "angular_damping", body.angular_damping, defaults.angular_damping);
  put_unless_default(out, "gravity_scale", body.gravity_scale, defaults.gravity_scale);
  put_unless_default(out, "min_inertia_ratio", body.min_inertia_ratio, defaults.min_inertia_ratio);
  if (body.particle) out["particle"] = true;
  const CollisionFilter& filter = body.collision_filter;
  if (filter.category != CollisionFilter{}.category) out["collision_category"] = filter.category;
  if (filter.mask != CollisionFilter{}.mask) out["collision_mask"] = filter.mask;
  if (filter.group != 0) out["collision_group"] = filter.group;
  return out;
}

Json spring_json(const Spring& spring) {
  return {{"frequency", number(spring.frequency)}, {"damping_ratio", number(spring.damping_ratio)}};
}

Json axes_json(const std::array<AxisMotion, 3>& axes) {
  Json out = Json::array();
  for (const AxisMotion& axis : axes) {
    if (axis.spring && axis.mode != AxisMotion::Mode::free) {  // the object form
      Json entry = {{"spring", spring_json(*axis.spring)}};
      if (axis.mode == AxisMotion::Mode::limited) entry["limits"] = encode(axis.range);
      out.push_back(entry);
      continue;
    }
    switch (axis.mode) {
      case AxisMotion::Mode::free:
        out.push_back("free");
        break;
      case AxisMotion::Mode::fixed:
        out.push_back("fixed");
        break;
      case AxisMotion::Mode::limited:
        out.push_back(encode(axis.range));
        break;
    }
  }
  return out;
}

Json motor_json(const Motor& motor, const char* max_key) {
  return {{"speed", number(motor.speed)}, {max_key, number(motor.max_force)}};
}

// Writes the keys of the joint's type only (docs/scene-format.md), so the file reads back.
Json joint_json(const SceneJoint& joint) {
  const JointSettings& s = joint.settings;
  Json out = Json::object();
  if (!s.name.empty()) out["name"] = s.name;
  out["type"] = joint_type_name(s.type);
  out["body_a"] = joint.body_a;
  if (!joint.body_b.empty()) out["body_b"] = joint.body_b;
  switch (s.type) {
    case JointType::ball:
    case JointType::nail:
    case JointType::fixed:
      out["anchor"] = encode(s.anchor);
      break;
    case JointType::distance:
      out["anchor_a"] = encode(s.anchor_a);
      out["anchor_b"] = encode(s.anchor_b);
      if (s.min_distance) out["min"] = number(*s.min_distance);
      if (s.max_distance) out["max"] = number(*s.max_distance);
      if (s.spring) out["spring"] = spring_json(*s.spring);
      break;
    case JointType::hinge:
    case JointType::prismatic:
      out["anchor"] = encode(s.anchor);
      out["axis"] = encode(s.axis);
      if (s.limits) out["limits"] = encode(*s.limits);
      if (s.motor)
        out["motor"] =
            motor_json(*s.motor, s.type == JointType::hinge ? "max_torque" : "max_force");
      break;
    case JointType::cone_twist:
      out["anchor"] = encode(s.anchor);
      out["axis"] = encode(s.axis);
      out["swing_limit"] = number(s.swing_limit);
      out["twist_limits"] = encode(s.twist_limits);
      break;
    case JointType::six_dof: {
      const JointSettings defaults;
      out["anchor"] = encode(s.anchor);
      put_unless_default(out, "frame", s.frame, defaults.frame);
      if (s.linear != defaults.linear) out["linear"] = axes_json(s.linear);
      if (s.angular != defaults.angular) out["angular"] = axes_json(s.angular);
      break;
    }
  }
  if (s.break_force) out["break_force"] = number(*s.break_force);
  if (s.break_torque) out["break_torque"] = number(*s.break_torque);
  if (s.collide_connected) out["collide_connected"] = true;
  return out;
}

Json scene_json(const Scene& scene) {
  const WorldSettings& w = scene.settings;
  const SolverSettings& solver = w.solver;
  Json out = {{"format", k_format}};
  if (!scene.name.empty()) out["name"] = scene.name;
  out["gravity"] = encode(w.gravity);
  out["timestep"] = number(w.timestep);
  out["sleeping"] = w.sleeping;
  if (w.gyroscopic) out["gyroscopic"] = true;  // an extension: contract-only readers refuse it
  if (!w.reuse_contacts) out["reuse_contacts"] = false;  // an extension too
  out["solver"] = {{"type", solver_type_name(solver.type)},
                   {"iterations", solver.iterations},
                   {"baumgarte", number(solver.baumgarte)},
                   {"slop", number(solver.slop)},
                   {"warm_start", solver.warm_start},
                   {"friction_model", friction_model_name(solver.friction_model)},
                   {"sor", number(solver.sor)},
                   {"tolerance", number(solver.tolerance)},
                   {"shuffle", solver.shuffle}};
  // Extensions, written only when they differ from the defaults.
  const SolverSettings defaults;
  if (solver.max_push_speed != defaults.max_push_speed)
    out["solver"]["max_push_speed"] = number(solver.max_push_speed);
  if (solver.max_angular_push_speed != defaults.max_angular_push_speed)
    out["solver"]["max_angular_push_speed"] = number(solver.max_angular_push_speed);
  if (solver.restitution_threshold != defaults.restitution_threshold)
    out["solver"]["restitution_threshold"] = number(solver.restitution_threshold);
  if (solver.position_iterations != defaults.position_iterations)
    out["solver"]["position_iterations"] = solver.position_iterations;
  if (solver.joint_softness != defaults.joint_softness)
    out["solver"]["joint_softness"] = number(solver.joint_softness);
  if (solver.relax_iterations != defaults.relax_iterations)
    out["solver"]["relax_iterations"] = solver.relax_iterations;
  if (solver.substeps != defaults.substeps) out["solver"]["substeps"] = solver.substeps;
  if (solver.geometric_stiffness != defaults.geometric_stiffness)
    out["solver"]["geometric_stiffness"] = solver.geometric_stiffness;
  if (w.speculative_margin != WorldSettings{}.speculative_margin)
    out["speculative_margin"] = number(w.speculative_margin);
  if (w.max_linear_speed != WorldSettings{}.max_linear_speed)
    out["max_linear_speed"] = number(w.max_linear_speed);
  if (w.max_angular_speed != WorldSettings{}.max_angular_speed)
    out["max_angular_speed"] = number(w.max_angular_speed);
  put_unless_default(out, "plane_normal", w.plane_normal, WorldSettings{}.plane_normal);
  Json& bodies = out["bodies"] = Json::array();
  for (const BodySettings& body : scene.bodies)
    bodies.push_back(body_json(body));
  if (!scene.joints.empty()) {
    Json& joints = out["joints"] = Json::array();
    for (const SceneJoint& joint : scene.joints)
      joints.push_back(joint_json(joint));
  }
  return out;
}

// Leaves of the document as nlohmann writes them; invalid UTF-8 in a name is replaced, not thrown.
std::string dump_leaf(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// Two-space indentation, with arrays of plain values (vectors, ranges, triangles) on one line.
void write_pretty(const Json& value, int indent, std::string& out) {
  const auto is_leaf = [](const Json& j) { return !j.is_structured(); };
  if (value.empty() || !value.is_structured()) {
    out += dump_leaf(value);
  } else if (value.is_array() && std::all_of(value.begin(), value.end(), is_leaf)) {
    out += '[';
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (it != value.begin()) out += ", ";
      out += dump_leaf(*it);
    }
    out += ']';
  } else {
    out += value.is_object() ? "{\n" : "[\n";
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (it != value.begin()) out += ",\n";
      out.append(indent + 2, ' ');
      if (value.is_object()) out += dump_leaf(it.key()) + ": ";
      write_pretty(it.value(), indent + 2, out);
    }
    out += '\n';
    out.append(indent, ' ');
    out += value.is_object() ? '}' : ']';
  }
}

// ---------------------------------------------------------------------------------------------
// Reading

// Reads the geometry's own keys into a default value of its kind.
struct GeometryReader {
  const JsonNode& node;
  void operator()(Sphere& s) const { s.radius = node.at("radius").real(); }
  void operator()(Box& b) const { b.half_extents = node.at("half_extents").vec3(); }
  void operator()(Capsule& c) const {
    c.radius = node.at("radius").real();
    c.half_height = node.at("half_height").real();
  }
  void operator()(ConvexHull& h) const { h.points = node.at("points").vec3_list(); }
  void operator()(Plane& p) const {
    p.normal = node.at("normal").vec3();
    p.offset = node.at("offset").real();
  }
  void operator()(Mesh& m) const {
    m.vertices = node.at("vertices").vec3_list();
    const JsonNode triangles = node.at("triangles");
    m.triangles.resize(triangles.array_size());
    for (std::size_t t = 0; t < m.triangles.size(); ++t) {
      const JsonNode triangle = triangles.element(t);
      if (triangle.array_size() != 3) triangle.fail("must be an array of 3 vertex indices");
      for (std::size_t k = 0; k < 3; ++k)
        m.triangles[t][k] = triangle.element(k).index();
    }
  }
};

ShapeSettings read_shape(const JsonNode& node) {
  ShapeSettings shape;
  shape.geometry = read_shape_type(node.at("type"));
  // The keys a geometry takes are those its writer writes.
  const Json geometry_keys = geometry_json(shape.geometry);
  std::vector<std::string_view> allowed{"type", "position", "orientation"};
  for (auto it = geometry_keys.begin(); it != geometry_keys.end(); ++it)
    allowed.push_back(it.key());
  node.expect_keys(allowed);
  std::visit(GeometryReader{node}, shape.geometry);
  if (auto n = node.find("position")) shape.local.position = n->vec3();
  if (auto n = node.find("orientation")) shape.local.orientation = n->quat();
  return shape;
}

BodySettings read_body(const JsonNode& node) {
  node.expect_keys({"name",
                    "type",
                    "shape",
                    "shapes",
                    "position",
                    "orientation",
                    "linear_velocity",
                    "angular_velocity",
                    "mass",
                    "density",
                    "friction",
                    "restitution",
                    "linear_damping",
                    "angular_damping",
                    "gravity_scale",
                    "min_inertia_ratio",
                    "particle",
                    "collision_category",
                    "collision_mask",
                    "collision_group"});
  BodySettings body;
  if (auto n = node.find("name")) body.name = n->string();
  body.type = read_enum(node.at("type"), "body type", body_type_name, body_type_from_name);
  const std::optional<JsonNode> shape = node.find("shape");
  const std::optional<JsonNode> shapes = node.find("shapes");
  if (shape && shapes) shapes->fail("give either 'shape' or 'shapes', not both");
  if (shape) {
    body.shapes = {read_shape(*shape)};
  } else if (shapes) {
    body.shapes.resize(shapes->array_size());
    for (std::size_t i = 0; i < body.shapes.size(); ++i)
      body.shapes[i] = read_shape(shapes->element(i));
  } else {
    node.fail_at("/shape", "missing required key 'shape' (or 'shapes')");
  }
  if (auto n = node.find("position")) body.position = n->vec3();
  if (auto n = node.find("orientation")) body.orientation = n->quat();
  if (auto n = node.find("linear_velocity")) body.linear_velocity = n->vec3();
  if (auto n = node.find("angular_velocity")) body.angular_velocity = n->vec3();
  if (auto n = node.find("mass")) body.mass = n->real();
  if (auto n = node.find("density")) body.density = n->real();
  if (auto n = node.find("friction")) body.friction = n->real();
  if (auto n = node.find("restitution")) body.restitution = n->real();
  if (auto n = node.find("linear_damping")) body.linear_damping = n->real();
  if (auto n = node.find("angular_damping")) body.angular_damping = n->real();
  if (auto n = node.find("gravity_scale")) body.gravity_scale = n->real();
  if (auto n = node.find("min_inertia_ratio")) body.min_inertia_ratio = n->real();
  if (auto n = node.find("particle")) body.particle = n->boolean();
  if (auto n = node.find("collision_category")) body.collision_filter.category = n->index();
  if (auto n = node.find("collision_mask")) body.collision_filter.mask = n->index();
  if (auto n = node.find("collision_group")) body.collision_filter.group = n->integer();
  // The world's own checks and its cooking (a hull's points spanning no volume, a mass that
  // overflows), here so that the problem is named where the file has it: the shapes are cooked
  // again when the world is built.
  std::optional<SettingsProblem> problem = find_problem(body);
  if (!problem) problem = prepare_body(body).problem;
  if (problem) {
    // The checks speak of "/shapes/0/..." (or of "/shapes", all of them); a body written with
    // "shape" has it at "/shape/...".
    std::string path = problem->path;
    std::string message = problem->message;
    // A mass or density the file does not give comes from the other key, or from the shapes at
    // the default density.
    if (path == "/mass" && !node.find("mass")) path = "/density";
    if (path == "/density" && !node.find("density")) {
      path = "/shapes";
      std::array<char, 32> density{};
      char* end =
          std::to_chars(density.data(), density.data() + density.size(), BodySettings{}.density)
              .ptr;
      message +=
          " (density not given: the default, " + std::string(density.data(), end) + " kg/m^3)";
    }
    constexpr std::string_view k_first_shape = "/shapes/0";
    if (shape && path.starts_with(k_first_shape) &&
        (path.size() == k_first_shape.size() || path[k_first_shape.size()] == '/'))
      path = "/shape" + path.substr(k_first_shape.size());
    else if (shape && path == "/shapes")
      path = "/shape";
    node.fail_at(path, message);
  }
  return body;
}

SolverSettings read_solver(const JsonNode& node) {
  node.expect_keys({"type", "iterations", "baumgarte", "slop", "warm_start", "friction_model",
                    "sor", "tolerance", "shuffle", "max_push_speed", "max_angular_push_speed",
                    "restitution_threshold", "position_iterations", "joint_softness",
                    "relax_iterations", "substeps", "geometric_stiffness"});
  SolverSettings solver;
  if (auto n = node.find("type"))
    solver.type = read_enum(*n, "solver type", solver_type_name, solver_type_from_name);
  if (auto n = node.find("iterations")) solver.iterations = n->integer();
  if (auto n = node.find("baumgarte")) solver.baumgarte = n->real();
  if (auto n = node.find("slop")) solver.slop = n->real();
  if (auto n = node.find("warm_start")) solver.warm_start = n->boolean();
  if (auto n = node.find("friction_model"))
    solver.friction_model =
        read_enum(*n, "friction model", friction_model_name, friction_model_from_name);
  if (auto n = node.find("sor")) solver.sor = n->real();
  if (auto n = node.find("tolerance")) solver.tolerance = n->real();
  if (auto n = node.find("shuffle")) solver.shuffle = n->boolean();
  if (auto n = node.find("max_push_speed")) solver.max_push_speed = n->real();
  if (auto n = node.find("max_angular_push_speed")) solver.max_angular_push_speed = n->real();
  if (auto n = node.find("restitution_threshold")) solver.restitution_threshold = n->real();
  if (auto n = node.find("position_iterations")) solver.position_iterations = n->integer();
  if (auto n = node.find("joint_softness")) solver.joint_softness = n->real();
  if (auto n = node.find("relax_iterations")) solver.relax_iterations = n->integer();
  if (auto n = node.find("substeps")) solver.substeps = n->integer();
  if (auto n = node.find("geometric_stiffness")) solver.geometric_stiffness = n->boolean();
  return solver;
}

// ---------------------------------------------------------------------------------------------
// Reading joints

std::vector<std::string_view> joint_keys(JointType type) {
  std::vector<std::string_view> keys{"name",        "type",         "body_a",
                                     "break_force", "break_torque", "collide_connected"};
  if (type != JointType::nail) keys.push_back("body_b");
  switch (type) {
    case JointType::ball:
    case JointType::nail:
    case JointType::fixed:
      keys.push_back("anchor");
      break;
    case JointType::distance:
      keys.insert(keys.end(), {"anchor_a", "anchor_b", "min", "max", "spring"});
      break;
    case JointType::hinge:
      keys.insert(keys.end(), {"anchor", "axis", "limits", "limits_deg", "motor"});
      break;
    case JointType::prismatic:
      keys.insert(keys.end(), {"anchor", "axis", "limits", "motor"});
      break;
    case JointType::cone_twist:
      keys.insert(keys.end(), {"anchor", "axis", "swing_limit", "swing_limit_deg", "twist_limits",
                               "twist_limits_deg"});
      break;
    case JointType::six_dof:
      keys.insert(keys.end(), {"anchor", "frame", "linear", "angular"});
      break;
  }
  return keys;
}

// An angle given as `key` in radians or as `key_deg` in degrees (not both).
struct AngleNode {
  JsonNode node;
  double factor;  // to radians
};

std::optional<AngleNode> find_angle(const JsonNode& joint, const std::string& key) {
  const std::string deg_key = key + "_deg";
  const std::optional<JsonNode> radians = joint.find(key);
  const std::optional<JsonNode> degrees = joint.find(deg_key);
  if (radians && degrees) degrees->fail("give either '" + key + "' or '" + deg_key + "', not both");
  if (degrees) return AngleNode{*degrees, std::numbers::pi / 180};
  if (radians) return AngleNode{*radians, 1};
  return std::nullopt;
}

AngleNode require_angle(const JsonNode& joint, const std::string& key) {
  if (auto angle = find_angle(joint, key)) return *angle;
  joint.fail_at("/" + key, "missing required key '" + key + "' (or '" + key + "_deg')");
}

Real to_radians(Real angle, double factor) {
  return static_cast<Real>(angle * factor);
}

Range read_angle_range(const AngleNode& angle) {
  const Range range = angle.node.range();
  return {to_radians(range.lo, angle.factor), to_radians(range.hi, angle.factor)};
}

Real read_non_negative(const JsonNode& node) {
  const Real value = node.real();
  if (value < 0) node.fail("must be >= 0");
  return value;
}

Real read_positive(const JsonNode& node) {
  const Real value = node.real();
  if (value <= 0) node.fail("must be > 0");
  return value;
}

// A unit axis: normalised unless it is already of unit length.
Vec3 read_axis(const JsonNode& node) {
  const Vec3 axis = node.vec3();
  if (!(length(axis) >= k_min_direction_length))
    node.fail("a vector of length " + number_text(length(axis)) +
              " is no direction (its length must be at least " +
              number_text(k_min_direction_length) + ")");
  const Vec3 unit = normalize(axis);
  return std::abs(length(axis) - 1) <= k_unit_length_tolerance ? axis : unit;
}

Quat read_frame(const JsonNode& node) {
  BodySettings probe;  // the rule for a body's orientation, applied to the frame
  probe.orientation = node.quat();
  if (auto problem = find_problem(probe); problem && problem->path == "/orientation")
    node.fail(problem->message);
  return probe.orientation;
}

Motor read_motor(const JsonNode& node, std::string_view max_key) {
  node.expect_keys({"speed", max_key});
  return {node.at("speed").real(), read_non_negative(node.at(max_key))};
}

Spring read_spring(const JsonNode& node) {
  node.expect_keys({"frequency", "damping_ratio"});
  Spring spring;
  spring.frequency = read_positive(node.at("frequency"));
  if (auto n = node.find("damping_ratio")) spring.damping_ratio = read_non_negative(*n);
  return spring;
}

std::array<AxisMotion, 3> read_axes(const JsonNode& node) {
  const std::string entry_forms =
      "\"free\", \"fixed\", a range [lo, hi] or an object with \"spring\" and optional "
      "\"limits\"";
  if (node.array_size() != 3) node.fail("must be an array of 3 entries, each " + entry_forms);
  std::array<AxisMotion, 3> axes;
  for (std::size_t i = 0; i < 3; ++i) {
    const JsonNode entry = node.element(i);
    if (entry.value().is_array()) {
      axes[i] = {AxisMotion::Mode::limited, entry.range(), {}};
    } else if (entry.value().is_object()) {  // a soft axis: fixed, or limited when it has limits
      entry.expect_keys({"spring", "limits"});
      axes[i].spring = read_spring(entry.at("spring"));
      if (auto limits = entry.find("limits"))
        axes[i] = {AxisMotion::Mode::limited, limits->range(), axes[i].spring};
    } else if (entry.value() == "free") {
      axes[i].mode = AxisMotion::Mode::free;
    } else if (entry.value() != "fixed") {
      entry.fail("must be " + entry_forms);
    }
  }
  return axes;
}

// The file-order index of every named body (or joint).
using NameIndex = std::unordered_map<std::string, std::size_t>;

std::size_t read_body_name(const JsonNode& node, const NameIndex& bodies) {
  const auto it = bodies.find(node.string());
  if (it == bodies.end()) node.fail("unknown body '" + node.string() + "'");
  return it->second;
}

SceneJoint read_joint(const JsonNode& node, const NameIndex& body_index,
                      const std::vector<BodySettings>& bodies) {
  SceneJoint joint;
  JointSettings& s = joint.settings;
  s.type = read_enum(node.at("type"), "joint type", joint_type_name, joint_type_from_name);
  if (s.type == JointType::nail && node.has("body_b"))
    node.at("body_b").fail("a nail joint pins body_a to the world: it takes no body_b");
  node.expect_keys(joint_keys(s.type));
  if (auto n = node.find("name")) s.name = n->string();
  const JsonNode body_a = node.at("body_a");
  const std::size_t a = read_body_name(body_a, body_index);
  joint.body_a = body_a.string();
  if (auto body_b = node.find("body_b")) {
    if (read_body_name(*body_b, body_index) == a)
      body_b->fail("the joint names body '" + joint.body_a + "' twice: body_b must differ");
    joint.body_b = body_b->string();
  }
  switch (s.type) {
    case JointType::ball:
    case JointType::nail:
      s.anchor = node.at("anchor").vec3();
      break;
    case JointType::fixed: {
      const auto anchor = node.find("anchor");
      s.anchor = anchor ? anchor->vec3() : bodies[a].position;
      break;
    }
    case JointType::distance:
      s.anchor_a = node.at("anchor_a").vec3();
      s.anchor_b = node.at("anchor_b").vec3();
      if (auto n = node.find("min")) s.min_distance = read_non_negative(*n);
      if (auto n = node.find("max")) {
        s.max_distance = read_non_negative(*n);
        if (s.min_distance && *s.max_distance < *s.min_distance) n->fail("must be >= min");
      }
      if (auto n = node.find("spring")) s.spring = read_spring(*n);
      break;
    case JointType::hinge:
      s.anchor = node.at("anchor").vec3();
      s.axis = read_axis(node.at("axis"));
      if (auto limits = find_angle(node, "limits")) s.limits = read_angle_range(*limits);
      if (auto n = node.find("motor")) s.motor = read_motor(*n, "max_torque");
      break;
    case JointType::prismatic:
      s.anchor = node.at("anchor").vec3();
      s.axis = read_axis(node.at("axis"));
      if (auto n = node.find("limits")) s.limits = n->range();
      if (auto n = node.find("motor")) s.motor = read_motor(*n, "max_force");
      break;
    case JointType::cone_twist: {
      s.anchor = node.at("anchor").vec3();
      s.axis = read_axis(node.at("axis"));
      const AngleNode swing = require_angle(node, "swing_limit");
      s.swing_limit = to_radians(read_non_negative(swing.node), swing.factor);
      s.twist_limits = read_angle_range(require_angle(node, "twist_limits"));
      break;
    }
    case JointType::six_dof:
      s.anchor = node.at("anchor").vec3();
      if (auto n = node.find("frame")) s.frame = read_frame(*n);
      if (auto n = node.find("linear")) s.linear = read_axes(*n);
      if (auto n = node.find("angular")) s.angular = read_axes(*n);
      break;
  }
  if (auto n = node.find("break_force")) s.break_force = read_positive(*n);
  if (auto n = node.find("break_torque")) s.break_torque = read_positive(*n);
  if (auto n = node.find("collide_connected")) s.collide_connected = n->boolean();
  if (auto problem = find_problem(s)) {
    // Angles given in degrees are checked in radians: name the key the file has.
    const std::string deg_key = problem->path.substr(1) + "_deg";
    if (node.has(deg_key)) node.fail_at("/" + deg_key, problem->message + ", in radians");
    node.fail_at(problem->path, problem->message);
  }
  return joint;
}

// Fails at "/name" of the second object that repeats a non-empty name.
void check_unique_name(const JsonNode& node, const std::string& name, std::size_t index,
                       NameIndex& seen, const char* what) {
  if (name.empty()) return;
  const auto [it, inserted] = seen.emplace(name, index);
  if (!inserted)
    node.fail_at("/name", std::string(what) + " name '" + name + "' is already used by " + what +
                              " " + std::to_string(it->second));
}

Scene read_scene(const JsonNode& root) {
  root.expect_keys({"format", "name", "gravity", "timestep", "sleeping", "gyroscopic",
                    "reuse_contacts", "speculative_margin", "max_linear_speed", "max_angular_speed",
                    "plane_normal", "solver", "bodies", "joints"});
  if (auto n = root.find("format"); n && n->string() != k_format)
    n->fail("unsupported format '" + n->string() + "' (this version reads " +
            std::string(k_format) + ")");
  Scene scene;
  WorldSettings& w = scene.settings;
  if (auto n = root.find("name")) scene.name = n->string();
  if (auto n = root.find("gravity")) w.gravity = n->vec3();
  if (auto n = root.find("timestep")) w.timestep = n->real();
  if (auto n = root.find("sleeping")) w.sleeping = n->boolean();
  if (auto n = root.find("gyroscopic")) w.gyroscopic = n->boolean();
  if (auto n = root.find("reuse_contacts")) w.reuse_contacts = n->boolean();
  if (auto n = root.find("speculative_margin")) w.speculative_margin = n->real();
  if (auto n = root.find("max_linear_speed")) w.max_linear_speed = n->real();
  if (auto n = root.find("max_angular_speed")) w.max_angular_speed = n->real();
  if (auto n = root.find("plane_normal")) w.plane_normal = n->vec3();
  if (auto n = root.find("solver")) w.solver = read_solver(*n);
  if (auto problem = find_problem(w)) root.fail_at(problem->path, problem->message);

  const JsonNode bodies = root.at("bodies");
  NameIndex body_index;
  scene.bodies.resize(bodies.array_size());
  for (std::size_t i = 0; i < scene.bodies.size(); ++i) {
    const JsonNode body = bodies.element(i);
    scene.bodies[i] = read_body(body);
    check_unique_name(body, scene.bodies[i].name, i, body_index, "body");
  }
  if (auto joints = root.find("joints")) {
    NameIndex joint_index;
    scene.joints.resize(joints->array_size());
    for (std::size_t i = 0; i < scene.joints.size(); ++i) {
      const JsonNode joint = joints->element(i);
      scene.joints[i] = read_joint(joint, body_index, scene.bodies);
      check_unique_name(joint, scene.joints[i].settings.name, i, joint_index, "joint");
    }
  }
  return scene;
}

}  // namespace

Scene parse_scene(const std::string& text, const std::string& file) {
  const Json document = parse_json_text(text, file);
  return read_scene(JsonNode(document, JsonPointer(), file));
}

Scene load_scene(const std::filesystem::path& path) {
  const std::string file = path.string();
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) throw SceneError(file, "", "is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SceneError(file, "", "cannot open the file for reading");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw SceneError(file, "", "cannot read the file");
  return parse_scene(text.str(), file);
}

std::string scene_to_json(const Scene& scene) {
  std::string text;
  write_pretty(scene_json(scene), 0, text);
  text += '\n';
  return text;
}

void save_scene(const Scene& scene, const std::filesystem::path& path) {
  const std::string text = scene_to_json(scene);
  // A temporary file renamed over the target: readers see the old file or the whole new one.
  std::filesystem::path temporary = path;
  temporary += ".tmp" + std::to_string(std::random_device{}());
  std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  std::error_code error;
  if (!out) {
    std::filesystem::remove(temporary, error);
    throw Error("cannot write the scene file '" + path.string() + "'");
  }
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    throw Error("cannot write the scene file '" + path.string() + "': " + error.message());
  }
}

}  // namespace impulse
