#pragma once
// The world: bodies, settings and the step. Misuse throws (see error.h) and leaves the world
// unchanged; the step itself never throws and never prints.

#include <impulse/body.h>
#include <impulse/constraint.h>
#include <impulse/diagnostics.h>
#include <impulse/joint.h>
#include <impulse/query.h>
#include <impulse/settings.h>
#include <impulse/stats.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace impulse {

class WorldSnapshot;

/// How a world of more than one thread (World::set_threads) uses them. Either way a step's results
/// are the same bits as on one thread.
enum class ThreadUse : std::uint8_t {
  /// Each step on the threads or on the calling thread alone, whichever the world's recent steps
  /// measured faster, tried again now and then (a team of threads costs more than it gains where
  /// a scene's work is small or handing data to another core is slow: docs/performance.md).
  measured,
  /// Every step on the threads: to measure them, or to test them.
  always,
};

class World {
 public:
  explicit World(const WorldSettings& settings = {});
  World(World&&) noexcept;
  World& operator=(World&&) noexcept;
  World(const World&) = delete;
  World& operator=(const World&) = delete;
  ~World();

  const WorldSettings& settings() const;
  /// Replaces the settings; throws InvalidArgument for out-of-range values.
  void set_settings(const WorldSettings& settings);

  /// Creates a body; throws InvalidArgument (bad values, a duplicate name) or Unsupported.
  BodyId create_body(const BodySettings& settings);
  /// Removes a body; its handle (and copies of it) become stale.
  void remove_body(BodyId id);
  bool is_valid(BodyId id) const;
  /// The body of that name, if any.
  std::optional<BodyId> find_body(std::string_view name) const;
  std::size_t body_count() const;
  /// Handles of every live body in creation order.
  std::vector<BodyId> bodies() const;

  /// Creates a joint (joint.h); anchors and axes are read in world space now. Throws
  /// InvalidArgument (bad values, a body joined to itself, a duplicate name, no dynamic body) or
  /// StaleHandle (a removed body). Wakes the bodies it joins.
  JointId create_joint(const JointSettings& settings);
  /// Removes a joint; its handle goes stale. Removing a body removes its joints.
  void remove_joint(JointId id);
  bool is_valid(JointId id) const;
  std::optional<JointId> find_joint(std::string_view name) const;
  /// Handles of every live joint (broken ones too) in creation order.
  std::vector<JointId> joints() const;
  /// The settings as created (anchors and axes in world space at creation).
  const JointSettings& joint_settings(JointId id) const;
  /// Reaction force and torque, position error, and whether it broke (joint.h).
  const JointState& joint_state(JointId id) const;
  /// Sets or clears a hinge's or prismatic joint's motor (InvalidArgument for other types or bad
  /// values); wakes the bodies.
  void set_joint_motor(JointId id, const std::optional<Motor>& motor);
  /// The joints that broke in the last step.
  const std::vector<JointBreakEvent>& joint_events() const;

  /// Adds a custom constraint whose rows join every solve (see constraint.h).
  ConstraintId add_custom_constraint(CustomConstraint constraint);
  void remove_custom_constraint(ConstraintId id);
  /// The impulses (N s) its rows received in the last step, in the order they were written.
  const std::vector<Real>& custom_constraint_impulses(ConstraintId id) const;

  const std::string& name(BodyId id) const;
  BodyType type(BodyId id) const;
  /// The body origin's pose in the world.
  Transform transform(BodyId id) const;
  Vec3 position(BodyId id) const;
  Quat orientation(BodyId id) const;
  /// The centre of mass in the world.
  Vec3 center_of_mass(BodyId id) const;
  Vec3 linear_velocity(BodyId id) const;
  Vec3 angular_velocity(BodyId id) const;
  /// Mass properties in the body frame (mass 0 for static and kinematic bodies).
  const MassProperties& mass_properties(BodyId id) const;
  /// The world-frame inverse inertia R I^-1 R^T.
  Mat33 inverse_inertia_world(BodyId id) const;
  /// The body's settings as created, with its current pose and velocities.
  BodySettings body_settings(BodyId id) const;

  /// Moves the body (and wakes it). The orientation is normalised unless it is a unit quaternion
  /// to rounding already: set_transform(id, transform(id)) changes nothing.
  void set_transform(BodyId id, const Transform& transform);
  // Velocities, forces and impulses act only on the motion a body allows: a dynamic body of a
  // plane world (WorldSettings::plane_normal) keeps their in-plane and about-the-normal parts; a
  // particle (BodySettings::particle) ignores torques and angular impulses.
  void set_linear_velocity(BodyId id, const Vec3& v);
  /// Throws InvalidArgument for a non-zero w on a particle.
  void set_angular_velocity(BodyId id, const Vec3& w);

  /// A force (N) through the centre of mass, acting during the next step.
  void apply_force(BodyId id, const Vec3& force);
  /// A force (N) at a world point: also a torque about the centre of mass.
  void apply_force_at(BodyId id, const Vec3& force, const Vec3& world_point);
  void apply_torque(BodyId id, const Vec3& torque);
  /// An impulse (N s) through the centre of mass, changing the velocity now.
  void apply_impulse(BodyId id, const Vec3& impulse);
  void apply_impulse_at(BodyId id, const Vec3& impulse, const Vec3& world_point);
  void apply_angular_impulse(BodyId id, const Vec3& angular_impulse);

