// Scene files: every kind of bad input names its exact JSON path; saving and loading round-trip;
// the contract's example reads as written; a scene becomes a world.

#include <impulse/error.h>
#include <impulse/scene.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <random>
#include <set>
#include <sstream>

namespace impulse {
namespace {

using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

const fs::path k_data_dir = IMPULSE_TEST_DATA_DIR;

// A valid scene that the error tests break one value at a time.
constexpr const char* k_base_scene = R"({
  "format": "impulse-scene/1",
  "name": "base",
  "solver": { "type": "pgs", "iterations": 10 },
  "bodies": [
    { "name": "ground", "type": "static",
      "shape": { "type": "box", "half_extents": [10, 0.5, 10] } },
    { "name": "a", "type": "dynamic", "shape": { "type": "sphere", "radius": 0.5 },
      "position": [0, 1, 0] },
    { "name": "b", "type": "dynamic", "position": [0, 3, 0],
      "shapes": [ { "type": "box", "half_extents": [0.5, 0.5, 0.5] },
                  { "type": "capsule", "radius": 0.25, "half_height": 0.5, "position": [0, 1, 0] } ] }
  ],
  "joints": [
    { "name": "h", "type": "hinge", "body_a": "a", "body_b": "b", "anchor": [0, 2, 0],
      "axis": [0, 0, 1] }
  ]
})";

// The base scene with the value at `pointer` replaced (or added).
std::string with(const std::string& pointer, const Json& value) {
  Json doc = Json::parse(k_base_scene);
  doc[Json::json_pointer(pointer)] = value;
  return doc.dump();
}

// The base scene without the key at `pointer`.
std::string without(const std::string& pointer) {
  Json doc = Json::parse(k_base_scene);
  const Json::json_pointer at(pointer);
  doc[at.parent_pointer()].erase(at.back());
  return doc.dump();
}

// The JSON path of the SceneError that parsing `text` throws, or "no error".
std::string error_path(const std::string& text) {
  try {
    parse_scene(text, "test.json");
  } catch (const SceneError& e) {
    EXPECT_EQ(e.file(), "test.json");
    return e.json_path();
  }
  return "no error";
}

