#include "camera.h"

#include <algorithm>
#include <cmath>

namespace impulse::testbed {
namespace {

constexpr float k_near = 0.05f;
constexpr float k_far = 1000.0f;
constexpr float k_orbit_rad_per_pixel = 0.006f;

}  // namespace

void OrbitCamera::orbit(float dx, float dy) {
  yaw_ -= dx * k_orbit_rad_per_pixel;
  // Short of the poles, where "up" and the view direction would meet.
  pitch_ = std::clamp(pitch_ + dy * k_orbit_rad_per_pixel, -1.5f, 1.5f);
}

void OrbitCamera::pan(float dx, float dy, int viewport_height) {
  const Vec3 forward = normalize(target_ - eye());
  const Vec3 right = normalize(cross(forward, Vec3::unit_y()));
  const Vec3 up = cross(right, forward);
  const float metres_per_pixel =
      2 * distance_ * std::tan(k_fov_y / 2) / float(std::max(viewport_height, 1));
  target_ += (right * -dx + up * dy) * metres_per_pixel;
}

void OrbitCamera::zoom(float wheel) {
  distance_ = std::clamp(distance_ * std::pow(0.88f, wheel), 0.5f, 500.0f);
}

void OrbitCamera::frame(const AABB& box) {
  target_ = (box.lower + box.upper) * Real(0.5);
  const float radius = float(length(box.upper - box.lower)) * 0.5f;
  distance_ = std::clamp(radius / std::sin(k_fov_y / 2) * 0.9f, 3.0f, 400.0f);
}

Vec3 OrbitCamera::eye() const {
  const Vec3 offset{std::cos(pitch_) * std::sin(yaw_), std::sin(pitch_),
                    std::cos(pitch_) * std::cos(yaw_)};
  return target_ + offset * distance_;
}

Mat4 OrbitCamera::view() const {
  return look_at(eye(), target_, Vec3::unit_y());
}

Mat4 OrbitCamera::projection(float aspect) const {
  return perspective(k_fov_y, aspect, k_near, k_far);
}

Ray OrbitCamera::ray_through(float x, float y, int width, int height) const {
  const Vec3 origin = eye();
  const Vec3 forward = normalize(target_ - origin);
  const Vec3 right = normalize(cross(forward, Vec3::unit_y()));
  const Vec3 up = cross(right, forward);
  const float h = std::max(height, 1);
  const float half_h = std::tan(k_fov_y / 2);
  const float half_w = half_h * float(width) / h;
  const float ndc_x = 2 * x / float(std::max(width, 1)) - 1;
  const float ndc_y = 1 - 2 * y / h;
  return {origin, normalize(forward + right * (ndc_x * half_w) + up * (ndc_y * half_h))};
}

}  // namespace impulse::testbed
