// World: body lifetime, the API and the step pipeline.

#include "dynamics/world_impl.h"

#include <impulse/error.h>

#include "dynamics/body_preparation.h"
#include "dynamics/custom_constraints.h"
#include "dynamics/guards.h"
#include "dynamics/integrator.h"
#include "dynamics/sleep.h"
#include "dynamics/validation.h"
#include "dynamics/world_contacts.h"
#include "dynamics/world_joints.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>

namespace impulse {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int k_max_threads = 256;

double milliseconds_between(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration<double, std::milli>(end - start).count();
}

double milliseconds_since(Clock::time_point start) {
  return milliseconds_between(start, Clock::now());
}

void require_finite(const Vec3& v, const char* what) {
  if (!is_finite(v)) throw InvalidArgument(std::string(what) + " must hold finite numbers");
}

// FNV-1a over the bits of each value: stable across runs and platforms of the same float format.
class BitHash {
 public:
  void add(Real value) {
    auto bits =
        std::bit_cast<std::conditional_t<sizeof(Real) == 8, std::uint64_t, std::uint32_t>>(value);
    for (std::size_t i = 0; i < sizeof(Real); ++i, bits >>= 8) {
      hash_ = (hash_ ^ (bits & 0xffu)) * 0x100000001b3ull;
    }
  }
  void add(const Vec3& v) {
    add(v.x);
    add(v.y);
    add(v.z);
  }
  void add(const Quat& q) {
    add(q.vec());
    add(q.w);
  }
  std::uint64_t value() const { return hash_; }

 private:
  std::uint64_t hash_ = 0xcbf29ce484222325ull;
};

// Holds a dynamic body to the world's plane, if any (WorldSettings::plane_normal): the plane
// from where it is now, its inverse inertia about the normal, its velocities projected.
void hold_to_plane(World::Impl& w, std::uint32_t slot) {
  BodyMotion& m = w.motions[slot];
  if (m.type != BodyType::dynamic_body) return;
  m.plane_normal = w.settings.plane_normal;
  m.refresh_world_inertia();
  BodyVelocity& v = w.velocities[slot];
  v.linear = m.allowed_linear(v.linear);
  v.angular = m.allowed_angular(v.angular);
}

}  // namespace

std::uint32_t World::Impl::slot(BodyId id) const {
  if (id.index >= records.size() || !records[id.index].alive ||
      records[id.index].generation != id.generation)
    throw StaleHandle("body handle " + std::to_string(id.index) + ":" +
                      std::to_string(id.generation) + " does not name a live body");
  return id.index;
}

World::World(const WorldSettings& settings) : impl_(std::make_unique<Impl>()) {
  set_settings(settings);
  // The world body: static, zero mass, zero velocity, never alive to the API.
  impl_->records.emplace_back();
  impl_->motions.emplace_back().type = BodyType::static_body;
  impl_->velocities.emplace_back();
  impl_->sleep.emplace_back();
  impl_->materials.push_back(material_of(impl_->records.back().settings));
  impl_->filters.emplace_back();
}
World::World(World&&) noexcept = default;
World& World::operator=(World&&) noexcept = default;
World::~World() = default;

const WorldSettings& World::settings() const {
  return impl_->settings;
}

void World::set_settings(const WorldSettings& settings) {
  throw_if_problem(find_problem(settings), "world settings");
  if (impl_->solver->type() != settings.solver.type)
    impl_->solver = SolverInstance(settings.solver.type);
  const Vec3 old_plane = impl_->settings.plane_normal;
  impl_->settings = settings;
  // The world's own normal given back (settings() changed and set) stays as it is: normalising
  // it again may move its last bit, and every body with it.
  if (settings.plane_normal != Vec3::zero() && settings.plane_normal != old_plane)
    impl_->settings.plane_normal = normalize(settings.plane_normal);
  if (impl_->settings.plane_normal != old_plane) {
    // Bodies take the new plane where they are now.
    for (const std::uint32_t slot : impl_->live_slots)
      hold_to_plane(*impl_, slot);
  }
  if (!settings.sleeping) {
    for (const std::uint32_t slot : impl_->live_slots)
      wake_body(*impl_, slot);
  }
}

