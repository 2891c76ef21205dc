#include "core/task_pool.h"

#include "core/spin_wait.h"

namespace impulse {

TaskPool::TaskPool(int threads) {
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
  if (workers_.empty() || count <= 1) {
    for (std::size_t i = 0; i < count; ++i)
      task(i);
    return;
  }
  {
    const std::lock_guard lock(mutex_);
    task_ = task;
    count_ = count;
    next_ = finished_ = 0;
    ++generation_;
  }
  wake_.notify_all();
  take_tasks();
  const auto all_done = [&] { return finished_ == count_; };
  spin_until(all_done, k_spin);
  std::unique_lock lock(mutex_);
  done_.wait(lock, all_done);
  task_ = {};
}

void TaskPool::run_team_erased(Erased member) {
  if (workers_.empty()) {
    member(0);
    return;
  }
  {
    const std::lock_guard lock(mutex_);
    team_ = member;
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

// Takes tasks one at a time until none is left; the index is claimed under the lock, the task
// runs outside it.
void TaskPool::take_tasks() {
  std::unique_lock lock(mutex_);
  while (task_.object != nullptr && next_ < count_) {
    const std::size_t i = next_++;
    const Erased task = task_;
    lock.unlock();
    task(i);
    lock.lock();
    if (++finished_ == count_) done_.notify_one();
  }
}

void TaskPool::work(std::size_t member) {
  std::size_t seen = 0;
  while (true) {
    Erased team;
    const auto called = [&] { return stopping_ || generation_ != seen; };
    spin_until(called, k_spin);
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, called);
      if (stopping_) return;
      seen = generation_;
      team = team_;
      if (team.object != nullptr) ++joined_;
    }
    if (team.object == nullptr) {  // a loop's tasks, or a team already closed
      take_tasks();
      continue;
    }
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
