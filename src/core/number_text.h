#pragma once
// A number as a message quotes it: the shortest of %g's forms (1e-07, 3e+38, 0.5).

#include <impulse/math/real.h>

#include <cstdio>
#include <string>

namespace impulse {

inline std::string number_text(Real value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", double(value));
  return text;
}

}  // namespace impulse
