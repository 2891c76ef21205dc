#include "replay_player.h"

#include <impulse/scene.h>

#include <algorithm>

namespace impulse::testbed {

ReplayPlayer::ReplayPlayer(Replay replay)
    : replay_(std::move(replay)),
      world_(build_world(replay_.scene, replay_.scene.name)),
      ids_(world_.bodies()) {
  seek(0);
}

const ReplayFrame* ReplayPlayer::current() const {
  return replay_.frames.empty() ? nullptr : &replay_.frames[std::size_t(frame_)];
}

void ReplayPlayer::seek(int index) {
  frame_ = std::clamp(index, 0, std::max(frame_count() - 1, 0));
  clock_ = 0;
  contacts_.clear();
  const ReplayFrame* frame = current();
  if (frame == nullptr) return;
  for (std::size_t i = 0; i < ids_.size(); ++i)
    world_.set_transform(ids_[i], frame->transforms[i]);
  const auto id_of = [&](std::size_t body) { return body < ids_.size() ? ids_[body] : BodyId{}; };
  for (const ReplayContact& c : frame->contacts) {
    DebugContact contact;
    contact.body_a = id_of(c.body_a);
    contact.body_b = id_of(c.body_b);
    contact.position = c.position;
    contact.normal = c.normal;
    contact.depth = c.depth;
    contact.normal_impulse = c.normal_impulse;
    contact.friction_impulse = c.friction_impulse;
    contacts_.push_back(contact);
  }
}

void ReplayPlayer::advance(double frame_time) {
  if (!playing) return;
  const double timestep = double(replay_.scene.settings.timestep);
  double clock = clock_ + frame_time * double(time_scale);
  int frame = frame_;
  while (clock >= timestep && frame + 1 < frame_count()) {
    clock -= timestep;
    ++frame;
  }
  if (frame != frame_) seek(frame);
  clock_ = clock;
  if (frame_ + 1 >= frame_count()) playing = false;
}

}  // namespace impulse::testbed
