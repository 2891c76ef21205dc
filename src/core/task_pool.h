#pragma once
// A fixed pool of worker threads for the step's parallel loops. Results never depend on the
// thread count: a loop's tasks write disjoint data, and what they produce is gathered in task
// order by the caller, so a world steps to the same bits on one thread or many (DESIGN.md).

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

namespace impulse {

class TaskPool {
 public:
  /// threads >= 1: the calling thread and threads - 1 workers.
  explicit TaskPool(int threads = 1);
  TaskPool(const TaskPool&) = delete;
  TaskPool& operator=(const TaskPool&) = delete;
  ~TaskPool();

  int threads() const { return int(workers_.size()) + 1; }
  /// Runs task(i) for every i in [0, count) and returns when all have run. Tasks must not throw
  /// and must not write what another task reads or writes. Neither this nor run_team may be
  /// called from inside a task or a member. Each thread starts on a contiguous share of the
  /// indices and then helps with the others' leftovers, from their ends: neighbouring tasks
  /// (neighbouring rows of a column) mostly stay on one core, so cache lines are not passed
  /// between cores at every task boundary.
  template <class Task>
  void run(std::size_t count, const Task& task) {
    run_erased(count, erase<Task>(task));
  }
  /// Holds the workers awake while it lives (a sub-step in progress): between loops a worker keeps
  /// looking for the next, yielding its core between looks, instead of sleeping once k_spin has
  /// passed. A step's serial stretches (gathering contacts, cutting the solve's schedule) outlast
  /// k_spin on a large scene, and a worker woken from its condition variable comes back tens of
  /// microseconds late, on a virtual machine often more, every time. The first guard wakes the
  /// workers that sleep (between steps they do) if the last guarded stretch ran a team, so that
  /// they are back by the step's first loop rather than arriving halfway through it; a step whose
  /// loops all stay on the calling thread (a small scene) leaves them asleep. Guards may nest, and
  /// must not start inside a team. A pool of more threads than the machine has cores sleeps as
  /// before: its workers would take the cores that the others' work needs.
  class KeepAwake {
   public:
    explicit KeepAwake(TaskPool& pool) : pool_(pool) {
      if (pool_.awake_.fetch_add(1, std::memory_order_relaxed) != 0) return;
      pool_.teamed_in_stretch_ = false;
      pool_.wake_sleepers();
    }
    KeepAwake(const KeepAwake&) = delete;
    KeepAwake& operator=(const KeepAwake&) = delete;
    ~KeepAwake() { pool_.awake_.fetch_sub(1, std::memory_order_relaxed); }

   private:
    TaskPool& pool_;
  };

  /// Whether a team has run since the outermost KeepAwake guard alive began: the stretch has paid
  /// for its workers and spread its data over the cores already, so a loop too light to be worth
  /// a team of its own (a hundred joints) may share its work too. Read on the calling thread.
  bool teamed_in_stretch() const { return teamed_in_stretch_; }

  /// Runs member(0) on the calling thread and member(k), 0 < k < threads(), on worker k for each
  /// worker that joins before member 0 returns; returns when every member that ran has returned.
  /// A worker that is late (asleep, or its core taken) is left out rather than waited for, so
  /// members may wait for work another member has claimed, never for a member to arrive
  /// (PhasedWork). Members must not throw.
  template <class Member>
  void run_team(const Member& member) {
    run_team_erased(erase<Member>(member));
  }

 private:
  // A callable by reference, without std::function's allocation for a lambda's captures: a step
  // allocates nothing once warmed up.
  struct Erased {
    const void* object = nullptr;
    void (*call)(const void*, std::size_t) = nullptr;
    void operator()(std::size_t i) const { call(object, i); }
  };
  template <class F>
  static Erased erase(const F& f) {
    return {&f, [](const void* object, std::size_t i) { (*static_cast<const F*>(object))(i); }};
  }
  void run_erased(std::size_t count, Erased task);
  void run_team_erased(Erased member);
  void wake_sleepers();
  void work(std::size_t member);
  void take_tasks(std::size_t member, Erased task);

  // A member's share of a run's indices [begin, end), packed in one word: claimed from the front
  // by its member, from the back by the others once theirs are done (a late worker's share is
  // done by whoever is there). Taken from the back, the tasks another member takes are the ones
  // its owner would have reached last, not the first ones it is about to start on, so from run to
  // run a task's data mostly stays on one core. A cache line each: the members claim side by side.
  struct alignas(64) Share {
    std::atomic<std::uint64_t> range = 0;  // begin in the low half, end in the high half
  };
  static std::uint64_t share_range(std::size_t begin, std::size_t end) {
    return std::uint64_t(end) << 32 | std::uint64_t(begin);
  }
  // Claims the first (front) or last task of the share; false if none is left.
  static bool claim(Share& share, bool front, std::size_t& task);