  /// Whether the body sleeps (dynamics/sleep.h): resting, not integrated, woken by a touch, a
  /// push through this API, or the removal of a neighbour.
  bool is_asleep(BodyId id) const;
  /// Whether a step froze the body because its state stopped being finite (diagnostics.h): it
  /// holds still where it was at the start of that step, others meet it as a static body, and
  /// nothing wakes it but unfreeze.
  bool is_frozen(BodyId id) const;
  /// Lets a frozen body move again (from its frozen pose, at rest; forces applied while it was
  /// frozen are dropped). Does nothing to a body that is not frozen.
  void unfreeze(BodyId id);
  /// What went wrong in the last step (a body frozen, a velocity clamped, a row skipped), and the
  /// joints remove_body removed since: one report each, cleared when the next step starts.
  const std::vector<Diagnostic>& diagnostics() const;

  std::uint64_t user_data(BodyId id) const;
  void set_user_data(BodyId id, std::uint64_t data);

  /// Which bodies this one touches (collision_filter.h).
  const CollisionFilter& collision_filter(BodyId id) const;
  /// Replaces the filter; contacts it forbids go in the next step (they push until then). Wakes
  /// the body and what touches it.
  void set_collision_filter(BodyId id, const CollisionFilter& filter);

  /// The threads a step may run on (set_thread_use): the caller's and threads - 1 workers (1 to
  /// 256, else InvalidArgument). Results are bit-identical for any count.
  void set_threads(int threads);
  int threads() const;
  /// Whether every step runs on those threads or only those that measure faster on them
  /// (ThreadUse::measured, the default). StepStats::threads tells which a step did.
  void set_thread_use(ThreadUse use);
  ThreadUse thread_use() const;

  /// Advances the world by dt seconds (dt > 0 and finite, else InvalidArgument), in
  /// SolverSettings::substeps passes of dt / n. Custom constraints are asked for rows each pass; if
  /// one throws, the passes before it stay done (each pass leaves the world whole).
  void step(Real dt);
  const StepStats& last_step_stats() const;
  /// Simulated time so far, s.
  double time() const;

  // Queries see every body, or with a filter only those a body with that filter would touch
  // (filters_collide: a ray that passes through the player's own ragdoll, say).

  /// The closest hit of the segment origin + t * direction, t in [0, 1], on any body's shapes.
  std::optional<RaycastHit> raycast(const Vec3& origin, const Vec3& direction,
                                    const std::optional<CollisionFilter>& filter = {}) const;
  /// Every body shape the segment enters, the nearest first.
  std::vector<RaycastHit> raycast_all(const Vec3& origin, const Vec3& direction,
                                      const std::optional<CollisionFilter>& filter = {}) const;
  /// Bodies with a shape whose bounding box overlaps box, each once, by handle index.
  std::vector<BodyId> overlap_aabb(const AABB& box,
                                   const std::optional<CollisionFilter>& filter = {}) const;
  /// Bodies with a shape that overlaps the sphere (touching counts), each once, by handle index.
  std::vector<BodyId> overlap_sphere(const Vec3& center, Real radius,
                                     const std::optional<CollisionFilter>& filter = {}) const;
  /// Bodies with a shape that overlaps the box at pose (touching counts), each once, by index.
  std::vector<BodyId> overlap_box(const Box& box, const Transform& pose,
                                  const std::optional<CollisionFilter>& filter = {}) const;

  /// The contact points of the last step.
  std::vector<DebugContact> debug_contacts() const;
  /// The broadphase tree's boxes, leaves (the shapes' fat boxes) and internal nodes.
  std::vector<DebugTreeBox> debug_tree() const;

  /// Kinetic energy: sum of m v^2 / 2 + w . I w / 2 over dynamic bodies, J.
  double kinetic_energy() const;
  /// Potential energy in gravity, -m g . x over dynamic bodies (zero at the origin), J.
  double potential_energy() const;
  /// Total angular momentum about the origin, sum of I w + x m v, kg m^2/s.
  Vec3 angular_momentum() const;
  /// A 64-bit hash of every body's position, orientation and velocities, bit for bit.
  std::uint64_t state_hash() const;

  /// A copy of the whole state: settings, bodies, joints, custom constraints (their functions
  /// copied), the contact cache with its warm-start impulses, sleeping, time. A world restored
  /// from it steps on bit-identically to the world it was taken from.
  WorldSnapshot snapshot() const;
  /// Puts this world in the snapshot's state (taken from this world or any other); handles of
  /// the snapshot's world are valid here. The world keeps its own thread count. Throws
  /// InvalidArgument for an empty snapshot; the world is then unchanged.
  void restore(const WorldSnapshot& snapshot);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

/// A world's state, kept aside (World::snapshot); cheap to copy (copies share it).
class WorldSnapshot {
 public:
  bool empty() const { return !state_; }
  /// The simulated time of the world when it was taken, s.
  double time() const;

 private:
  friend class World;
  std::shared_ptr<const World::Impl> state_;
};

/// Runs fixed steps of the world's timestep for variable frame times. Keeps the remainder so
/// that no time is lost; alpha() says how far the next step is, for interpolation.
class FixedStepper {
 public:
  /// max_steps bounds the catch-up work per frame (the "spiral of death").
  explicit FixedStepper(int max_steps_per_frame = 8) : max_steps_(max_steps_per_frame) {}
  /// Steps the world for frame_time seconds; returns the number of steps taken.
  int advance(World& world, double frame_time);
  /// The fraction of a step left in the accumulator, in [0, 1).
  double alpha(const World& world) const;

 private:
  int max_steps_;
  double accumulator_ = 0;
};

}  // namespace impulse
