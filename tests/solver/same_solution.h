#pragma once
// Whether two solves of one RowProblem agree to the bit, as a googletest assertion (row_problem.h
// itself needs no googletest: the batch benchmark builds its rows with it too).

#include <gtest/gtest.h>

#include "row_problem.h"

namespace impulse::testing {

/// Whether two solves of one problem ended in the same impulses and velocities, to the bit; the
/// failure names the first row or body that differs.
inline ::testing::AssertionResult same_solution(const RowProblem& one, const RowProblem& other) {
  for (std::size_t i = 0; i < one.rows.size(); ++i) {
    if (!same_bits(one.rows.lambda[i], other.rows.lambda[i]))
      return ::testing::AssertionFailure() << "row " << i << "'s impulse";
  }
  for (std::size_t k = 0; k < one.velocities.size(); ++k) {
    for (int axis = 0; axis < 3; ++axis) {
      if (!same_bits(one.velocities[k].linear[axis], other.velocities[k].linear[axis]) ||
          !same_bits(one.velocities[k].angular[axis], other.velocities[k].angular[axis]))
        return ::testing::AssertionFailure() << "body " << k << "'s velocity";
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace impulse::testing