BodyId World::create_body(const BodySettings& settings) {
  throw_if_problem(find_problem(settings), "body settings");
  Impl& w = *impl_;
  if (!settings.name.empty() && w.names.contains(settings.name))
    throw InvalidArgument("body settings: /name: a body named '" + settings.name +
                          "' exists already");

  // Everything that can throw happens before the world changes.
  PreparedBody prepared = prepare_body(settings);
  throw_if_problem(prepared.problem, "body settings");
  const BodyVelocity velocity =
      settings.type == BodyType::static_body
          ? BodyVelocity{}
          : BodyVelocity{settings.linear_velocity, settings.angular_velocity};

  std::uint32_t index;
  if (w.free_slots.empty()) {
    index = static_cast<std::uint32_t>(w.records.size());
    w.records.emplace_back();
    w.motions.emplace_back();
    w.velocities.emplace_back();
    w.sleep.emplace_back();
    w.materials.emplace_back();
    w.filters.emplace_back();
  } else {
    index = w.free_slots.back();
    w.free_slots.pop_back();
  }
  BodyRecord& record = w.records[index];
  record.alive = true;
  record.settings = settings;
  w.materials[index] = material_of(settings);
  if (settings.restitution > 0) ++w.bouncy_bodies;
  w.filters[index] = settings.collision_filter;
  if (settings.collision_filter != CollisionFilter{}) ++w.filtered_bodies;
  record.mass = prepared.mass;
  w.motions[index] = prepared.motion;
  w.velocities[index] = velocity;
  hold_to_plane(w, index);
  w.sleep[index] = {};
  w.live_slots.push_back(index);
  if (!settings.name.empty()) w.names.emplace(settings.name, index);
  add_body_shapes(w, index, std::move(prepared.cooked));
  return {index, record.generation};
}

void World::remove_body(BodyId id) {
  Impl& w = *impl_;
  const std::uint32_t index = w.slot(id);
  BodyRecord& record = w.records[index];
  if (!record.settings.name.empty()) w.names.erase(record.settings.name);
  for (const ContactManifold& m : w.contacts.manifolds()) {  // its neighbours lose a support
    if (m.body_a == index) wake_body(w, m.body_b);
    if (m.body_b == index) wake_body(w, m.body_a);
  }
  remove_body_joints(w, index);  // reported in diagnostics()
  remove_body_shapes(w, index);
  record.alive = false;
  ++record.generation;
  if (record.settings.restitution > 0) --w.bouncy_bodies;
  if (record.settings.collision_filter != CollisionFilter{}) --w.filtered_bodies;
  record.settings = {};
  w.filters[index] = {};
  w.materials[index] = material_of(record.settings);
  w.motions[index] = {};
  w.velocities[index] = {};
  w.sleep[index] = {};
  w.live_slots.erase(std::find(w.live_slots.begin(), w.live_slots.end(), index));
  w.free_slots.push_back(index);
}

bool World::is_valid(BodyId id) const {
  return id.index < impl_->records.size() && impl_->records[id.index].alive &&
         impl_->records[id.index].generation == id.generation;
}

std::optional<BodyId> World::find_body(std::string_view name) const {
  const auto it = impl_->names.find(name);
  if (it == impl_->names.end()) return std::nullopt;
  return BodyId{it->second, impl_->records[it->second].generation};
}

std::size_t World::body_count() const {
  return impl_->live_slots.size();
}

std::vector<BodyId> World::bodies() const {
  std::vector<BodyId> ids;
  ids.reserve(impl_->live_slots.size());
  for (const std::uint32_t i : impl_->live_slots)
    ids.push_back({i, impl_->records[i].generation});
  return ids;
}

JointId World::create_joint(const JointSettings& settings) {
  return add_joint(*impl_, settings);
}

void World::remove_joint(JointId id) {
  impl_->joint(id);  // throws for a stale handle
  impulse::remove_joint(*impl_, id.index);
}

bool World::is_valid(JointId id) const {
  return id.index < impl_->joints.size() && impl_->joints[id.index].alive &&
         impl_->joints[id.index].generation == id.generation;
}

