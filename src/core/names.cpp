// The scene format's spelling of every enumeration, in one place for the loader, saver and command.

#include <impulse/body.h>
#include <impulse/diagnostics.h>
#include <impulse/joint.h>
#include <impulse/settings.h>
#include <impulse/shape.h>

#include <array>
#include <type_traits>
#include <utility>

namespace impulse {
namespace {

template <typename Enum, std::size_t N>
using NameTable = std::array<std::pair<Enum, const char*>, N>;

constexpr NameTable<SolverType, 6> k_solver_names{{{SolverType::pgs, "pgs"},
                                                   {SolverType::global_dense, "global_dense"},
                                                   {SolverType::global_sparse, "global_sparse"},
                                                   {SolverType::jacobi, "jacobi"},
                                                   {SolverType::block, "block"},
                                                   {SolverType::pivoting, "pivoting"}}};
constexpr NameTable<FrictionModel, 4> k_friction_names{{{FrictionModel::coulomb, "coulomb"},
                                                        {FrictionModel::cone, "cone"},
                                                        {FrictionModel::constant, "constant"},
                                                        {FrictionModel::patch, "patch"}}};
constexpr NameTable<JointType, 8> k_joint_names{{{JointType::ball, "ball"},
                                                 {JointType::nail, "nail"},
                                                 {JointType::distance, "distance"},
                                                 {JointType::fixed, "fixed"},
                                                 {JointType::hinge, "hinge"},
                                                 {JointType::prismatic, "prismatic"},
                                                 {JointType::cone_twist, "cone_twist"},
                                                 {JointType::six_dof, "six_dof"}}};
constexpr NameTable<DiagnosticKind, 5> k_diagnostic_names{
    {{DiagnosticKind::non_finite_body, "non_finite_body"},
     {DiagnosticKind::velocity_clamped, "velocity_clamped"},
     {DiagnosticKind::degenerate_row, "degenerate_row"},
     {DiagnosticKind::joint_removed, "joint_removed"},
     {DiagnosticKind::solve_refused, "solve_refused"}}};
constexpr NameTable<StepStage, 4> k_stage_names{{{StepStage::velocities, "velocities"},
                                                 {StepStage::solve, "solve"},
                                                 {StepStage::positions, "positions"},
                                                 {StepStage::api, "api"}}};
constexpr NameTable<BodyType, 3> k_body_names{{{BodyType::static_body, "static"},
                                               {BodyType::kinematic_body, "kinematic"},
                                               {BodyType::dynamic_body, "dynamic"}}};

template <typename Enum, std::size_t N>
const char* name_of(const NameTable<Enum, N>& table, Enum value) {
  for (const auto& [e, name] : table) {
    if (e == value) return name;
  }
  return "unknown";
}

template <typename Enum, std::size_t N>
std::optional<Enum> value_of(const NameTable<Enum, N>& table, std::string_view name) {
  for (const auto& [e, n] : table) {
    if (name == n) return e;
  }
  return std::nullopt;
}

}  // namespace

const char* solver_type_name(SolverType type) {
  return name_of(k_solver_names, type);
}
std::optional<SolverType> solver_type_from_name(std::string_view name) {
  return value_of(k_solver_names, name);
}
const char* friction_model_name(FrictionModel model) {
  return name_of(k_friction_names, model);
}
std::optional<FrictionModel> friction_model_from_name(std::string_view name) {
  return value_of(k_friction_names, name);
}
const char* joint_type_name(JointType type) {
  return name_of(k_joint_names, type);
}
std::optional<JointType> joint_type_from_name(std::string_view name) {
  return value_of(k_joint_names, name);
}
const char* body_type_name(BodyType type) {
  return name_of(k_body_names, type);
}
std::optional<BodyType> body_type_from_name(std::string_view name) {
  return value_of(k_body_names, name);
}

const char* diagnostic_kind_name(DiagnosticKind kind) {
  return name_of(k_diagnostic_names, kind);
}
const char* step_stage_name(StepStage stage) {
  return name_of(k_stage_names, stage);
}

const char* shape_type_name(const ShapeGeometry& geometry) {
  constexpr std::array<const char*, std::variant_size_v<ShapeGeometry>> names{
      "sphere", "box", "capsule", "convex_hull", "plane", "mesh"};
  return names[geometry.index()];
}

bool is_static_only(const ShapeGeometry& geometry) {
  return std::holds_alternative<Plane>(geometry) || std::holds_alternative<Mesh>(geometry);
}

}  // namespace impulse