std::string error_message(const std::string& text) {
  try {
    parse_scene(text, "test.json");
  } catch (const SceneError& e) {
    return e.what();
  }
  return "no error";
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(SceneJsonErrors, BaseSceneIsValid) {
  EXPECT_EQ(error_path(k_base_scene), "no error");
}

TEST(SceneJsonErrors, MalformedJsonIsAtTheDocumentAndGivesLineAndColumn) {
  const std::string text = "{\n  \"bodies\": [\n    { \"type\": \"dynamic\", }\n  ]\n}\n";
  EXPECT_EQ(error_path(text), "");
  const std::string message = error_message(text);
  EXPECT_NE(message.find("test.json: /: invalid JSON"), std::string::npos) << message;
  EXPECT_NE(message.find("line 3, column"), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << "one line";
  EXPECT_EQ(error_path(""), "");
  EXPECT_EQ(error_path("{} {}"), "");
}

TEST(SceneJsonErrors, DocumentMustBeAnObject) {
  EXPECT_EQ(error_path("[]"), "");
  EXPECT_EQ(error_path("42"), "");
}

TEST(SceneJsonErrors, MissingRequiredKeyIsAtTheObjectSlashKey) {
  EXPECT_EQ(error_path(without("/bodies")), "/bodies");
  EXPECT_EQ(error_path(without("/bodies/1/type")), "/bodies/1/type");
  EXPECT_EQ(error_path(without("/bodies/1/shape")), "/bodies/1/shape");
  EXPECT_EQ(error_path(without("/bodies/1/shape/radius")), "/bodies/1/shape/radius");
  EXPECT_EQ(error_path(without("/bodies/1/shape/type")), "/bodies/1/shape/type");
  EXPECT_EQ(error_path(without("/bodies/2/shapes/1/half_height")),
            "/bodies/2/shapes/1/half_height");
  EXPECT_EQ(error_path(without("/joints/0/type")), "/joints/0/type");
  EXPECT_EQ(error_path(without("/joints/0/body_a")), "/joints/0/body_a");
  EXPECT_EQ(error_path(without("/joints/0/anchor")), "/joints/0/anchor");
  EXPECT_EQ(error_path(without("/joints/0/axis")), "/joints/0/axis");
  EXPECT_NE(error_message(without("/bodies/1/shape/radius")).find("missing required key 'radius'"),
            std::string::npos);
}

TEST(SceneJsonErrors, OptionalKeysMayBeLeftOut) {
  EXPECT_EQ(error_path(without("/format")), "no error");
  EXPECT_EQ(error_path(without("/name")), "no error");
  EXPECT_EQ(error_path(without("/solver")), "no error");
  EXPECT_EQ(error_path(without("/joints")), "no error");
  EXPECT_EQ(error_path(without("/joints/0/body_b")), "no error");
  EXPECT_EQ(error_path(without("/bodies/0/name")), "no error");
}

TEST(SceneJsonErrors, WrongTypeIsAtTheValue) {
  EXPECT_EQ(error_path(with("/timestep", "fast")), "/timestep");
  EXPECT_EQ(error_path(with("/name", 3)), "/name");
  EXPECT_EQ(error_path(with("/sleeping", 1)), "/sleeping");
  EXPECT_EQ(error_path(with("/gravity", "down")), "/gravity");
  EXPECT_EQ(error_path(with("/solver", Json::array())), "/solver");
  EXPECT_EQ(error_path(with("/solver/iterations", "10")), "/solver/iterations");
  EXPECT_EQ(error_path(with("/solver/warm_start", "yes")), "/solver/warm_start");
  EXPECT_EQ(error_path(with("/bodies", Json::object())), "/bodies");
  EXPECT_EQ(error_path(with("/bodies/1", "a")), "/bodies/1");
  EXPECT_EQ(error_path(with("/bodies/1/mass", nullptr)), "/bodies/1/mass");
  EXPECT_EQ(error_path(with("/bodies/1/position/1", "1")), "/bodies/1/position/1");
  EXPECT_EQ(error_path(with("/bodies/1/shape", Json::array())), "/bodies/1/shape");
  EXPECT_EQ(error_path(with("/bodies/2/shapes", Json::object())), "/bodies/2/shapes");
  EXPECT_EQ(error_path(with("/bodies/2/shapes/1/radius", true)), "/bodies/2/shapes/1/radius");
  EXPECT_EQ(error_path(with("/joints/0/body_a", 1)), "/joints/0/body_a");
  EXPECT_EQ(error_path(with("/joints/0/collide_connected", 0)), "/joints/0/collide_connected");
}

TEST(SceneJsonErrors, ArrayOfTheWrongLengthIsAtTheArray) {
  EXPECT_EQ(error_path(with("/gravity", {0, -9.81})), "/gravity");
  EXPECT_EQ(error_path(with("/bodies/0/shape/half_extents", {1, 1})),
            "/bodies/0/shape/half_extents");
  EXPECT_EQ(error_path(with("/bodies/2/shapes/0/half_extents", {1, 1, 1, 1})),
            "/bodies/2/shapes/0/half_extents");
  EXPECT_EQ(error_path(with("/bodies/1/orientation", {0, 0, 1})), "/bodies/1/orientation");
  EXPECT_EQ(error_path(with("/bodies/2/shapes/1/position", {0, 1})), "/bodies/2/shapes/1/position");
  EXPECT_EQ(error_path(with("/joints/0/limits", {0.5})), "/joints/0/limits");
}

TEST(SceneJsonErrors, IterationsMustBeAnInteger) {
  EXPECT_EQ(error_path(with("/solver/iterations", 10.5)), "/solver/iterations");
  EXPECT_EQ(error_path(with("/solver/iterations", 1e12)), "/solver/iterations");
  EXPECT_EQ(error_path(with("/solver/iterations", 0)), "/solver/iterations");  // out of range
  EXPECT_EQ(parse_scene(with("/solver/iterations", 12.0)).settings.solver.iterations, 12);
}

TEST(SceneJson, EveryFrictionModelIsReadByItsName) {
  for (const FrictionModel model : {FrictionModel::coulomb, FrictionModel::cone,
                                    FrictionModel::constant, FrictionModel::patch}) {
    EXPECT_EQ(parse_scene(with("/solver/friction_model", friction_model_name(model)))
                  .settings.solver.friction_model,
              model);
  }
}

TEST(SceneJsonErrors, UnknownKeyIsAtTheKey) {
  EXPECT_EQ(error_path(with("/gravty", {0, -1, 0})), "/gravty");
  EXPECT_EQ(error_path(with("/bodies/1/densty", 500)), "/bodies/1/densty");
  EXPECT_EQ(error_path(with("/bodies/1/shape/half_extents", {1, 1, 1})),
            "/bodies/1/shape/half_extents");  // a key of another shape type
  EXPECT_EQ(error_path(with("/bodies/2/shapes/0/mass", 1)), "/bodies/2/shapes/0/mass");
  EXPECT_EQ(error_path(with("/solver/iterattions", 3)), "/solver/iterattions");
  EXPECT_EQ(error_path(with("/joints/0/axes", {0, 0, 1})), "/joints/0/axes");
  EXPECT_EQ(error_path(with("/joints/0/min", 1)), "/joints/0/min");  // a key of distance joints
  EXPECT_EQ(error_path(with("/joints/0/motor", {{"speed", 1}, {"max_force", 1}})),
            "/joints/0/motor/max_force");            // hinges take max_torque
  EXPECT_EQ(error_path(with("/a~1b", 1)), "/a~1b");  // escaped as a JSON pointer
  const std::string message = error_message(with("/bodies/1/densty", 500));
  EXPECT_NE(message.find("unknown key 'densty' (did you mean 'density'?)"), std::string::npos)
      << message;
}

TEST(SceneJsonErrors, ExtraHoldsAnythingWhereverItIsAllowed) {
  Json doc = Json::parse(k_base_scene);
  const Json anything = {{"editor", {{"color", "red"}, {"tags", {1, "two", nullptr}}}}};
  for (const char* pointer : {"/extra", "/bodies/0/extra", "/bodies/1/shape/extra",
                              "/bodies/2/shapes/1/extra", "/joints/0/extra", "/solver/extra"})
    doc[Json::json_pointer(pointer)] = anything;
  EXPECT_EQ(parse_scene(doc.dump()), parse_scene(k_base_scene));
  // Duplicate keys are refused, except inside "extra".
  EXPECT_EQ(error_path(R"({"bodies": [], "extra": {"k": 1, "k": 2}})"), "no error");
  EXPECT_EQ(error_path(R"({"bodies": [], "name": "a", "name": "b"})"), "/name");
  EXPECT_EQ(error_path(R"({"bodies": [{"type": "static", "type": "dynamic"}]})"), "/bodies/0/type");
}

TEST(SceneJsonErrors, NonFiniteNumberIsAtTheNumber) {
  // Beyond a double: the JSON parser itself refuses it; the path is still exact.
  EXPECT_EQ(
      error_path(
          R"({"bodies": [{"type": "dynamic", "shape": {"type": "sphere", "radius": 1e999}}]})"),
      "/bodies/0/shape/radius");
  EXPECT_EQ(error_path(R"({"gravity": [0, -1e999, 0], "bodies": []})"), "/gravity/1");
  // A double beyond a float.
  EXPECT_EQ(error_path(with("/bodies/1/mass", 1e39)), "/bodies/1/mass");
  EXPECT_EQ(error_path(with("/bodies/2/shapes/1/position/2", -1e300)),
            "/bodies/2/shapes/1/position/2");
  EXPECT_EQ(error_path(with("/timestep", 3.5e38)), "/timestep");
}

TEST(SceneJsonErrors, OutOfRangeValuesUseTheWorldsChecksAtTheirJsonPath) {
  EXPECT_EQ(error_path(with("/bodies/1/shape/radius", -0.5)), "/bodies/1/shape/radius");
  EXPECT_EQ(error_path(with("/bodies/2/shapes/1/radius", 0)), "/bodies/2/shapes/1/radius");
  EXPECT_EQ(error_path(with("/bodies/2/shapes/0/half_extents/2", 0)),
            "/bodies/2/shapes/0/half_extents/2");
  EXPECT_EQ(error_path(with("/bodies/2/shapes/1/orientation", {0, 0, 0, 0})),
            "/bodies/2/shapes/1/orientation");
  EXPECT_EQ(error_path(with("/bodies/1/shape/orientation", {0, 0, 0, 0})),
            "/bodies/1/shape/orientation");
  EXPECT_EQ(error_path(with("/bodies/1/orientation", {0, 0, 0, 0})), "/bodies/1/orientation");
  EXPECT_EQ(error_path(with("/bodies/1/mass", 0)), "/bodies/1/mass");
  EXPECT_EQ(error_path(with("/bodies/1/density", -1000)), "/bodies/1/density");
  EXPECT_EQ(error_path(with("/bodies/0/density", -1000)), "no error");  // static: no mass
  EXPECT_EQ(error_path(with("/bodies/1/friction", -0.1)), "/bodies/1/friction");
  EXPECT_EQ(error_path(with("/bodies/1/restitution", 1.5)), "/bodies/1/restitution");
  EXPECT_EQ(error_path(with("/bodies/1/min_inertia_ratio", -0.1)), "/bodies/1/min_inertia_ratio");
  EXPECT_EQ(error_path(with("/bodies/1/min_inertia_ratio", 1.5)), "/bodies/1/min_inertia_ratio");
  EXPECT_EQ(error_path(with("/bodies/1/linear_damping", -1)), "/bodies/1/linear_damping");
  EXPECT_EQ(error_path(with("/bodies/2/shapes", Json::array())), "/bodies/2/shapes");
  EXPECT_EQ(error_path(
                with("/bodies/1/shape", {{"type", "plane"}, {"normal", {0, 1, 0}}, {"offset", 0}})),
            "/bodies/1/shape/type");  // static only
  EXPECT_EQ(error_path(with("/bodies/0/shape", {{"type", "convex_hull"}, {"points", {{0, 0, 0}}}})),
            "/bodies/0/shape/points");
  EXPECT_EQ(error_path(with("/timestep", 0)), "/timestep");
  EXPECT_EQ(error_path(with("/solver/baumgarte", 1.5)), "/solver/baumgarte");
  EXPECT_EQ(error_path(with("/solver/max_angular_push_speed", -1)),
            "/solver/max_angular_push_speed");
  EXPECT_EQ(error_path(with("/solver/slop", -0.01)), "/solver/slop");
  EXPECT_EQ(error_path(with("/solver/sor", 2)), "/solver/sor");
  EXPECT_EQ(error_path(with("/solver/tolerance", -1)), "/solver/tolerance");
  EXPECT_EQ(error_path(with("/solver/substeps", 0)), "/solver/substeps");
}

TEST(SceneJsonErrors, MeshTrianglesAreVertexIndices) {
  const Json mesh = {{"type", "mesh"},
                     {"vertices", {{0, 0, 0}, {1, 0, 0}, {0, 0, 1}}},
                     {"triangles", {{0, 2, 1}}}};
  EXPECT_EQ(error_path(with("/bodies/0/shape", mesh)), "no error");
  Json bad = mesh;
  bad["triangles"][0][2] = 3;
  EXPECT_EQ(error_path(with("/bodies/0/shape", bad)), "/bodies/0/shape/triangles/0/2");
  bad["triangles"][0][2] = -1;
  EXPECT_EQ(error_path(with("/bodies/0/shape", bad)), "/bodies/0/shape/triangles/0/2");
  bad["triangles"][0][2] = 1.5;
  EXPECT_EQ(error_path(with("/bodies/0/shape", bad)), "/bodies/0/shape/triangles/0/2");
  bad["triangles"][0] = {0, 1};
  EXPECT_EQ(error_path(with("/bodies/0/shape", bad)), "/bodies/0/shape/triangles/0");
}

TEST(SceneJsonErrors, UnknownEnumNamesAreAtTheirKey) {
  EXPECT_EQ(error_path(with("/solver/type", "gauss_seidel")), "/solver/type");
  EXPECT_EQ(error_path(with("/solver/friction_model", "pyramid")), "/solver/friction_model");
  EXPECT_EQ(error_path(with("/bodies/1/type", "moving")), "/bodies/1/type");
  EXPECT_EQ(error_path(with("/bodies/1/shape/type", "cylinder")), "/bodies/1/shape/type");
  EXPECT_EQ(error_path(with("/joints/0/type", "weld")), "/joints/0/type");
  const std::string message = error_message(with("/solver/type", "gauss_seidel"));
  EXPECT_NE(message.find("unknown solver type 'gauss_seidel' (expected one of: pgs, global_dense,"),
            std::string::npos)
      << message;
  EXPECT_NE(error_message(with("/bodies/1/shape/type", "cylinder")).find("sphere, box, capsule"),
            std::string::npos);
}

TEST(SceneJsonErrors, UnsupportedFormat) {
  EXPECT_EQ(error_path(with("/format", "impulse-scene/2")), "/format");
  EXPECT_EQ(error_path(with("/format", 1)), "/format");
}

TEST(SceneJsonErrors, DuplicateNamesAreAtTheSecondName) {
  EXPECT_EQ(error_path(with("/bodies/2/name", "a")), "/bodies/2/name");
  Json doc = Json::parse(k_base_scene);
  doc["joints"].push_back(doc["joints"][0]);
  EXPECT_EQ(error_path(doc.dump()), "/joints/1/name");
  // Unnamed bodies and joints are never duplicates.
  doc["joints"][0].erase("name");
  doc["joints"][1].erase("name");
  doc["bodies"][0].erase("name");
  doc["bodies"].push_back(doc["bodies"][0]);
  EXPECT_EQ(error_path(doc.dump()), "no error");
}

TEST(SceneJsonErrors, JointBodies) {
  EXPECT_EQ(error_path(with("/joints/0/body_b", "c")), "/joints/0/body_b");
  EXPECT_EQ(error_path(with("/joints/0/body_a", "")), "/joints/0/body_a");
  EXPECT_EQ(error_path(with("/joints/0/body_b", "a")), "/joints/0/body_b");  // body_a == body_b
  EXPECT_EQ(
      error_path(with("/joints/0",
                      {{"type", "nail"}, {"body_a", "a"}, {"body_b", "b"}, {"anchor", {0, 1, 0}}})),
      "/joints/0/body_b");
  EXPECT_EQ(error_path(with("/joints/0/body_a", "b")), "/joints/0/body_b");
  const std::string message = error_message(with("/joints/0/body_b", "c"));
  EXPECT_NE(message.find("unknown body 'c'"), std::string::npos) << message;
}

TEST(SceneJsonErrors, JointValues) {
  EXPECT_EQ(error_path(with("/joints/0/axis", {0, 0, 0})), "/joints/0/axis");
  // As short as a quaternion that is no rotation: no direction either (it was read as one).
  EXPECT_EQ(error_path(with("/joints/0/axis", {1e-9, 0, 1e-9})), "/joints/0/axis");
  EXPECT_EQ(error_path(with("/joints/0/axis", {1e-5, 0, 0})), "no error");
  EXPECT_EQ(error_path(with("/joints/0/limits", {0.5, -0.5})), "/joints/0/limits");
  // Degrees are checked as radians, and the path names the key the file has.
  Json wide = Json::parse(k_base_scene);
  wide["joints"][0]["limits_deg"] = {-270, 270};
  EXPECT_EQ(error_path(wide.dump()), "/joints/0/limits_deg");
  Json both = Json::parse(with("/joints/0/limits", {-0.5, 0.5}));
  both["joints"][0]["limits_deg"] = {-30, 30};
  EXPECT_EQ(error_path(both.dump()), "/joints/0/limits_deg");
  EXPECT_EQ(error_path(with("/joints/0/motor", {{"speed", 1}, {"max_torque", -1}})),
            "/joints/0/motor/max_torque");
  EXPECT_EQ(error_path(with("/joints/0/motor", {{"speed", 1}})), "/joints/0/motor/max_torque");
  EXPECT_EQ(error_path(with("/joints/0/break_force", 0)), "/joints/0/break_force");
  EXPECT_EQ(error_path(with("/joints/0/break_torque", -1)), "/joints/0/break_torque");
  const Json distance = {
      {"type", "distance"},    {"body_a", "a"}, {"body_b", "b"}, {"anchor_a", {0, 1, 0}},
      {"anchor_b", {0, 3, 0}}, {"min", 2},      {"max", 1}};
  EXPECT_EQ(error_path(with("/joints/0", distance)), "/joints/0/max");
  const Json six_dof = {{"type", "six_dof"},
                        {"body_a", "a"},
                        {"anchor", {0, 1, 0}},
                        {"angular", {"free", {1, -1}, "fixed"}}};
  EXPECT_EQ(error_path(with("/joints/0", six_dof)), "/joints/0/angular/1");
  Json short_axes = six_dof;
  short_axes["angular"] = {"free", "free"};
  EXPECT_EQ(error_path(with("/joints/0", short_axes)), "/joints/0/angular");
  Json zero_frame = six_dof;
  zero_frame["angular"] = {"free", "free", "free"};
  zero_frame["frame"] = {0, 0, 0, 0};
  EXPECT_EQ(error_path(with("/joints/0", zero_frame)), "/joints/0/frame");
  const Json cone = {{"type", "cone_twist"}, {"body_a", "a"},          {"anchor", {0, 1, 0}},
                     {"axis", {0, 1, 0}},    {"swing_limit_deg", -10}, {"twist_limits", {0, 0}}};
  EXPECT_EQ(error_path(with("/joints/0", cone)), "/joints/0/swing_limit_deg");
}

TEST(SceneJson, DefaultsOfAMinimalScene) {
  const Scene scene = parse_scene(R"({"bodies": [{"type": "dynamic", "shape": {"type": "box",
      "half_extents": [0.5, 0.5, 0.5]}}]})");
  EXPECT_EQ(scene.name, "");
  EXPECT_EQ(scene.settings, WorldSettings{});
  ASSERT_EQ(scene.bodies.size(), 1u);
  EXPECT_EQ(scene.bodies[0], BodySettings{});  // a 1 m dynamic box of density 1000
  EXPECT_TRUE(scene.joints.empty());
  EXPECT_TRUE(parse_scene(R"({"bodies": []})").bodies.empty());
}