std::optional<JointId> World::find_joint(std::string_view name) const {
  const auto it = impl_->joint_names.find(name);
  if (it == impl_->joint_names.end()) return std::nullopt;
  return JointId{it->second, impl_->joints[it->second].generation};
}

std::vector<JointId> World::joints() const {
  std::vector<JointId> ids;
  ids.reserve(impl_->live_joints.size());
  for (const std::uint32_t j : impl_->live_joints)
    ids.push_back({j, impl_->joints[j].generation});
  return ids;
}

const JointSettings& World::joint_settings(JointId id) const {
  return impl_->joint(id).model.settings;
}

const JointState& World::joint_state(JointId id) const {
  return impl_->joint(id).state;
}

void World::set_joint_motor(JointId id, const std::optional<Motor>& motor) {
  Impl::JointRecord& joint = impl_->joint(id);
  JointSettings changed = joint.model.settings;
  if (changed.type != JointType::hinge && changed.type != JointType::prismatic)
    throw InvalidArgument(std::string("set_joint_motor: a ") + joint_type_name(changed.type) +
                          " joint has no motor (hinge and prismatic joints do)");
  changed.motor = motor;
  throw_if_problem(find_problem(changed), "set_joint_motor");
  joint.model.settings.motor = motor;
  joint.measured.clear();  // its rows change with the motor
  wake_body(*impl_, joint.body_a);
  wake_body(*impl_, joint.body_b);
}

const std::vector<JointBreakEvent>& World::joint_events() const {
  return impl_->joint_events;
}

World::Impl::CustomConstraintRecord& World::Impl::custom(ConstraintId id) {
  return const_cast<CustomConstraintRecord&>(std::as_const(*this).custom(id));
}

const World::Impl::CustomConstraintRecord& World::Impl::custom(ConstraintId id) const {
  if (id.index >= custom_constraints.size() || !custom_constraints[id.index].alive ||
      custom_constraints[id.index].generation != id.generation)
    throw StaleHandle("constraint handle " + std::to_string(id.index) + ":" +
                      std::to_string(id.generation) + " does not name a live custom constraint");
  return custom_constraints[id.index];
}

ConstraintId World::add_custom_constraint(CustomConstraint constraint) {
  if (!constraint) throw InvalidArgument("custom constraint: the function is empty");
  auto& list = impl_->custom_constraints;
  auto it = std::find_if(list.begin(), list.end(), [](const auto& c) { return !c.alive; });
  if (it == list.end()) it = list.emplace(list.end());
  it->build = std::move(constraint);
  it->alive = true;
  it->rows.clear();
  it->impulses.clear();
  return {std::uint32_t(it - list.begin()), it->generation};
}

void World::remove_custom_constraint(ConstraintId id) {
  Impl::CustomConstraintRecord& record = impl_->custom(id);
  record = {};
  record.generation = id.generation + 1;
}

const std::vector<Real>& World::custom_constraint_impulses(ConstraintId id) const {
  return impl_->custom(id).impulses;
}

const std::string& World::name(BodyId id) const {
  return impl_->records[impl_->slot(id)].settings.name;
}
BodyType World::type(BodyId id) const {
  return impl_->motions[impl_->slot(id)].type;
}
Transform World::transform(BodyId id) const {
  return impl_->motions[impl_->slot(id)].origin_transform();
}
Vec3 World::position(BodyId id) const {
  return transform(id).position;
}
Quat World::orientation(BodyId id) const {
  return impl_->motions[impl_->slot(id)].orientation;
}
Vec3 World::center_of_mass(BodyId id) const {
  return impl_->motions[impl_->slot(id)].center;
}
Vec3 World::linear_velocity(BodyId id) const {
  return impl_->velocities[impl_->slot(id)].linear;
}
Vec3 World::angular_velocity(BodyId id) const {
  return impl_->velocities[impl_->slot(id)].angular;
}
const MassProperties& World::mass_properties(BodyId id) const {
  return impl_->records[impl_->slot(id)].mass;
}
Mat33 World::inverse_inertia_world(BodyId id) const {
  return impl_->motions[impl_->slot(id)].inv_inertia_world;
}

