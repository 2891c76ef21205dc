// The blocks kept by row count: a solve takes one block of each block's size, and after a restart
// takes the same ones again in any order of sizes, so that a layout whose blocks change size finds
// the storage it had (the block solver's and the mass-ratio islands' allocation tests count it).

#include "solver/exact_block.h"

#include <gtest/gtest.h>

namespace impulse {
namespace {

TEST(ExactBlockPool, ARestartedPoolTakesTheSameBlocksForTheSameSizes) {
  ExactBlockPool pool;
  const ExactBlockPool::Handle first = pool.take(3), second = pool.take(5), third = pool.take(3);
  EXPECT_EQ(first.rows, 3u);
  EXPECT_EQ(first.slot, 0u);
  EXPECT_EQ(second.slot, 0u);
  EXPECT_EQ(third.slot, 1u);
  const ExactBlock* threes[] = {&pool[first], &pool[third]};
  const ExactBlock* five = &pool[second];
  EXPECT_NE(threes[0], threes[1]);
  // The sizes in another order: the same blocks, none made.
  pool.restart();
  const ExactBlockPool::Handle again_five = pool.take(5), again_three = pool.take(3);
  const ExactBlockPool::Handle again_other_three = pool.take(3);
  EXPECT_EQ(&pool[again_five], five);
  EXPECT_EQ(&pool[again_three], threes[0]);
  EXPECT_EQ(&pool[again_other_three], threes[1]);
  // A third block of three is a new one.
  EXPECT_EQ(pool.take(3).slot, 2u);
}

}  // namespace
}  // namespace impulse