TEST(SceneJson, MassWinsOverDensityWhichIsKept) {
  Json doc = Json::parse(k_base_scene);
  doc["bodies"][1]["density"] = 500;
  EXPECT_FALSE(parse_scene(doc.dump()).bodies[1].mass);
  doc["bodies"][1]["mass"] = 2;
  const BodySettings body = parse_scene(doc.dump()).bodies[1];
  EXPECT_EQ(body.mass, Real(2));
  EXPECT_EQ(body.density, 500);
}

TEST(SceneJson, OrientationsAreKeptAsWritten) {
  const Scene scene = parse_scene(with("/bodies/1/orientation", {0, 0, 0, 2}));
  EXPECT_EQ(scene.bodies[1].orientation, Quat(0, 0, 0, 2));  // the world normalises it
}

TEST(SceneJson, JointsAreReadWholeWithDefaultsAndRadians) {
  Json doc = Json::parse(k_base_scene);
  doc["joints"] = Json::parse(R"([
    { "type": "fixed", "body_a": "b", "body_b": "a" },
    { "type": "hinge", "body_a": "a", "anchor": [0, 2, 0], "axis": [0, 0, 2],
      "limits_deg": [-90, 45] },
    { "type": "cone_twist", "body_a": "a", "body_b": "b", "anchor": [0, 2, 0], "axis": [3, 4, 0],
      "swing_limit_deg": 30, "twist_limits": [-0.25, 0.5] },
    { "type": "six_dof", "body_a": "a", "anchor": [1, 2, 3] }
  ])");
  const Scene scene = parse_scene(doc.dump());
  ASSERT_EQ(scene.joints.size(), 4u);
  const JointSettings& fixed = scene.joints[0].settings;
  EXPECT_EQ(fixed.anchor, Vec3(0, 3, 0));  // body_a's position
  EXPECT_EQ(scene.joints[0].body_a, "b");
  EXPECT_EQ(scene.joints[0].body_b, "a");
  EXPECT_TRUE(fixed.body_a.is_null());
  const JointSettings& hinge = scene.joints[1].settings;
  EXPECT_EQ(scene.joints[1].body_b, "");  // the world
  EXPECT_EQ(hinge.axis, Vec3(0, 0, 1));
  ASSERT_TRUE(hinge.limits);
  EXPECT_FLOAT_EQ(hinge.limits->lo, -k_pi / 2);
  EXPECT_FLOAT_EQ(hinge.limits->hi, k_pi / 4);
  EXPECT_FALSE(hinge.motor);
  const JointSettings& cone = scene.joints[2].settings;
  EXPECT_FLOAT_EQ(cone.axis.x, 0.6f);
  EXPECT_FLOAT_EQ(cone.axis.y, 0.8f);
  EXPECT_FLOAT_EQ(cone.swing_limit, k_pi / 6);
  EXPECT_EQ(cone.twist_limits, (Range{-0.25f, 0.5f}));
  const JointSettings& six = scene.joints[3].settings;
  EXPECT_EQ(six.frame, Quat::identity());
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(six.linear[i].mode, AxisMotion::Mode::fixed);
    EXPECT_EQ(six.angular[i].mode, AxisMotion::Mode::fixed);
  }
}

