#pragma once
// Engine values as JSON, written so that they read back bit for bit and stay readable: the
// shortest decimal that reads back to the same Real (0.1, not 0.10000000149011612), whole
// numbers as integers, a negative zero kept. For scene files and the command's summaries.

#include <impulse/math.h>

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>

namespace impulse {

template <typename Json>
Json json_number(Real x) {
  if (x == 0 && std::signbit(x)) return -0.0;
  if (x == std::trunc(x) && std::abs(x) < Real(1e15)) return static_cast<std::int64_t>(x);
  std::array<char, 64> text{};
  const auto written = std::to_chars(text.data(), text.data() + text.size(), x);
  double decimal = 0;
  std::from_chars(text.data(), written.ptr, decimal);
  return decimal;
}

template <typename Json>
Json json_vec3(const Vec3& v) {
  return Json::array({json_number<Json>(v.x), json_number<Json>(v.y), json_number<Json>(v.z)});
}

template <typename Json>
Json json_quat(const Quat& q) {
  return Json::array({json_number<Json>(q.x), json_number<Json>(q.y), json_number<Json>(q.z),
                      json_number<Json>(q.w)});
}

}  // namespace impulse
