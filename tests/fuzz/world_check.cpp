#include "fuzz/byte_reader.h"
#include "fuzz/fuzz_checks.h"

#include <impulse/error.h>
#include <impulse/world.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace impulse::fuzz {
namespace {

constexpr int k_steps = 60;
constexpr std::size_t k_max_bodies = 8;
constexpr std::size_t k_max_joints = 3;
// Every this many steps the recipe may poke a body through the API.
constexpr int k_poke_interval = 10;

struct Fingerprint {
  std::uint64_t hash;
  std::size_t bodies;
  std::size_t joints;
  friend bool operator==(const Fingerprint&, const Fingerprint&) = default;
};

Fingerprint fingerprint(const World& world) {
  return {world.state_hash(), world.body_count(), world.joints().size()};
}

// Builds and steps one world from the bytes; returns its final state_hash.
class Recipe {
 public:
  explicit Recipe(std::span<const std::uint8_t> bytes) : in_(bytes), world_(world_settings()) {}

  std::uint64_t run() {
    const std::size_t bodies = 1 + in_.pick(k_max_bodies);
    for (std::size_t i = 0; i < bodies; ++i) {
      const std::size_t mark = in_.raw_reads();
      const BodySettings settings = body();
      attempt("create_body", mark, [&] { ids_.push_back(world_.create_body(settings)); });
    }
    const std::size_t joints = in_.pick(k_max_joints + 1);
    for (std::size_t i = 0; i < joints; ++i) {
      const std::size_t mark = in_.raw_reads();
      const JointSettings settings = joint();
      attempt("create_joint", mark, [&] { world_.create_joint(settings); });
    }
    for (int step = 1; step <= k_steps; ++step) {
      if (step % k_poke_interval == 0) poke();
      world_.step(world_.settings().timestep);
      if (!extreme_) check_finite(step);
    }
    return world_.state_hash();
  }

 private:
  WorldSettings world_settings() {
    WorldSettings s;
    s.solver.type = SolverType(in_.pick(6));
    s.solver.iterations = 1 + int(in_.pick(20));
    s.solver.warm_start = in_.flag();
    s.solver.shuffle = in_.flag();
    s.solver.friction_model = FrictionModel(in_.pick(3));
    s.solver.position_iterations = int(in_.pick(4));
    s.sleeping = in_.flag();
    s.gyroscopic = in_.flag();
    if (in_.pick(8) == 0) s.plane_normal = Vec3::unit_z();
    return s;
  }

  ShapeGeometry geometry(bool is_static) {
    switch (in_.pick(is_static ? 6 : 4)) {
      case 0:
        return Sphere{in_.number(Real(0.05), 2)};
      case 1:
        return Box{in_.vec(Real(0.05), 2)};
      case 2:
        return Capsule{in_.number(Real(0.05), 1), in_.number(0, 1)};
      case 3: {
        ConvexHull hull;
        hull.points.resize(4 + in_.pick(9));
        for (Vec3& p : hull.points)
          p = in_.vec(-1, 1);
        return hull;
      }
      case 4:
        return Plane{in_.vec(-1, 1), in_.number(-2, 2)};
      default: {
        Mesh mesh;
        mesh.vertices.resize(3 + in_.pick(6));
        for (Vec3& v : mesh.vertices)
          v = in_.vec(-5, 5);
        mesh.triangles.resize(1 + in_.pick(4));
        // One more than the vertex count: an index out of range must be refused.
        for (auto& t : mesh.triangles)
          for (std::uint32_t& k : t)
            k = std::uint32_t(in_.pick(mesh.vertices.size() + 1));
        return mesh;
      }
    }
  }

  BodySettings body() {
    BodySettings b;
    const std::size_t type = in_.pick(8);
    b.type = type == 0   ? BodyType::static_body
             : type == 1 ? BodyType::kinematic_body
                         : BodyType::dynamic_body;
    const bool is_static = b.type == BodyType::static_body;
    b.shapes.resize(in_.pick(4) == 0 ? 2 + in_.pick(2) : 1);
    for (ShapeSettings& shape : b.shapes) {
      shape.geometry = geometry(is_static);
      if (b.shapes.size() > 1) shape.local = {in_.vec(-1, 1), in_.quat()};
    }
    b.position = in_.vec(-5, 5);
    b.orientation = in_.quat();
    b.linear_velocity = in_.vec(-20, 20);
    b.particle = in_.pick(8) == 0;
    if (!b.particle) b.angular_velocity = in_.vec(-10, 10);
    if (in_.flag())
      b.mass = in_.number(Real(0.1), 100);
    else
      b.density = in_.number(100, 5000);
    b.friction = in_.number(0, 1);
    b.restitution = in_.number(0, 1);
    b.linear_damping = in_.number(0, 1);
    b.angular_damping = in_.number(0, 1);
    if (in_.pick(4) == 0) b.collision_filter = collision_filter();
    return b;
  }

  // Categories and masks of three bits, groups from -2 to 2.
  CollisionFilter collision_filter() {
    const auto category = std::uint32_t(in_.pick(8)), mask = std::uint32_t(in_.pick(8));
    return {category, mask, std::int32_t(in_.pick(5)) - 2};
  }

