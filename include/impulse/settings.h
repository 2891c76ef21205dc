#pragma once
// World and solver settings, with the defaults of the scene contract.

#include <impulse/math.h>

#include <cstdint>
#include <optional>
#include <string_view>

namespace impulse {

enum class SolverType : std::uint8_t { pgs, global_dense, global_sparse, jacobi, block, pivoting };
/// How contacts resist sliding (docs/solvers.md, "Friction models: box and cone" and "Friction
/// model: patch"): coulomb, two tangent rows
/// per contact point, each within mu times the point's normal impulse (a box round the cone);
/// cone, the same pair clamped to the disc; constant, fixed bounds from the bodies' weight
/// (seed 001); patch, per manifold two tangent rows at the points' centre and a twist row about
/// the normal, bounded by mu times the manifold's total normal impulse (and the twist by that
/// times the points' mean distance from the centre): 3 rows a manifold instead of 2 a point.
enum class FrictionModel : std::uint8_t { coulomb, cone, constant, patch };

/// The scene format's spelling of a solver type ("pgs", "global_dense", ...).
const char* solver_type_name(SolverType type);
std::optional<SolverType> solver_type_from_name(std::string_view name);
const char* friction_model_name(FrictionModel model);
std::optional<FrictionModel> friction_model_from_name(std::string_view name);

struct SolverSettings {
  SolverType type = SolverType::pgs;
  int iterations = 10;         ///< iteration budget per step, >= 1
  Real baumgarte = Real(0.2);  ///< fraction of position error fed back per step, [0, 1]
  Real slop = Real(0.005);     ///< m of penetration allowed without correction, >= 0
  bool warm_start = true;
  FrictionModel friction_model = FrictionModel::coulomb;
  Real sor = 1;          ///< successive over-relaxation factor, (0, 2)
  Real tolerance = 0;    ///< stop early under this relative residual; 0: fixed count
  bool shuffle = false;  ///< visit rows in a seeded random order
  /// Measure the residual after every iteration, and at the warm start, even at a fixed count
  /// (for plots and traces; it costs about an iteration's time each). Results do not change.
  bool record_residuals = false;
  /// Measure SolveStats' final figures (residual, complementarity error, largest impulse) after
  /// the last iteration at a fixed count: a pass over every row, about an iteration's time (4-5%
  /// of a step), for a figure only diagnostics read, so off unless asked for. A tolerance and
  /// record_residuals measure whatever this says. Not in scene files.
  bool measure_residuals = false;
  /// m/s, cap on the Baumgarte push-out speed of a contact; also what pgs and block let a
  /// mass-ratio island's exact solve add: at most its moving mass's kinetic energy at this speed
  Real max_push_speed = 3;
  /// rad/s, cap on the Baumgarte push-back speed of a passed angular joint limit (a body set far
  /// past it, a six_dof's twist back from its singular swing: docs/joints.md)
  Real max_angular_push_speed = 3;
  Real restitution_threshold = 1;  ///< m/s, slower approaches do not bounce
  /// Joint drift: 0 feeds the position error back through the Baumgarte bias; n > 0 instead runs
  /// n passes of nonlinear Gauss-Seidel on the joints' position errors after the positions are
  /// integrated (seed 002's Rectify), which adds no velocity.
  int position_iterations = 0;
  /// Constraint force mixing of rigid joint rows under Baumgarte, relative to each row's
  /// J M^-1 J^T: a joint yields by this fraction, which keeps row-by-row solvers from pumping
  /// energy into long chains (docs/joints.md); 0 for none. Unused when position_iterations > 0,
  /// and by pgs and pivoting, which solve joints' equality rows exactly.
  Real joint_softness = Real(0.01);
  /// Adds each joint's geometric stiffness (the last step's load at its anchor, turning with the
  /// body) to the inertia the step's solve sees of the bodies it loads heavily: a chain of light
  /// links under a heavy weight stays joined instead of its links spinning up (docs/joints.md).
  /// On lightly loaded bodies it fades quadratically (a pendulum's period moves by 4e-5).
  bool geometric_stiffness = true;
  /// Iterations of a second solve after the positions move, with contacts' and passed limits'
  /// position-correcting bias (Baumgarte's push-out) dropped and the first solve's impulses as its
  /// start: the correction moves the bodies but leaves them no velocity (Box2D v3's relax step, in
  /// effect split impulses), so a stack gains no energy from its own correction. Joints' other
  /// rows keep their bias (their drift is joint_softness's and position_iterations' business).
  /// 0: Baumgarte's velocity stays, as in seeds 000 and 001.
  int relax_iterations = 2;
  /// World::step(dt) runs the whole pipeline (collision included) this many times over dt / n:
  /// stiffer joints and stacks, larger mass ratios and faster bodies at n times the cost, as
  /// Bullet's fixed sub-steps. Contacts and joints carry their impulses from one sub-step to the
  /// next as from step to step. >= 1.
  int substeps = 1;
  friend bool operator==(const SolverSettings&, const SolverSettings&) = default;
};

struct WorldSettings {
  Vec3 gravity{0, Real(-9.81), 0};   ///< m/s^2
  Real timestep = Real(1.0 / 60.0);  ///< s, the step the fixed-step helper and the command use
  bool sleeping = true;              ///< whether resting islands may sleep
  bool gyroscopic = false;  ///< integrate the w x I w torque (implicitly) that seed 001 omits
  /// m: shapes closer than this (plus how far their points may move in a step, by their bodies'
  /// velocities and turns) get speculative contacts
  Real speculative_margin = Real(0.02);
  /// Rebuild a touching pair's contacts from its last narrowphase's, moved with the shapes, while
  /// the shapes have moved less than 0.5 mm and 0.5 degrees against each other since (Jolt's body
  /// pair cache): most of a resting stack's collision time. False: every pair's narrowphase runs
  /// every step.
  bool reuse_contacts = true;
  /// zero: 3D; else every dynamic body moves only in the plane through its start perpendicular to
  /// this (unit) normal and turns only about it (seed 000's 2D demos). Length 1 within 1e-3;
  /// normalised when set. Static and kinematic bodies are not held to it.
  Vec3 plane_normal;
  /// m/s and rad/s: every moving body's speed is held to these before forces act and before it
  /// moves. Far above what a scene means, they keep an absurd but finite velocity (a spin of
  /// 1e19 rad/s) from overflowing the state in one step. > 0.
  Real max_linear_speed = Real(1e4);
  Real max_angular_speed = Real(1e4);
  SolverSettings solver;
  friend bool operator==(const WorldSettings&, const WorldSettings&) = default;
};

}  // namespace impulse
