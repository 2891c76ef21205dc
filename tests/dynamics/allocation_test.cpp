// Issue 8: once a scene has warmed up, a step allocates nothing. Counted through a replaced global
// operator new, which only counts while a test asks it to (the rest of the test binary is free to
// allocate).

#include <impulse/scene.h>
#include <impulse/world.h>

#include "constraints/contact_rows.h"
#include "dynamics/world_impl.h"
#include "solver/block_ldlt.h"
#include "solver/dense_mlcp.h"
#include "support/bodies.h"
#include "support/optimised.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <random>

namespace {

std::atomic<bool> g_counting{false};
std::atomic<std::size_t> g_allocations{0};

[[gnu::noinline]] void counted_allocation() {
  asm volatile("");
}
void count_allocation() {
  if (g_counting.load(std::memory_order_relaxed)) {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    counted_allocation();
  }
}

}  // namespace

// malloc, calloc and realloc as the test binary's objects call them (the library's Eigen matrices
// allocate through std::malloc, not operator new): the link wraps them (tests/CMakeLists.txt).
extern "C" {
void* __real_malloc(std::size_t size);
void* __real_calloc(std::size_t count, std::size_t size);
void* __real_realloc(void* p, std::size_t size);
void* __wrap_malloc(std::size_t size) {
  count_allocation();
  return __real_malloc(size);
}
void* __wrap_calloc(std::size_t count, std::size_t size) {
  count_allocation();
  return __real_calloc(count, size);
}
void* __wrap_realloc(void* p, std::size_t size) {
  count_allocation();
  return __real_realloc(p, size);
}
}