  // A live body, or null (the world) for one pick in n + 1.
  BodyId some_body() {
    const std::size_t i = in_.pick(ids_.size() + 1);
    return i < ids_.size() ? ids_[i] : BodyId{};
  }

  Range range(Real bound) {
    const Real lo = in_.number(-bound, 0);
    return {lo, in_.number(0, bound)};
  }

  std::optional<Spring> spring() {
    if (in_.pick(4) != 0) return std::nullopt;
    return Spring{in_.number(Real(0.5), 20), in_.number(0, 2)};
  }

  JointSettings joint() {
    JointSettings j;
    j.type = JointType(in_.pick(8));
    j.body_a = some_body();
    j.body_b = some_body();
    j.anchor = in_.vec(-5, 5);
    j.anchor_a = in_.vec(-5, 5);
    j.anchor_b = in_.vec(-5, 5);
    const std::size_t axis = in_.pick(4);
    j.axis = axis < 3 ? Vec3{Real(axis == 0), Real(axis == 1), Real(axis == 2)} : in_.vec(-1, 1);
    j.frame = in_.quat();
    if (in_.flag()) j.limits = range(3);
    if (in_.flag()) j.motor = Motor{in_.number(-10, 10), in_.number(0, 100)};
    if (j.type == JointType::distance) {
      if (in_.flag()) j.min_distance = in_.number(0, 2);
      if (in_.flag()) j.max_distance = in_.number(0, 5);
      j.spring = spring();
    }
    j.swing_limit = in_.number(0, 3);
    j.twist_limits = range(3);
    for (auto* axes : {&j.linear, &j.angular}) {
      for (AxisMotion& a : *axes) {
        a.mode = AxisMotion::Mode(in_.pick(3));
        a.range = range(3);
        a.spring = spring();
      }
    }
    if (in_.pick(4) == 0) j.break_force = in_.number(0, 1000);
    j.collide_connected = in_.flag();
    return j;
  }

  // One API call on a body (perhaps removed: a stale handle must be refused).
  void poke() {
    if (ids_.empty()) return;
    const std::size_t mark = in_.raw_reads();
    const BodyId id = ids_[in_.pick(ids_.size())];
    switch (in_.pick(8)) {
      case 0:
        return;
      case 1: {
        const Vec3 v = in_.vec(-20, 20);
        return attempt("set_linear_velocity", mark, [&] { world_.set_linear_velocity(id, v); });
      }
      case 2: {
        const Vec3 w = in_.vec(-10, 10);
        return attempt("set_angular_velocity", mark, [&] { world_.set_angular_velocity(id, w); });
      }
      case 3: {
        const Vec3 p = in_.vec(-50, 50);
        return attempt("apply_impulse", mark, [&] { world_.apply_impulse(id, p); });
      }
      case 4: {
        const Vec3 f = in_.vec(-500, 500), at = in_.vec(-5, 5);
        return attempt("apply_force_at", mark, [&] { world_.apply_force_at(id, f, at); });
      }
      case 5: {
        const Transform pose{in_.vec(-5, 5), in_.quat()};
        return attempt("set_transform", mark, [&] { world_.set_transform(id, pose); });
      }
      case 6: {
        const CollisionFilter filter = collision_filter();
        return attempt("set_collision_filter", mark,
                       [&] { world_.set_collision_filter(id, filter); });
      }
      default:
        return attempt("remove_body", mark, [&] { world_.remove_body(id); });
    }
  }

  // Runs one API call whose arguments were read since raw_reads() was `mark`. A refusal must be
  // one of Impulse's documented errors and change nothing; an accepted raw value puts the world
  // beyond the no-NaN promise.
  template <class Call>
  void attempt(const char* what, std::size_t mark, Call call) {
    const Fingerprint before = fingerprint(world_);
    try {
      call();
      if (in_.raw_reads() > mark) extreme_ = true;
    } catch (const InvalidArgument&) {
      expect_unchanged(what, before);
    } catch (const StaleHandle&) {
      expect_unchanged(what, before);
    } catch (const Unsupported&) {
      expect_unchanged(what, before);
    }
  }

  void expect_unchanged(const char* what, const Fingerprint& before) const {
    if (!(fingerprint(world_) == before))
      throw std::logic_error(std::string(what) + " refused its arguments but changed the world");
  }

  void check_finite(int step) const {
    for (const BodyId id : world_.bodies()) {
      if (!is_finite(world_.position(id)) || !is_finite(world_.orientation(id)) ||
          !is_finite(world_.linear_velocity(id)) || !is_finite(world_.angular_velocity(id)))
        throw std::logic_error("step " + std::to_string(step) + ": body " +
                               std::to_string(id.index) + " is not finite (all inputs in range)");
    }
  }

  ByteReader in_;
  World world_;
  std::vector<BodyId> ids_;
  bool extreme_ = false;
};

}  // namespace

void check_world_bytes(std::span<const std::uint8_t> bytes) {
  const std::uint64_t first = Recipe(bytes).run();
  if (Recipe(bytes).run() != first)
    throw std::logic_error("the same input ran twice ends in different states");
}

}  // namespace impulse::fuzz