// Every key of the format, with values away from their defaults.
constexpr const char* k_rich_scene = R"({
  "format": "impulse-scene/1",
  "name": "every key",
  "gravity": [0.5, -9.81, 0.25],
  "timestep": 0.01,
  "sleeping": false,
  "gyroscopic": true,
  "reuse_contacts": false,
  "solver": { "type": "global_sparse", "iterations": 25, "baumgarte": 0.1, "slop": 0.01,
              "warm_start": false, "friction_model": "cone", "sor": 1.3, "tolerance": 1e-6,
              "shuffle": true, "relax_iterations": 3, "substeps": 4, "geometric_stiffness": false,
              "max_angular_push_speed": 1.5, "extra": null },
  "extra": { "author": "test" },
  "bodies": [
    { "name": "ground", "type": "static", "shape": { "type": "plane", "normal": [0, 1, 0], "offset": -1 } },
    { "name": "terrain", "type": "static", "friction": 0.9,
      "shape": { "type": "mesh", "vertices": [[0, 0, 0], [1, 0, 0], [0, 0, 1], [1, 0.5, 1]],
                 "triangles": [[0, 2, 1], [1, 2, 3]] } },
    { "name": "platform", "type": "kinematic", "shape": { "type": "box", "half_extents": [2, 0.1, 2] },
      "position": [0, 1, 0], "linear_velocity": [0.5, 0, 0], "angular_velocity": [0, 0.1, 0] },
    { "name": "a", "type": "dynamic", "position": [0, 2, 0], "orientation": [0, 0.38268343, 0, 0.9238795],
      "shape": { "type": "sphere", "radius": 0.25, "extra": [1, 2] },
      "mass": 2.5, "density": 700, "friction": 0.3, "restitution": 0.4,
      "linear_damping": 0.05, "angular_damping": 0.1, "gravity_scale": 0.5, "min_inertia_ratio": 0,
      "extra": {} },
    { "name": "b", "type": "dynamic", "position": [1, 2, 0], "density": 250,
      "shapes": [
        { "type": "capsule", "radius": 0.2, "half_height": 0.3 },
        { "type": "convex_hull", "points": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [0.2, 0.2, 0.2]],
          "position": [0, 0.7, 0], "orientation": [0, 0, 0.70710678, 0.70710678] },
        { "type": "box", "half_extents": [0.1, 0.2, 0.3], "position": [-0.5, 0, 0] } ] },
    { "name": "c", "type": "dynamic", "position": [2, 2, 0],
      "shape": { "type": "box", "half_extents": [0.3, 0.3, 0.3], "position": [0, 0.1, 0] } },
    { "type": "dynamic", "position": [3, 2, 0], "shape": { "type": "sphere", "radius": 0.1 } },
    { "type": "dynamic", "position": [4, 2, 0], "shape": { "type": "sphere", "radius": 0.1 } }
  ],
  "joints": [
    { "name": "ball", "type": "ball", "body_a": "a", "body_b": "b", "anchor": [0.5, 2, 0],
      "break_force": 1000, "break_torque": 500, "collide_connected": true, "extra": "x" },
    { "name": "nail", "type": "nail", "body_a": "c", "anchor": [2, 3, 0] },
    { "name": "rope", "type": "distance", "body_a": "a", "body_b": "c", "anchor_a": [0, 2.25, 0],
      "anchor_b": [2, 2.3, 0], "min": 0.5, "max": 2.5 },
    { "name": "weld", "type": "fixed", "body_a": "b", "body_b": "c", "anchor": [1.5, 2, 0] },
    { "name": "door", "type": "hinge", "body_a": "a", "anchor": [0, 2.5, 0], "axis": [0, 1, 0],
      "limits_deg": [-45, 90], "motor": { "speed": 1.5, "max_torque": 20 } },
    { "name": "slider", "type": "prismatic", "body_a": "b", "body_b": "platform", "anchor": [1, 1.5, 0],
      "axis": [1, 1, 0], "limits": [-0.5, 0.5], "motor": { "speed": -0.2, "max_force": 100 } },
    { "name": "shoulder", "type": "cone_twist", "body_a": "a", "body_b": "c", "anchor": [1, 2, 0],
      "axis": [1, 0, 0], "swing_limit": 0.7, "twist_limits_deg": [-10, 20] },
    { "name": "gimbal", "type": "six_dof", "body_a": "b", "anchor": [1, 2, 0],
      "frame": [0, 0, 0.38268343, 0.9238795], "linear": ["free", "fixed", [-0.1, 0.1]],
      "angular": [[-1, 1], "free", "fixed"] },
    { "type": "ball", "body_a": "c", "anchor": [2, 2, 1] },
    { "type": "ball", "body_a": "c", "anchor": [2, 2, -1] }
  ]
})";