namespace {

void* allocate(std::size_t size) {
  count_allocation();
  if (void* p = __real_malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}

void* allocate_aligned(std::size_t size, std::align_val_t alignment) {
  count_allocation();
  const auto align = static_cast<std::size_t>(alignment);
  const std::size_t rounded = (std::max<std::size_t>(size, 1) + align - 1) / align * align;
  if (void* p = std::aligned_alloc(align, rounded)) return p;
  throw std::bad_alloc();
}

}  // namespace

void* operator new(std::size_t size) {
  return allocate(size);
}
void* operator new[](std::size_t size) {
  return allocate(size);
}
void* operator new(std::size_t size, std::align_val_t alignment) {
  return allocate_aligned(size, alignment);
}
void* operator new[](std::size_t size, std::align_val_t alignment) {
  return allocate_aligned(size, alignment);
}
// The nothrow forms too: the library's (std::stable_sort's buffer) must pair with the delete
// replaced here, or a sanitizer sees its own new freed by this file's delete.
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return allocate(size);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return allocate(size);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
void* operator new(std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  try {
    return allocate_aligned(size, alignment);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
void* operator new[](std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  try {
    return allocate_aligned(size, alignment);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}

namespace impulse {
namespace {

constexpr Real k_dt = Real(1) / 60;

std::size_t allocations_while_stepping(World& world, int steps) {
  g_allocations = 0;
  g_counting = true;
  for (int i = 0; i < steps; ++i)
    world.step(k_dt);
  g_counting = false;
  return g_allocations;
}

// A built-in scene as the peers benchmark runs it, awake (sleeping off: a body falling asleep
// changes the solve's structure, whose analysis may allocate), stepped until warmed up, then 60
// steps more counted, on one thread and on two (the narrowphase's chunks, the rows' and the
// solve's teams on the pool). Returns the world, stepped.
World expect_warmed_up_steps_without_allocating(const char* scene, int warm_up, int threads,
                                                SolverType solver = SolverType::pgs) {
  World world = build_world(*builtin_scene(scene), scene);
  WorldSettings settings = world.settings();
  settings.sleeping = false;
  settings.solver.type = solver;
  world.set_settings(settings);
  world.set_threads(threads);
  for (int i = 0; i < warm_up; ++i)
    world.step(k_dt);
  EXPECT_EQ(allocations_while_stepping(world, 60), 0u);
  return world;
}

// The pyramid: 210 boxes, every stage of the step at work.
TEST(Allocation, WarmedUpPyramidStepsWithoutAllocating) {
  expect_warmed_up_steps_without_allocating("pyramid", 60, 1);
}

// Its counted steps (61 to 120) hold TeamChoice's second trial whatever the steps measure: steps
// alone and on the team, the solver's batches built again at each change.
TEST(Allocation, WarmedUpPyramidStepsWithoutAllocatingOnTwoThreads) {
  constexpr std::size_t trial = TeamChoice::k_block_steps * TeamChoice::k_trial_blocks;
  constexpr std::size_t second_trial =
      TeamChoice::k_settle_steps + trial + TeamChoice::k_first_hold;
  static_assert(second_trial >= 60 && second_trial + trial <= 120, "counted: steps 61 to 120");
  expect_warmed_up_steps_without_allocating("pyramid", 60, 2);
}

// The ragdolls, landed: joints' rows beside contacts, the equality block by components; on two
// threads the joints' rows staged by chunk on the pool (their contacts' rows share the pool first,
// which lets the joints' passes share it), once the stagings have grown.
TEST(Allocation, WarmedUpRagdollsStepWithoutAllocating) {
  expect_warmed_up_steps_without_allocating("ragdolls", 600, 1);
}

TEST(Allocation, WarmedUpRagdollsStepWithoutAllocatingOnTwoThreads) {
  const World world = expect_warmed_up_steps_without_allocating("ragdolls", 600, 2);
  EXPECT_GE(world.last_step_stats().contact_manifolds, k_parallel_manifolds);
  EXPECT_GE(world.joints().size(), World::Impl::k_parallel_joints);
}

// Seed 001's mass ratio (a 100 kg box on light ones), whose island pgs solves exactly after its
// sweeps (docs/solvers.md, "Mass ratios"): the dense MLCP's singular free blocks (more contacts
// than the boxes' degrees of freedom) factored in its island's kept workspace (MlcpWorkspace).
// 420 allocations through operator new and 2700 more through malloc in 60 steps before it.
TEST(Allocation, WarmedUpMassRatioIslandStepsWithoutAllocating) {
  const World world = expect_warmed_up_steps_without_allocating("seed001-mass-ratio", 300, 1);
  EXPECT_GT(world.last_step_stats().solve.ratio_islands_solved, 0u);
}

// The block solver: every contact's block an exact MLCP, its friction found by the fixed-point
// loop and Newton steps on the coupled system (dense_mlcp.h), each block's storage kept by its row
// count (BlockSolver), so that blocks whose sizes change as contacts come and go find storage of
// their size. Warmed up until the pyramid's contacts have settled and the ragdolls lie on the
// pile: 4.7 million allocations in the ragdolls' 60 steps with Eigen's decompositions.
TEST(Allocation, WarmedUpPyramidStepsWithoutAllocatingUnderTheBlockSolver) {
  SKIP_UNLESS_OPTIMISED();
  expect_warmed_up_steps_without_allocating("pyramid", 300, 1, SolverType::block);
}

TEST(Allocation, WarmedUpRagdollsStepWithoutAllocatingUnderTheBlockSolver) {
  SKIP_UNLESS_OPTIMISED();
  expect_warmed_up_steps_without_allocating("ragdolls", 600, 1, SolverType::block);
}

// The dense MLCP's workspace on its own: friction problems shaped like contacts (a normal row and
// two friction rows a point, four points a pair of bodies, more rows than degrees of freedom), the
// friction loop taking its Newton steps (their coupled system factored some 360 times in the
// counted solves, seen in a debugger); once the workspace has solved one problem of 24 rows,
// others of 24 rows allocate nothing.
TEST(Allocation, ADenseMlcpOfASizeSolvedBeforeAllocatesNothing) {
  constexpr int contacts = 8, n = 3 * contacts, dofs = 6 * (contacts / 4 + 1);
  std::mt19937 random(7);
  std::normal_distribution<double> normal;
  const auto problem = [&] {
    Eigen::MatrixXd j = Eigen::MatrixXd::Zero(n, dofs);
    MlcpProblem p;
    p.b.resize(n);
    p.lo.resize(n);
    p.hi.resize(n);
    p.mu.setZero(n);
    p.normal_index.assign(n, -1);
    for (int c = 0; c < contacts; ++c) {
      for (int r = 3 * c; r < 3 * c + 3; ++r) {
        for (int d = 0; d < 6; ++d) {
          j(r, 6 * (c / 4) + d) = normal(random);
          if (c >= 4) j(r, 6 * (c / 4 - 1) + d) = -0.5 * normal(random);
        }
        const bool friction = r > 3 * c;
        p.b[r] = friction ? normal(random) : 1 + std::abs(normal(random));
        p.lo[r] = friction ? -INFINITY : 0;
        p.hi[r] = INFINITY;
        if (friction) p.normal_index[std::size_t(r)] = 3 * c;
        if (friction) p.mu[r] = 0.5;
      }
    }
    p.a = j * j.transpose();
    p.spectrum = semi_definite_spectrum(p.a);
    return p;
  };
  MlcpWorkspace workspace;
  MlcpResult result;
  solve_dense_mlcp(problem(), nullptr, workspace, result);
  int counted = 0;
  for (int k = 0; k < 20; ++k) {
    const MlcpProblem next = problem();
    // Those the solver solves: a failed friction loop's last search allocates (dense_mlcp.h).
    if (!solve_dense_mlcp(next).solved) continue;
    g_allocations = 0;
    g_counting = true;
    solve_dense_mlcp(next, nullptr, workspace, result);
    g_counting = false;
    EXPECT_EQ(g_allocations, 0u) << k;
    EXPECT_TRUE(result.solved) << result.failure;
    EXPECT_LT(mlcp_complementarity_error(next, result.lambda), 1e-9);
    ++counted;
  }
  EXPECT_GE(counted, 10);
}

// Ground, and lying on it four two-link arms hinged at the elbow and two chains of three links on
// ball joints: six islands of joints, at rest (bodies 1 to 8 the arms', 9 to 14 the chains').
World resting_jointed_islands() {
  World world;
  world.create_body(testing::ground_box());
  const Vec3 link_half{Real(0.5), Real(0.1), Real(0.1)};
  for (int k = 0; k < 4; ++k) {
    const Real z = Real(2 * k);
    const BodyId upper = world.create_body(testing::body_of(Box{link_half}, {-0.5, 0.1, z}));
    const BodyId lower = world.create_body(testing::body_of(Box{link_half}, {0.5, 0.1, z}));
    JointSettings elbow;
    elbow.type = JointType::hinge;
    elbow.body_a = upper;
    elbow.body_b = lower;
    elbow.anchor = {0, Real(0.1), z};
    elbow.axis = Vec3::unit_z();
    world.create_joint(elbow);
  }
  for (int k = 0; k < 2; ++k) {
    const Real z = Real(8 + 2 * k);
    BodyId previous;
    for (int link = 0; link < 3; ++link) {
      const BodyId body = world.create_body(testing::body_of(Box{link_half}, {Real(link), 0.1, z}));
      if (link > 0) {
        JointSettings joint;
        joint.type = JointType::ball;
        joint.body_a = previous;
        joint.body_b = body;
        joint.anchor = {Real(link) - Real(0.5), Real(0.1), z};
        world.create_joint(joint);
      }
      previous = body;
    }
  }
  return world;
}

std::size_t awake_bodies(const World& world, const std::vector<BodyId>& bodies) {
  std::size_t awake = 0;
  for (const BodyId id : bodies)
    awake += world.type(id) == BodyType::dynamic_body && !world.is_asleep(id) ? 1 : 0;
  return awake;
}

// Steps until every dynamic body sleeps (at most `limit` steps); returns the steps taken.
int steps_until_asleep(World& world, const std::vector<BodyId>& bodies, int limit) {
  int steps = 0;
  while (awake_bodies(world, bodies) > 0 && steps < limit) {
    world.step(k_dt);
    ++steps;
  }
  return steps;
}

// Islands of joints falling asleep and waking change the equality block's pattern: its order and
// factor structure are found again, over buffers kept from the first, all-awake pattern. Three
// times one arm and one chain are pushed awake and left to fall asleep again; none of it
// allocates.
TEST(Allocation, JointedIslandsFallingAsleepAndWakingAllocateNothing) {
  World world = resting_jointed_islands();
  const std::vector<BodyId> bodies = world.bodies();
  ASSERT_LT(steps_until_asleep(world, bodies, 600), 600);
  for (int cycle = 0; cycle < 3; ++cycle) {
    world.set_linear_velocity(bodies[2 + 2 * cycle], {0, 0, 1});         // an arm's lower link
    world.set_linear_velocity(bodies[10 + 3 * (cycle % 2)], {0, 0, 1});  // a chain's middle link
    EXPECT_EQ(awake_bodies(world, bodies), 5u);
    g_allocations = 0;
    g_counting = true;
    const int steps = steps_until_asleep(world, bodies, 600);
    g_counting = false;
    EXPECT_LT(steps, 600) << "cycle " << cycle;
    EXPECT_EQ(g_allocations, 0u) << "cycle " << cycle;
  }
}

// The order's pool directly: three components of 6 x 6 grids of nodes (each pair coupled once,
// so the lists start tight and the fill moves them to the pool's end), analysed whole, then
// re-analysed as subsets of the components, renumbered, and whole again: a component takes the
// same room whatever else is in the pattern, so none of the re-analyses allocates.
TEST(Allocation, ReanalysingComponentsSeenBeforeAllocatesNothing) {
  constexpr std::uint32_t k_side = 6, k_nodes = k_side * k_side;
  const auto pattern = [&](std::initializer_list<std::uint32_t> components,
                           std::vector<std::uint32_t>& node_begin,
                           std::vector<std::pair<std::uint32_t, std::uint32_t>>& coupled) {
    node_begin.assign(1, 0);
    coupled.clear();
    std::uint32_t first = 0;
    for (const std::uint32_t component : components) {
      for (std::uint32_t k = 0; k < k_nodes; ++k) {
        node_begin.push_back(node_begin.back() + 1 + (component + k) % 3);
        coupled.emplace_back(first + k, first + k);
        if (k % k_side + 1 < k_side) coupled.emplace_back(first + k, first + k + 1);
        if (k + k_side < k_nodes) coupled.emplace_back(first + k, first + k + k_side);
      }
      first += k_nodes;
    }
  };
  std::vector<std::uint32_t> whole_begin, part_begin;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> whole_coupled, part_coupled;
  pattern({0, 1, 2}, whole_begin, whole_coupled);
  BlockLdlt ldlt;
  ldlt.analyse(whole_begin, whole_coupled);
  const std::size_t whole_values = ldlt.values().size();
  // Each subset's pattern is made before counting (the test's own vectors allocate).
  std::vector<std::vector<std::uint32_t>> begins;
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> couplings;
  for (const auto components :
       {std::initializer_list<std::uint32_t>{0, 2}, std::initializer_list<std::uint32_t>{1},
        std::initializer_list<std::uint32_t>{2, 1}}) {
    pattern(components, part_begin, part_coupled);
    begins.push_back(part_begin);
    couplings.push_back(part_coupled);
  }
  g_allocations = 0;
  g_counting = true;
  for (std::size_t k = 0; k < begins.size(); ++k)
    ldlt.analyse(begins[k], couplings[k]);
  ldlt.analyse(whole_begin, whole_coupled);
  g_counting = false;
  EXPECT_EQ(g_allocations, 0u);
  EXPECT_EQ(ldlt.values().size(), whole_values);
  // The grids fill in: the factor holds more than A's blocks.
  std::size_t blocks = 0;
  for (const auto& [a, b] : whole_coupled) {
    const std::size_t rows_a = whole_begin[a + 1] - whole_begin[a];
    blocks += rows_a * (whole_begin[b + 1] - whole_begin[b]);
  }
  EXPECT_GT(whole_values, blocks);
}

}  // namespace
}  // namespace impulse