BodySettings World::body_settings(BodyId id) const {
  const std::uint32_t i = impl_->slot(id);
  BodySettings s = impl_->records[i].settings;
  const Transform t = impl_->motions[i].origin_transform();
  s.position = t.position;
  s.orientation = t.orientation;
  s.linear_velocity = impl_->velocities[i].linear;
  s.angular_velocity = impl_->velocities[i].angular;
  return s;
}

void World::set_transform(BodyId id, const Transform& transform) {
  const std::uint32_t i = impl_->slot(id);
  require_finite(transform.position, "position");
  if (!is_finite(transform.orientation) || length(transform.orientation) < Real(1e-6))
    throw InvalidArgument("orientation must be a finite quaternion of non-zero length");
  BodyMotion& m = impl_->motions[i];
  const bool moved = !(transform == this->transform(id));
  // A unit quaternion within rounding (what transform() returns) is kept as given: setting a
  // body's own transform back changes nothing, to the bit.
  const Real unit_error = std::abs(length(transform.orientation) - 1);
  m.orientation = unit_error <= 4 * std::numeric_limits<Real>::epsilon()
                      ? transform.orientation
                      : normalize(transform.orientation);
  m.center = transform.position + rotate(m.orientation, m.local_center);
  m.refresh_world_inertia();
  move_body_shapes(*impl_, i);
  if (moved) {
    for (const std::uint32_t shape : impl_->records[i].shapes)
      impl_->contacts.mark_moved_by_hand(shape);
  }
  wake_body(*impl_, i);
}

void World::set_linear_velocity(BodyId id, const Vec3& v) {
  const std::uint32_t i = impl_->slot(id);
  require_finite(v, "linear velocity");
  const BodyMotion& m = impl_->motions[i];
  if (m.type != BodyType::static_body) impl_->velocities[i].linear = m.allowed_linear(v);
  wake_body(*impl_, i);
}

void World::set_angular_velocity(BodyId id, const Vec3& w) {
  const std::uint32_t i = impl_->slot(id);
  require_finite(w, "angular velocity");
  if (impl_->records[i].settings.particle && w != Vec3::zero())
    throw InvalidArgument("angular velocity: a particle never rotates; only zero is accepted");
  const BodyMotion& m = impl_->motions[i];
  if (m.type != BodyType::static_body) impl_->velocities[i].angular = m.allowed_angular(w);
  wake_body(*impl_, i);
}

void World::apply_force(BodyId id, const Vec3& force) {
  const std::uint32_t i = impl_->slot(id);
  require_finite(force, "force");
  impl_->motions[i].force += force;
  wake_body(*impl_, i);
}

void World::apply_force_at(BodyId id, const Vec3& force, const Vec3& world_point) {
  const std::uint32_t i = impl_->slot(id);
  require_finite(force, "force");
  require_finite(world_point, "point");
  BodyMotion& m = impl_->motions[i];
  m.force += force;
  m.torque += cross(world_point - m.center, force);
  wake_body(*impl_, i);
}

void World::apply_torque(BodyId id, const Vec3& torque) {
  const std::uint32_t i = impl_->slot(id);
  require_finite(torque, "torque");
  impl_->motions[i].torque += torque;
  wake_body(*impl_, i);
}

void World::apply_impulse(BodyId id, const Vec3& impulse) {
  const std::uint32_t i = impl_->slot(id);
  require_finite(impulse, "impulse");
  const BodyMotion& m = impl_->motions[i];
  impl_->velocities[i].linear += m.allowed_linear(m.inv_mass * impulse);
  wake_body(*impl_, i);
}

void World::apply_impulse_at(BodyId id, const Vec3& impulse, const Vec3& world_point) {
  const std::uint32_t i = impl_->slot(id);
  require_finite(impulse, "impulse");
  require_finite(world_point, "point");
  const BodyMotion& m = impl_->motions[i];
  BodyVelocity& v = impl_->velocities[i];
  v.linear += m.allowed_linear(m.inv_mass * impulse);
  v.angular += m.inv_inertia_world * cross(world_point - m.center, impulse);
  wake_body(*impl_, i);
}

void World::apply_angular_impulse(BodyId id, const Vec3& angular_impulse) {
  const std::uint32_t i = impl_->slot(id);
  require_finite(angular_impulse, "angular impulse");
  impl_->velocities[i].angular += impl_->motions[i].inv_inertia_world * angular_impulse;
  wake_body(*impl_, i);
}