TEST(SceneJsonRoundTrip, RichSceneReadsBackEqualAndWritesIdenticalText) {
  const Scene scene = parse_scene(k_rich_scene);
  ASSERT_EQ(scene.bodies.size(), 8u);
  ASSERT_EQ(scene.joints.size(), 10u);
  EXPECT_TRUE(scene.settings.gyroscopic);
  EXPECT_FALSE(scene.settings.reuse_contacts);
  EXPECT_EQ(scene.bodies[3].gravity_scale, 0.5f);
  EXPECT_EQ(scene.bodies[3].min_inertia_ratio, 0.0f);
  EXPECT_FALSE(scene.settings.solver.geometric_stiffness);
  EXPECT_EQ(scene.settings.solver.substeps, 4);
  EXPECT_EQ(scene.settings.solver.max_angular_push_speed, 1.5f);
  const std::string text = scene_to_json(scene);
  const Scene again = parse_scene(text, "saved.json");
  EXPECT_EQ(again, scene);
  EXPECT_EQ(scene_to_json(again), text);
}

TEST(SceneJsonRoundTrip, PlaneNormalAndParticleReadBackEqual) {
  Json doc = Json::parse(with("/plane_normal", {0, 0, 1}));
  doc["bodies"][1]["particle"] = true;
  const Scene planar = parse_scene(doc.dump());
  EXPECT_EQ(planar.settings.plane_normal, Vec3(0, 0, 1));
  EXPECT_TRUE(planar.bodies[1].particle);
  EXPECT_FALSE(planar.bodies[2].particle);
  const std::string text = scene_to_json(planar);
  const Scene again = parse_scene(text, "saved.json");
  EXPECT_EQ(again, planar);
  EXPECT_EQ(scene_to_json(again), text);
  // Defaults are not written: contract-only readers still accept a 3D scene of rigid bodies.
  const std::string plain = scene_to_json(parse_scene(k_base_scene));
  EXPECT_EQ(plain.find("plane_normal"), std::string::npos);
  EXPECT_EQ(plain.find("particle"), std::string::npos);
}

