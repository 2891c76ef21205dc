#pragma once
// A visitor made of lambdas, for std::visit over the shape variants.

namespace impulse {

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};

}  // namespace impulse