bool World::is_asleep(BodyId id) const {
  const BodySleep& s = impl_->sleep[impl_->slot(id)];
  return s.asleep && !s.frozen;
}

bool World::is_frozen(BodyId id) const {
  return impl_->sleep[impl_->slot(id)].frozen;
}

void World::unfreeze(BodyId id) {
  const std::uint32_t i = impl_->slot(id);
  if (!impl_->sleep[i].frozen) return;
  impl_->sleep[i] = {};
  impl_->motions[i].force = Vec3::zero();
  impl_->motions[i].torque = Vec3::zero();
}

const std::vector<Diagnostic>& World::diagnostics() const {
  return impl_->diagnostics;
}

std::uint64_t World::user_data(BodyId id) const {
  return impl_->records[impl_->slot(id)].settings.user_data;
}
void World::set_user_data(BodyId id, std::uint64_t data) {
  impl_->records[impl_->slot(id)].settings.user_data = data;
}

const CollisionFilter& World::collision_filter(BodyId id) const {
  return impl_->filters[impl_->slot(id)];
}
void World::set_collision_filter(BodyId id, const CollisionFilter& filter) {
  Impl& w = *impl_;
  const std::uint32_t index = w.slot(id);
  CollisionFilter& held = w.records[index].settings.collision_filter;
  w.filtered_bodies += std::size_t(filter != CollisionFilter{});
  w.filtered_bodies -= std::size_t(held != CollisionFilter{});
  held = w.filters[index] = filter;
  // A pair asleep keeps its contacts without asking: its island awake, the filter is asked.
  wake_body(w, index);
}