  std::vector<std::thread> workers_;
  std::unique_ptr<Share[]> shares_;  // one per member, set before a run's team starts
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  Erased team_;                     // the current team's member (null object: none, or closed)
  bool teamed_ = false;             // a team ran since the last wake_sleepers (under mutex_)
  bool teamed_in_stretch_ = false;  // teamed_in_stretch(); the calling thread's alone
  // Written under mutex_; the atomics are also read without it, by a thread spinning before it
  // sleeps (spin_until): the step's loops follow each other within microseconds, and a thread
  // woken from a condition variable takes tens of them to run again.
  static constexpr std::chrono::microseconds k_spin{50};
  std::size_t joined_ = 0;  // workers in the current team
  std::atomic<std::size_t> finished_ = 0;
  std::atomic<std::size_t> generation_ = 0;  // bumped for every team: a worker joins once per team
  std::atomic<bool> stopping_ = false;
  std::atomic<int> awake_ = 0;   // KeepAwake guards alive
  bool may_keep_awake_ = false;  // no more threads than cores
};

/// Whether run_chunks runs count items on the pool's threads.
inline bool chunks_in_parallel(const TaskPool* pool, std::size_t count, std::size_t parallel_from) {
  return pool != nullptr && pool->threads() > 1 && count >= parallel_from;
}

/// Cuts [0, count) into `chunks` ranges by count alone and runs task(chunk, begin, end) for each:
/// on the pool's threads (if given) from parallel_from items on, else on the calling thread. What
/// a chunk produces depends on its range alone, so a reduction over the chunks in chunk order gives
/// the same bits on any number of threads.
template <class Task>
void run_chunks(TaskPool* pool, std::size_t count, std::size_t chunks, std::size_t parallel_from,
                const Task& task) {
  const auto chunk = [&](std::size_t c) { task(c, count * c / chunks, count * (c + 1) / chunks); };
  if (chunks_in_parallel(pool, count, parallel_from)) {
    pool->run(chunks, chunk);
    return;
  }
  for (std::size_t c = 0; c < chunks; ++c)
    chunk(c);
}

/// The chunks for run_chunks where a task's chunk index only names where its results go: `chunks`
/// on the pool's threads, one on the calling thread, where a small scene's sixteen or sixty-four
/// nearly empty chunks cost more than their items. (A task that derives its own ranges from the
/// index keeps its fixed count.)
inline std::size_t chunks_on(const TaskPool* pool, std::size_t count, std::size_t chunks,
                             std::size_t parallel_from) {
  return chunks_in_parallel(pool, count, parallel_from) ? chunks : 1;
}

/// run_chunks in chunks_on's chunks for a task whose every item stands alone: task(begin, end).
template <class Task>
void run_ranges(TaskPool* pool, std::size_t count, std::size_t chunks, std::size_t parallel_from,
                const Task& task) {
  run_chunks(pool, count, chunks_on(pool, count, chunks, parallel_from), parallel_from,
             [&](std::size_t, std::size_t begin, std::size_t end) { task(begin, end); });
}

/// run_chunks over the items of a span: task(chunk, the chunk's items).
template <class T, class Task>
void run_span_chunks(TaskPool* pool, std::span<T> items, std::size_t chunks,
                     std::size_t parallel_from, const Task& task) {
  run_chunks(pool, items.size(), chunks, parallel_from,
             [&](std::size_t chunk, std::size_t begin, std::size_t end) {
               task(chunk, items.subspan(begin, end - begin));
             });
}

/// A world's pool. The thread count belongs to the world, not to its state: a copy (a snapshot's)
/// is a pool of one thread, which starts none, and World::restore keeps the world's own pool.
class TaskPoolInstance {
 public:
  explicit TaskPoolInstance(int threads = 1);
  TaskPoolInstance(const TaskPoolInstance&) : TaskPoolInstance(1) {}
  TaskPoolInstance& operator=(const TaskPoolInstance& other);
  TaskPoolInstance(TaskPoolInstance&&) noexcept = default;
  TaskPoolInstance& operator=(TaskPoolInstance&&) noexcept = default;
  ~TaskPoolInstance() = default;
  TaskPool* operator->() const { return pool_.get(); }
  TaskPool& operator*() const { return *pool_; }

 private:
  std::unique_ptr<TaskPool> pool_;
};

}  // namespace impulse
