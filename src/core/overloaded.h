#pragma once
// A visitor made of lambdas, for std::visit over the shape variants.

namespace impulse {

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
// C++20 deduces this for aggregates, but clang before 17 does not: the guide keeps clang building.
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

}  // namespace impulse