namespace {

// Moves the bodies among `slots` that an impact struck after the step's start back by their lag,
// as moving them with -lag would (impact_pass.h; a turn after a turn, the same to second order):
// integrate_positions moved them with all of its velocity change.
void move_back_by_lags(std::span<const std::uint32_t> slots, std::span<BodyMotion> motions,
                       std::span<const BodyVelocity> lags, Real dt) {
  for (const std::uint32_t i : slots) {
    const BodyVelocity& lag = lags[i];
    if (lag.linear == Vec3::zero() && lag.angular == Vec3::zero()) continue;
    BodyMotion& m = motions[i];
    m.center -= dt * lag.linear;
    m.orientation = integrate(m.orientation, -lag.angular, dt);
    m.refresh_world_inertia();
  }
}

// Holds the awake bodies to the speed limits and moves them (clamp_and_report, then
// integrate_positions): one pass over them on the pool; after a solve shared by threads, from
// fewer bodies than the other passes (k_parallel_moves: those threads hold the velocities).
void clamp_and_move(World::Impl& w, StepStage stage, Real dt) {
  w.for_awake_chunks(
      [&](std::size_t chunk, std::span<const std::uint32_t> slots) {
        clamp_chunk(w, chunk, slots);
        integrate_positions(slots, w.motions, w.velocities, dt);
        if (w.bouncy_bodies > 0) {
          // Slowed to the speed limits, a body moves with what is left from where it was.
          for (const std::uint32_t slot : w.clamped_by_chunk[chunk])
            w.impact_lags[slot] = BodyVelocity{};
          move_back_by_lags(slots, w.motions, w.impact_lags, dt);
        }
      },
      w.stats.solve.threads > 1 ? World::Impl::k_parallel_moves : World::Impl::k_parallel_bodies);
  report_clamped(w, stage);
}

// What the step's solves work on: the bodies' velocities and solver masses, the step's pool, and
// the speed gravity gives a body over dt.
SolverBodies solver_bodies(World::Impl& w, Real dt) {
  return {w.velocities, w.solver_masses, &w.step_pool(), length(w.settings.gravity) * dt};
}

// The relax solve's settings: the first solve's impulses as its start, a fixed count.
SolverSettings relax_settings(const SolverSettings& solve) {
  SolverSettings settings = solve;
  settings.warm_start = true;  // from the first solve's impulses
  settings.iterations = settings.relax_iterations;
  settings.record_residuals = false;
  settings.measure_residuals = false;  // its figures are nobody's: a fixed count
  settings.tolerance = 0;
  return settings;
}

// A refused solve applied nothing: reported, its rows are solved by the fallback (pgs) with the
// same settings, its stats replacing the refused solve's.
void solve_refused_rows(World::Impl& w, const SolverSettings& settings, SolveStats& stats,
                        Real dt) {
  report_refused_solve(w, stats);
  w.fallback_solver->solve(w.rows, solver_bodies(w, dt), settings, stats);
}

// Relax (SolverSettings::relax_iterations): the positions move with the corrected velocities, then
// the rows are solved again without the contacts' and passed limits' Baumgarte bias
// (position_bias), from the first solve's impulses.
// It continues from the velocities the solve left where the solver can and nothing has changed
// them since (a speed limit's clamp, or a guard's freeze: solve_untouched false); else it starts
// again from the free velocities, kept before the solve, and warm starts.
void move_and_relax(World::Impl& w, Solver& solver, Real dt, bool solve_untouched) {
  clamp_and_move(w, StepStage::solve, dt);
  const SolverSettings settings = relax_settings(w.settings.solver);
  const bool continues = solve_untouched && w.clamped_slots.empty() &&
                         solver.continues_from_solved_velocities(settings);
  if (!continues) w.velocities = w.free_velocities;
  w.rows.drop_position_bias(&w.step_pool());
  solver.solve_again(w.rows, solver_bodies(w, dt), settings, w.relax_stats, continues);
  // A direct solver may refuse the relaxed rows (a different problem) even where it solved the
  // first ones: it applied nothing, and the fallback solves them from the free velocities.
  if (w.relax_stats.status == SolveStatus::refused) {
    w.velocities = w.free_velocities;
    solve_refused_rows(w, settings, w.relax_stats, dt);
  }
  guard_bodies(w, StepStage::solve);
}

// One pass of the pipeline over h seconds (the whole step unless SolverSettings::substeps > 1).
// Stage times add up over sub-steps; counts are the last sub-step's.
void substep(World::Impl& w, Real dt) {
  StepStats& stats = w.stats;
  auto stage = Clock::now();
  collect_awake(w);
  find_pairs(w, dt);
  stats.broadphase_ms += milliseconds_since(stage);
  const auto narrowphase = Clock::now();
  find_contacts(w);
  // With every live body awake (awake_slots, collected above, lists them all) none is to wake.
  if (w.awake_slots.size() < w.live_slots.size()) {
    wake_touched_islands(w, dt);
    wake_jointed_islands(w);
    collect_awake(w);
  }
  const ContactCounts& counts = w.contacts.counts();
  stats.contact_pairs = counts.pairs;
  stats.contact_manifolds = counts.manifolds;
  stats.contact_points = counts.points;
  stats.cache_hits = counts.matched;
  stats.reused_pairs = counts.reused;
  stats.max_penetration = std::max(stats.max_penetration, counts.deepest);
  stats.narrowphase_ms += milliseconds_since(narrowphase);
  stats.collide_ms += milliseconds_since(stage);

  stage = Clock::now();
  // The guards and the forces in one pass over the awake bodies (guards.h).
  begin_remembering_poses(w);
  std::array<bool, World::Impl::k_body_chunks> faulty{};
  const bool bouncy = w.bouncy_bodies > 0;
  if (bouncy) {
    w.force_changes.assign(w.velocities.size(), BodyVelocity{});
    w.impact_lags.assign(w.velocities.size(), BodyVelocity{});
  }
  w.for_awake_chunks([&](std::size_t chunk, std::span<const std::uint32_t> slots) {
    remember_chunk_poses(w, slots);
    clamp_chunk(w, chunk, slots);
    if (bouncy) {
      for (const std::uint32_t slot : slots)
        w.force_changes[slot] = w.velocities[slot];
    }
    integrate_velocities(slots, w.motions, w.velocities,
                         {w.settings.gravity, dt, w.settings.gyroscopic});
    if (bouncy) {
      for (const std::uint32_t slot : slots) {
        const BodyVelocity& now = w.velocities[slot];
        BodyVelocity& added = w.force_changes[slot];
        added = {now.linear - added.linear, now.angular - added.angular};
      }
    }
    faulty[chunk] = any_faulty(w, slots);
  });
  report_clamped(w, StepStage::velocities);
  freeze_faulty(w, StepStage::velocities, faulty);
  stats.integrate_velocities_ms += milliseconds_since(stage);

  stage = Clock::now();
  auto part = stage;  // of the solve (StepStats::rows_ms and the three after it)
  const auto end_part = [&](double& ms) {
    const auto now = Clock::now();
    ms += milliseconds_between(part, now);
    part = now;
  };
  resolve_contact_impacts(w, dt);
  w.rows.clear();
  bool relax = w.settings.solver.relax_iterations > 0;
  w.solver_masses.resize(w.motions.size());
  run_ranges(&w.step_pool(), w.motions.size(), World::Impl::k_body_chunks,
             World::Impl::k_parallel_bodies, [&](std::size_t begin, std::size_t end) {
               for (std::size_t i = begin; i < end; ++i)
                 w.solver_masses[i] = w.solver_mass(std::uint32_t(i));
             });
  stiffen_jointed_bodies(w, dt);
  // After the forces: a resting contact's first tangent then follows where gravity pushes it.
  write_contact_rows(w, dt);
  const std::size_t joint_rows = w.rows.size();
  write_joint_rows(w, dt);
  const std::size_t prepared = w.rows.size();  // the contact and joint rows come prepared
  write_custom_rows(w);
  if (w.rows.size() > 0) {
    w.rows.prepare(w.solver_masses, &w.step_pool(), prepared);
    report_degenerate_rows(w);
    if (w.settings.solver.warm_start)
      w.warm_start_line_search.scale(w.rows, joint_rows, prepared, w.velocities, w.solver_masses);
    if (relax) w.free_velocities = w.velocities;
    end_part(stats.rows_ms);
    w.solver->solve(w.rows, solver_bodies(w, dt), w.settings.solver, stats.solve);
    // A refused solve applied nothing: left so, every contact and joint would let go.
    const bool refused = stats.solve.status == SolveStatus::refused;
    if (refused) solve_refused_rows(w, w.settings.solver, stats.solve, dt);
    Solver& solver = refused ? *w.fallback_solver : *w.solver;
    const bool froze = guard_bodies(w, StepStage::solve);
    end_part(stats.solver_ms);
    // Nothing to relax: no row pushes a penetration out, and the solve solved every row directly
    // (joints' equality rows and springs only), so solving again from its impulses would give its
    // velocities again.
    if (relax && solver.last_solve_exact() && !w.rows.has_position_bias()) relax = false;
    if (relax) {
      move_and_relax(w, solver, dt, !froze);
      end_part(stats.relax_ms);
    }
    store_contact_impulses(w, dt);
    store_joint_impulses(w, dt);
    store_custom_impulses(w);
    end_part(stats.store_ms);
  } else {
    stats.solve.reset();
    relax = false;
    end_part(stats.rows_ms);
  }
  stats.solve_ms += milliseconds_between(stage, part);

  stage = Clock::now();
  if (relax)
    clamp_and_report(w, StepStage::positions);  // moved before the relax solve
  else
    clamp_and_move(w, StepStage::positions, dt);
  project_joint_positions(w);
  guard_bodies(w, StepStage::positions);
  hold_frozen_bodies(w);
  measure_joint_errors(w);
  update_sleep(w, dt);
  stats.integrate_positions_ms += milliseconds_since(stage);
  w.last_dt = dt;
}

}  // namespace