TEST(SceneJsonErrors, PlaneNormalMustBeZeroOrUnit) {
  EXPECT_EQ(error_path(with("/plane_normal", {0, 0, 2})), "/plane_normal");
  EXPECT_EQ(error_path(with("/plane_normal", {0, 0.5, 0.5})), "/plane_normal");
  EXPECT_EQ(error_path(with("/plane_normal", {0, 0})), "/plane_normal");
  EXPECT_EQ(error_path(with("/plane_normal", {0, 0, 0})), "no error");
  EXPECT_EQ(error_path(with("/plane_normal", {0, 1.0005, 0})), "no error");
  EXPECT_EQ(error_path(with("/bodies/1/particle", 1)), "/bodies/1/particle");
  EXPECT_EQ(error_path(with("/bodies/1/particle", true)), "no error");
  Json spinning_particle = Json::parse(with("/bodies/1/particle", true));
  spinning_particle["bodies"][1]["angular_velocity"] = {0, 1, 0};
  EXPECT_EQ(error_path(spinning_particle.dump()), "/bodies/1/angular_velocity");
}

TEST(SceneJsonRoundTrip, CollisionFiltersReadBackEqual) {
  Json doc = Json::parse(k_base_scene);
  doc["bodies"][1]["collision_category"] = 6;
  doc["bodies"][1]["collision_mask"] = 4294967294u;
  doc["bodies"][2]["collision_group"] = -3;
  const Scene filtered = parse_scene(doc.dump());
  EXPECT_EQ(filtered.bodies[1].collision_filter, (CollisionFilter{6, 4294967294u, 0}));
  EXPECT_EQ(filtered.bodies[2].collision_filter, (CollisionFilter{1, ~std::uint32_t(0), -3}));
  const std::string text = scene_to_json(filtered);
  const Scene again = parse_scene(text, "saved.json");
  EXPECT_EQ(again, filtered);
  EXPECT_EQ(scene_to_json(again), text);
  EXPECT_EQ(scene_to_json(parse_scene(k_base_scene)).find("collision_"), std::string::npos);
}

TEST(SceneJsonErrors, CollisionFiltersAreIntegersInRange) {
  EXPECT_EQ(error_path(with("/bodies/1/collision_mask", -1)), "/bodies/1/collision_mask");
  EXPECT_EQ(error_path(with("/bodies/1/collision_mask", 4294967296.0)), "/bodies/1/collision_mask");
  EXPECT_EQ(error_path(with("/bodies/1/collision_category", 1.5)), "/bodies/1/collision_category");
  EXPECT_EQ(error_path(with("/bodies/1/collision_group", "ragdoll")), "/bodies/1/collision_group");
  EXPECT_EQ(error_path(with("/bodies/1/collision_group", 3000000000.0)),
            "/bodies/1/collision_group");
  EXPECT_EQ(error_path(with("/bodies/1/collision_group", -2147483648.0)), "no error");
  EXPECT_EQ(error_path(with("/bodies/1/collision_mask", 0)), "no error");
  EXPECT_NE(error_message(with("/bodies/1/collision_mask", -1)).find("[0, 4294967295]"),
            std::string::npos);
}

