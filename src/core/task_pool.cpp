#include "core/task_pool.h"

#include "core/spin_wait.h"

#include <algorithm>

namespace impulse {

TaskPool::TaskPool(int threads)
    : shares_(std::make_unique<Share[]>(std::size_t(threads))),
      may_keep_awake_(unsigned(threads) <= std::max(1U, std::thread::hardware_concurrency())) {
  for (int member = 1; member < threads; ++member)
    workers_.emplace_back([this, member] { work(std::size_t(member)); });
}

TaskPool::~TaskPool() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& worker : workers_)
    worker.join();
}

void TaskPool::run_erased(std::size_t count, Erased task) {
  // A share's bounds are 32 bits each (Share); the loops give chunks, never that many.
  if (workers_.empty() || count <= 1 || std::uint64_t(count) > 0xffffffffU) {
    for (std::size_t i = 0; i < count; ++i)
      task(i);
    return;
  }
  const auto members = std::size_t(threads());
  for (std::size_t m = 0; m < members; ++m) {
    shares_[m].range.store(share_range(count * m / members, count * (m + 1) / members),
                           std::memory_order_relaxed);
  }
  // The team's start publishes the shares; its end (every member that joined has returned) makes
  // what the tasks wrote visible here.
  const auto member = [&](std::size_t m) { take_tasks(m, task); };
  run_team(member);
}

void TaskPool::run_team_erased(Erased member) {
  if (workers_.empty()) {
    member(0);
    return;
  }
  {
    const std::lock_guard lock(mutex_);
    team_ = member;
    teamed_ = teamed_in_stretch_ = true;
    joined_ = finished_ = 0;
    ++generation_;
  }
  wake_.notify_all();
  member(0);
  std::size_t joined = 0;
  {
    // Closed: a worker not in yet stays out. Waking one on a virtual machine can take
    // milliseconds, and it would find the team's work done.
    const std::lock_guard lock(mutex_);
    team_ = {};
    joined = joined_;
  }
  const auto all_done = [&] { return finished_ == joined; };
  spin_until(all_done, k_spin);
  std::unique_lock lock(mutex_);
  done_.wait(lock, all_done);
}

// A generation with no team: a sleeping worker wakes, finds none, and keeps looking while a guard
// lives. Not while a team is open (a worker done with it would take the new generation for
// another team and join it again), nor when no team ran since the last wake.
void TaskPool::wake_sleepers() {
  if (workers_.empty() || !may_keep_awake_) return;
  {
    const std::lock_guard lock(mutex_);
    if (team_.object != nullptr || !teamed_) return;
    teamed_ = false;
    ++generation_;
  }
  wake_.notify_all();
}

bool TaskPool::claim(Share& share, bool front, std::size_t& task) {
  std::uint64_t range = share.range.load(std::memory_order_relaxed);
  while (true) {
    const auto begin = std::size_t(range & 0xffffffffU), end = std::size_t(range >> 32);
    if (begin >= end) return false;
    const std::uint64_t rest = front ? share_range(begin + 1, end) : share_range(begin, end - 1);
    if (share.range.compare_exchange_weak(range, rest, std::memory_order_relaxed)) {
      task = front ? begin : end - 1;
      return true;
    }
  }
}

// Claims and runs the member's own share's tasks in order, then what is left of the others',
// from their backs.
void TaskPool::take_tasks(std::size_t member, Erased task) {
  const auto members = std::size_t(threads());
  for (std::size_t k = 0; k < members; ++k) {
    Share& share = shares_[(member + k) % members];
    for (std::size_t i = 0; claim(share, k == 0, i);)
      task(i);
  }
}

void TaskPool::work(std::size_t member) {
  std::size_t seen = 0;
  while (true) {
    Erased team;
    const auto called = [&] { return stopping_ || generation_ != seen; };
    while (!spin_until(called, k_spin) && may_keep_awake_ &&
           awake_.load(std::memory_order_relaxed) > 0)
      std::this_thread::yield();
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, called);
      if (stopping_) return;
      seen = generation_;
      team = team_;
      if (team.object != nullptr) ++joined_;
    }
    if (team.object == nullptr) continue;  // a team already closed
    team(member);
    const std::lock_guard lock(mutex_);
    ++finished_;
    done_.notify_one();
  }
}

TaskPoolInstance::TaskPoolInstance(int threads) : pool_(std::make_unique<TaskPool>(threads)) {}

TaskPoolInstance& TaskPoolInstance::operator=(const TaskPoolInstance& other) {
  if (this != &other) pool_ = std::make_unique<TaskPool>(1);
  return *this;
}

}  // namespace impulse