void World::step(Real dt) {
  if (!is_finite(dt) || dt <= 0) throw InvalidArgument("step: dt must be a finite number > 0");
  Impl& w = *impl_;
  const auto start = Clock::now();
  StepStats& stats = w.stats;
  stats.broadphase_ms = stats.narrowphase_ms = stats.collide_ms = 0;
  stats.integrate_velocities_ms = stats.solve_ms = stats.integrate_positions_ms = 0;
  stats.rows_ms = stats.solver_ms = stats.relax_ms = stats.store_ms = 0;
  stats.max_penetration = 0;
  w.joint_events.clear();
  w.diagnostics.clear();
  w.on_team = w.pool->threads() > 1 && (w.thread_use == ThreadUse::always || w.team_choice.team());
  const int substeps = w.settings.solver.substeps;
  const Real h = dt / Real(substeps);
  const double end_time = w.time + double(dt);
  for (int i = 0; i < substeps; ++i) {
    // User callbacks run first: if one throws, this sub-step has changed nothing yet.
    collect_custom_rows(*this, w, h);
    // Around the engine's own work only: a user's callback above may replace the pool.
    const TaskPool::KeepAwake awake(w.step_pool());
    substep(w, h);
    w.time += double(h);
  }
  w.time = end_time;  // sub-steps' rounding does not add up over a run
  stats.total_ms = milliseconds_since(start);
  stats.threads = w.step_pool().threads();  // a custom row's callback may have set the threads
  if (w.pool->threads() > 1 && w.thread_use == ThreadUse::measured)
    w.team_choice.record(stats.total_ms);
}