TEST(SceneJsonRoundTrip, WritesShortestFloatsAndReadableLayout) {
  const std::string text = scene_to_json(parse_scene(k_rich_scene));
  EXPECT_TRUE(
      text.starts_with("{\n  \"format\": \"impulse-scene/1\",\n  \"name\": \"every key\",\n"))
      << text;
  EXPECT_NE(text.find("\"gravity\": [0.5, -9.81, 0.25]"), std::string::npos) << text;
  EXPECT_NE(text.find("\"timestep\": 0.01,"), std::string::npos) << text;
  EXPECT_NE(text.find("\"tolerance\": 1e-06"), std::string::npos) << text;
  EXPECT_EQ(text.find("0000000"), std::string::npos) << text;
  // One shape at the body origin is written as "shape"; an offset one as "shapes".
  const Json doc = Json::parse(text);
  EXPECT_TRUE(doc["bodies"][3].contains("shape"));
  EXPECT_TRUE(doc["bodies"][5].contains("shapes"));
  EXPECT_EQ(doc["bodies"][5]["shapes"][0]["position"], Json({0, 0.1, 0}));
  // Defaults are left out; angles are saved in radians.
  EXPECT_FALSE(doc["bodies"][6].contains("density"));
  EXPECT_FALSE(doc["joints"][4].contains("limits_deg"));
  EXPECT_TRUE(doc["joints"][4].contains("limits"));
  EXPECT_TRUE(text.ends_with("}\n"));
}

TEST(SceneJsonRoundTrip, ArbitraryFloatsSurviveBitForBit) {
  std::mt19937 random(7);
  std::uniform_real_distribution<float> unit(-1, 1);
  const auto any_float = [&] {
    return unit(random) * std::pow(10.0f, float(int(random() % 12) - 6));
  };
  const auto any_vec = [&] { return Vec3(any_float(), any_float(), any_float()); };
  Scene scene;
  scene.name = "random \"quoted\" \xc3\xa9";
  scene.settings.gravity = {-0.0f, any_float(), 1e-30f};
  scene.settings.timestep = 1.0f / 240;
  BodySettings hull;
  hull.name = "hull";
  // Static: the loader cooks a body as the world would, and this random hull's inertia is too
  // small for a dynamic body's inverse in single precision.
  hull.type = BodyType::static_body;
  ConvexHull points;
  for (int i = 0; i < 2000; ++i)
    points.points.push_back(any_vec());
  hull.shapes = {ShapeSettings{points, Transform{any_vec(), Quat(0.1f, 0.2f, 0.3f, 0.9f)}},
                 ShapeSettings{Sphere{3e-7f}, Transform{}}};
  hull.position = any_vec();
  hull.orientation = {any_float(), any_float(), any_float(), any_float()};
  hull.linear_velocity = {-0.0f, 0, 0};
  hull.mass = 16777217.0f;
  hull.density = 1e-3f;
  hull.friction = 3.4e38f;
  scene.bodies.push_back(hull);
  BodySettings ground;
  ground.type = BodyType::static_body;
  ground.shapes = {ShapeSettings{Plane{Vec3(0, 1, 0), -0.0f}, Transform{}}};
  scene.bodies.push_back(ground);
  SceneJoint joint;
  joint.settings.type = JointType::six_dof;
  joint.settings.anchor = any_vec();
  joint.settings.linear[1] = {AxisMotion::Mode::limited, {-1e-5f, 1e5f}, {}};
  joint.body_a = "hull";
  scene.joints.push_back(joint);

  const std::string text = scene_to_json(scene);
  const Scene again = parse_scene(text);
  EXPECT_EQ(again, scene);
  EXPECT_EQ(std::memcmp(&again.settings.gravity, &scene.settings.gravity, sizeof(Vec3)), 0)
      << "-0 stays -0";
  EXPECT_TRUE(std::signbit(std::get<Plane>(again.bodies[1].shapes[0].geometry).offset));
  EXPECT_EQ(scene_to_json(again), text);
}

TEST(SceneJsonContract, ExampleReadsAsWritten) {
  const Scene scene = load_scene(k_data_dir / "contract_example.json");
  EXPECT_EQ(scene.name, "two boxes on a hinge");
  const WorldSettings& w = scene.settings;
  EXPECT_EQ(w.gravity, Vec3(0, -9.81f, 0));
  EXPECT_EQ(w.timestep, 0.0166667f);
  EXPECT_TRUE(w.sleeping);
  EXPECT_FALSE(w.gyroscopic);
  EXPECT_TRUE(w.reuse_contacts);
  EXPECT_EQ(w.solver.type, SolverType::pgs);
  EXPECT_EQ(w.solver.iterations, 10);
  EXPECT_EQ(w.solver.baumgarte, 0.2f);
  EXPECT_EQ(w.solver.slop, 0.005f);
  EXPECT_TRUE(w.solver.warm_start);
  EXPECT_EQ(w.solver.friction_model, FrictionModel::coulomb);
  EXPECT_EQ(w.solver.sor, 1.0f);
  EXPECT_EQ(w.solver.tolerance, 0.0f);
  EXPECT_FALSE(w.solver.shuffle);

  ASSERT_EQ(scene.bodies.size(), 3u);
  const BodySettings& ground = scene.bodies[0];
  EXPECT_EQ(ground.name, "ground");
  EXPECT_EQ(ground.type, BodyType::static_body);
  ASSERT_EQ(ground.shapes.size(), 1u);
  EXPECT_EQ(ground.shapes[0].geometry, ShapeGeometry(Box{{20, 0.5f, 20}}));
  EXPECT_EQ(ground.shapes[0].local, Transform{});
  EXPECT_EQ(ground.position, Vec3(0, -0.5f, 0));

  const BodySettings& a = scene.bodies[1];
  EXPECT_EQ(a.name, "a");
  EXPECT_EQ(a.type, BodyType::dynamic_body);
  EXPECT_EQ(a.shapes[0].geometry, ShapeGeometry(Box{{0.5f, 0.5f, 0.5f}}));
  EXPECT_EQ(a.position, Vec3(0, 0.5f, 0));
  EXPECT_EQ(a.orientation, Quat::identity());
  EXPECT_EQ(a.density, 1000);
  EXPECT_FALSE(a.mass);
  EXPECT_EQ(a.friction, 0.5f);
  EXPECT_EQ(a.restitution, 0);
  EXPECT_EQ(a.linear_velocity, Vec3{});
  EXPECT_EQ(a.angular_velocity, Vec3{});

  const BodySettings& b = scene.bodies[2];
  EXPECT_EQ(b.name, "b");
  EXPECT_EQ(b.shapes[0].geometry, ShapeGeometry(Sphere{0.25f}));
  EXPECT_EQ(b.position, Vec3(0, 2, 0));
  EXPECT_EQ(b.mass, Real(2));

  ASSERT_EQ(scene.joints.size(), 1u);
  const SceneJoint& h = scene.joints[0];
  EXPECT_EQ(h.body_a, "a");
  EXPECT_EQ(h.body_b, "b");
  EXPECT_EQ(h.settings.name, "h");
  EXPECT_EQ(h.settings.type, JointType::hinge);
  EXPECT_EQ(h.settings.anchor, Vec3(0, 1.5f, 0));
  EXPECT_EQ(h.settings.axis, Vec3(0, 0, 1));
  EXPECT_EQ(h.settings.limits, (Range{-0.5f, 0.5f}));
  ASSERT_TRUE(h.settings.motor);
  EXPECT_EQ(h.settings.motor->speed, 1);
  EXPECT_EQ(h.settings.motor->max_force, 50);
  EXPECT_FALSE(h.settings.break_force);
  EXPECT_FALSE(h.settings.collide_connected);

  EXPECT_EQ(parse_scene(scene_to_json(scene)), scene);
}

