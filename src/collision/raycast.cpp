#include "collision/raycast.h"

#include <algorithm>
#include <cmath>

#include "collision/aabb_tree.h"

namespace impulse {
namespace {

// A capsule-frame direction whose sideways part is below this share of |d|^2 runs along the axis:
// that part is rounding from the rotation (about k_epsilon |d| per component), too shallow to
// reach the side within the capsule's length, and 1 / a could overflow.
constexpr Real k_parallel = k_epsilon * k_epsilon;

// A zero direction is no ray: it has no -direction for the normal of a start inside, so it never
// hits (containment is a point query). An empty segment (max_fraction < 0) never hits either.
bool is_ray(const Vec3& direction, Real max_fraction) {
  return length_squared(direction) > 0 && max_fraction >= 0;
}

bool starts_inside(const Vec3& direction, RayHit& hit) {
  hit = {0, -direction / length(direction), 0};
  return true;
}

bool hit_at(Real fraction, const Vec3& normal, Real max_fraction, RayHit& hit) {
  if (fraction > max_fraction) return false;
  hit = {fraction, normal, 0};
  return true;
}

// Where o + t d, from o outside the ball |x - c| <= r, enters it: the fraction (-1 on a miss)
// and the unit normal there. The chord is measured from the line's closest point to c rather
// than by the textbook quadratic, whose b^2 - ac cancels badly for far origins (Haines et al.,
// Ray Tracing Gems, ch. 7); the normal is taken from that closest point for the same reason.
struct BallEntry {
  Real fraction;
  Vec3 normal;
};
BallEntry enter_ball(const Vec3& o, const Vec3& d, const Vec3& c, Real r) {
  const Vec3 m = o - c;
  const Real a = dot(d, d);
  const Real t_closest = -dot(m, d) / a;
  if (t_closest < 0) return {-1, {}};  // heading away from an outside origin
  const Vec3 closest = m + t_closest * d;
  const Real h2 = r * r - dot(closest, closest);
  if (h2 < 0) return {-1, {}};
  const Real back = std::sqrt(h2 / a);
  // An origin just outside may round to a slightly negative fraction: it enters at once.
  if (t_closest <= back) return {0, normalize(m)};
  return {t_closest - back, normalize(closest - back * d)};
}

}  // namespace

bool raycast(const Sphere& shape, const Transform& pose, const Vec3& origin, const Vec3& direction,
             Real max_fraction, RayHit& hit) {
  if (!is_ray(direction, max_fraction)) return false;
  const Vec3& c = pose.position;
  if (length_squared(origin - c) <= shape.radius * shape.radius)
    return starts_inside(direction, hit);
  const BallEntry entry = enter_ball(origin, direction, c, shape.radius);
  if (entry.fraction < 0) return false;
  return hit_at(entry.fraction, entry.normal, max_fraction, hit);
}

bool raycast(const Box& shape, const Transform& pose, const Vec3& origin, const Vec3& direction,
             Real max_fraction, RayHit& hit) {
  if (!is_ray(direction, max_fraction)) return false;
  const Ray local(apply_inverse(pose, origin), inverse_rotate(pose.orientation, direction));
  const Ray::Entry entry = local.enter({-shape.half_extents, shape.half_extents}, max_fraction);
  if (entry.fraction < 0) return false;
  if (entry.axis < 0) return starts_inside(direction, hit);
  Vec3 normal;
  normal[entry.axis] = local.direction[entry.axis] > 0 ? Real(-1) : Real(1);
  return hit_at(entry.fraction, rotate(pose.orientation, normal), max_fraction, hit);
}

bool raycast(const Capsule& shape, const Transform& pose, const Vec3& origin, const Vec3& direction,
             Real max_fraction, RayHit& hit) {
  if (!is_ray(direction, max_fraction)) return false;
  const Vec3 o = apply_inverse(pose, origin);
  const Vec3 d = inverse_rotate(pose.orientation, direction);
  const Real r = shape.radius;
  const Real h = shape.half_height;
  const Real r2 = r * r;
  const Real radial2 = o.x * o.x + o.z * o.z;  // squared distance from the axis
  const Real beyond = std::max(std::abs(o.y) - h, Real(0));
  if (radial2 + beyond * beyond <= r2) return starts_inside(direction, hit);

  // The side: entering the infinite cylinder between the end planes enters the capsule there,
  // since the end balls lie inside the cylinder. A start inside the cylinder never crosses it.
  const Real a = d.x * d.x + d.z * d.z;
  if (radial2 > r2 && a > k_parallel * dot(d, d)) {
    const Real t_closest = -(o.x * d.x + o.z * d.z) / a;
    const Real cx = o.x + t_closest * d.x;
    const Real cz = o.z + t_closest * d.z;
    const Real h2 = r2 - (cx * cx + cz * cz);
    if (t_closest >= 0 && h2 >= 0) {
      const Real back = std::min(std::sqrt(h2 / a), t_closest);
      const Real t = t_closest - back;
      if (std::abs(o.y + t * d.y) <= h) {
        const Vec3 normal = normalize(Vec3{cx - back * d.x, 0, cz - back * d.z});
        return hit_at(t, rotate(pose.orientation, normal), max_fraction, hit);
      }
    }
  }
  // Otherwise it enters through an end ball, or not at all.
  BallEntry best{-1, {}};
  for (const Real end : {-h, h}) {
    const BallEntry entry = enter_ball(o, d, {0, end, 0}, r);
    if (entry.fraction >= 0 && (best.fraction < 0 || entry.fraction < best.fraction)) best = entry;
  }
  if (best.fraction < 0) return false;
  return hit_at(best.fraction, rotate(pose.orientation, best.normal), max_fraction, hit);
}

bool raycast(const PolyhedronView& shape, const Transform& pose, const Vec3& origin,
             const Vec3& direction, Real max_fraction, RayHit& hit) {
  if (!is_ray(direction, max_fraction)) return false;
  const Vec3 o = apply_inverse(pose, origin);
  const Vec3 d = inverse_rotate(pose.orientation, direction);
  // Cyrus-Beck: the segment is clipped by each face plane; it enters through the face whose
  // entering fraction is largest and must do so before it leaves through any other.
  Real t_enter = 0;
  Real t_exit = max_fraction;
  int entered = -1;
  for (std::size_t f = 0; f < shape.faces.size(); ++f) {
    const PolyFace& face = shape.faces[f];
    const Real distance = dot(face.normal, o) - face.offset;  // > 0 outside this plane
    const Real approach = dot(face.normal, d);
    if (approach == 0) {
      if (distance > 0) return false;  // parallel, outside this plane
      continue;
    }
    const Real t = -distance / approach;
    if (approach < 0) {
      // >= as in the box: an origin on a face, heading in, enters through it.
      if (t >= t_enter) {
        t_enter = t;
        entered = static_cast<int>(f);
      }
    } else {
      t_exit = std::min(t_exit, t);
    }
    if (t_enter > t_exit) return false;
  }
  if (entered < 0) return starts_inside(direction, hit);
  return hit_at(t_enter, rotate(pose.orientation, shape.faces[entered].normal), max_fraction, hit);
}

bool raycast(const Plane& shape, const Transform& pose, const Vec3& origin, const Vec3& direction,
             Real max_fraction, RayHit& hit) {
  if (!is_ray(direction, max_fraction)) return false;
  // World plane dot(n, x) <= offset; n need not be unit, the fraction does not depend on its size.
  const Vec3 n = rotate(pose.orientation, shape.normal);
  const Real distance = dot(n, origin) - shape.offset - dot(n, pose.position);
  if (distance <= 0) return starts_inside(direction, hit);
  const Real approach = dot(n, direction);
  if (approach >= 0) return false;  // parallel above, or heading away
  return hit_at(distance / -approach, normalize(n), max_fraction, hit);
}

}  // namespace impulse