void World::set_threads(int threads) {
  if (threads < 1 || threads > k_max_threads)
    throw InvalidArgument("set_threads: the thread count must be in [1, " +
                          std::to_string(k_max_threads) + "]");
  if (threads == impl_->pool->threads()) return;
  impl_->pool = TaskPoolInstance(threads);
  impl_->team_choice.reset();
}

int World::threads() const {
  return impl_->pool->threads();
}

void World::set_thread_use(ThreadUse use) {
  if (use == impl_->thread_use) return;
  impl_->thread_use = use;
  impl_->team_choice.reset();
}

ThreadUse World::thread_use() const {
  return impl_->thread_use;
}

WorldSnapshot World::snapshot() const {
  WorldSnapshot s;
  s.state_ = std::make_shared<const Impl>(*impl_);
  return s;
}

void World::restore(const WorldSnapshot& snapshot) {
  if (snapshot.empty()) throw InvalidArgument("restore: the snapshot is empty");
  auto state = std::make_unique<Impl>(*snapshot.state_);  // copied whole before anything changes
  // The threads, their use and what the steps measured of them stay the world's.
  state->pool = std::move(impl_->pool);
  state->thread_use = impl_->thread_use;
  state->team_choice = impl_->team_choice;
  impl_ = std::move(state);
}

double WorldSnapshot::time() const {
  return state_ ? state_->time : 0;
}

const StepStats& World::last_step_stats() const {
  return impl_->stats;
}
double World::time() const {
  return impl_->time;
}

double World::kinetic_energy() const {
  double energy = 0;
  for (const std::uint32_t i : impl_->live_slots) {
    const BodyMotion& m = impl_->motions[i];
    if (m.type != BodyType::dynamic_body) continue;
    const BodyVelocity& v = impl_->velocities[i];
    const Vec3 w_body = inverse_rotate(m.orientation, v.angular);
    energy += 0.5 * double(length_squared(v.linear)) / double(m.inv_mass) +
              0.5 * double(dot(w_body, m.inertia_local * w_body));
  }
  return energy;
}

double World::potential_energy() const {
  double energy = 0;
  for (const std::uint32_t i : impl_->live_slots) {
    const BodyMotion& m = impl_->motions[i];
    if (m.type != BodyType::dynamic_body) continue;
    energy -= double(dot(m.gravity_scale * impl_->settings.gravity, m.center)) / double(m.inv_mass);
  }
  return energy;
}

Vec3 World::angular_momentum() const {
  Vec3 total;
  for (const std::uint32_t i : impl_->live_slots) {
    const BodyMotion& m = impl_->motions[i];
    if (m.type != BodyType::dynamic_body) continue;
    const BodyVelocity& v = impl_->velocities[i];
    const Vec3 spin =
        rotate(m.orientation, m.inertia_local * inverse_rotate(m.orientation, v.angular));
    total += spin + cross(m.center, v.linear / m.inv_mass);
  }
  return total;
}

std::uint64_t World::state_hash() const {
  BitHash hash;
  for (const std::uint32_t i : impl_->live_slots) {
    const Transform t = impl_->motions[i].origin_transform();
    hash.add(t.position);
    hash.add(t.orientation);
    hash.add(impl_->velocities[i].linear);
    hash.add(impl_->velocities[i].angular);
  }
  return hash.value();
}

}  // namespace impulse