TEST(SceneBadFiles, EachFileFailsAtItsExpectedPath) {
  const fs::path dir = k_data_dir / "bad";
  const Json expected = Json::parse(read_file(dir / "expected.json"));
  std::set<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().filename() != "expected.json") files.insert(entry.path().filename().string());
  }
  std::set<std::string> listed;
  for (const auto& [name, path] : expected.items())
    listed.insert(name);
  EXPECT_EQ(files, listed) << "every bad file has one expected path";
  EXPECT_GE(files.size(), 15u);
  for (const auto& [name, path] : expected.items()) {
    SCOPED_TRACE(name);
    try {
      load_scene(dir / name);
      ADD_FAILURE() << "loaded without error";
    } catch (const SceneError& e) {
      EXPECT_EQ(e.json_path(), path.get<std::string>()) << e.what();
      EXPECT_EQ(e.file(), (dir / name).string());
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
  }
}

class SceneFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("impulse_scene_test_" + std::to_string(std::random_device{}()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(SceneFiles, SaveThenLoad) {
  const Scene scene = parse_scene(k_rich_scene);
  const fs::path path = dir_ / "rich.json";
  save_scene(scene, path);
  EXPECT_EQ(load_scene(path), scene);
  EXPECT_EQ(read_file(path), scene_to_json(scene));
  save_scene(parse_scene(k_base_scene), path);  // replaces the file
  EXPECT_EQ(load_scene(path), parse_scene(k_base_scene));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1)
      << "no temporary file is left";
}

TEST_F(SceneFiles, SaveToAnUnwritablePlaceThrows) {
  EXPECT_THROW(save_scene(Scene{}, dir_ / "missing" / "scene.json"), Error);
  EXPECT_THROW(save_scene(Scene{}, dir_), Error);  // a directory
}

TEST_F(SceneFiles, LoadingWhatIsNoFileThrowsSceneErrorAtTheDocument) {
  for (const fs::path& path : {dir_ / "missing.json", dir_}) {
    try {
      load_scene(path);
      ADD_FAILURE() << path;
    } catch (const SceneError& e) {
      EXPECT_EQ(e.json_path(), "");
      EXPECT_EQ(e.file(), path.string());
    }
  }
}

TEST(SceneBuildWorld, CreatesBodiesInFileOrder) {
  Scene scene = load_scene(k_data_dir / "contract_example.json");
  scene.joints.clear();
  const World world = build_world(scene);
  EXPECT_EQ(world.settings(), scene.settings);
  const std::vector<BodyId> ids = world.bodies();
  ASSERT_EQ(ids.size(), 3u);
  EXPECT_EQ(world.name(ids[0]), "ground");
  EXPECT_EQ(world.name(ids[1]), "a");
  EXPECT_EQ(world.name(ids[2]), "b");
  EXPECT_EQ(world.position(ids[2]), Vec3(0, 2, 0));
}

TEST(SceneBuildWorld, WhatTheWorldRefusesIsAtTheBodyOrJoint) {
  Scene scene = load_scene(k_data_dir / "contract_example.json");
  const auto path_of = [](const Scene& s) {
    try {
      build_world(s, "scene.json");
    } catch (const SceneError& e) {
      EXPECT_EQ(e.file(), "scene.json");
      return e.json_path();
    }
    return std::string("no error");
  };
  EXPECT_EQ(path_of(scene), "no error");
  Scene nothing_moves = scene;  // a joint between two static bodies
  nothing_moves.bodies[1].type = nothing_moves.bodies[2].type = BodyType::static_body;
  EXPECT_EQ(path_of(nothing_moves), "/joints/0");
  Scene unknown_body = scene;
  unknown_body.joints[0].body_b = "nobody";
  EXPECT_EQ(path_of(unknown_body), "/joints/0/body_b");
  scene.joints.clear();
  Scene duplicate = scene;
  duplicate.bodies[2].name = "a";
  EXPECT_EQ(path_of(duplicate), "/bodies/2");
  Scene bad_body = scene;
  bad_body.bodies[1].shapes = {ShapeSettings{Sphere{-1}, Transform{}}};
  EXPECT_EQ(path_of(bad_body), "/bodies/1");
  Scene bad_settings = scene;
  bad_settings.settings.solver.iterations = 0;
  EXPECT_EQ(path_of(bad_settings), "/solver/iterations");
}

}  // namespace
}  // namespace impulse
