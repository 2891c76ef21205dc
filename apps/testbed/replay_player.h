#pragma once
// Plays a replay: a world built from the replay's scene whose bodies are put, frame by frame, where
// the recording says (never stepped), with play, pause and seeking.

#include <impulse/world.h>

#include <vector>

#include "replay.h"

namespace impulse::testbed {

class ReplayPlayer {
 public:
  /// Throws SceneError when the replay's scene builds no world; shows the first frame.
  explicit ReplayPlayer(Replay replay);

  /// Moves on by the frames due after frame_time seconds of wall time (scaled), when playing;
  /// stops at the last frame.
  void advance(double frame_time);
  /// Shows frame `index`, clamped to the recording.
  void seek(int index);

  int frame() const { return frame_; }
  int frame_count() const { return int(replay_.frames.size()); }
  const ReplayFrame* current() const;  // null for a replay without steps
  const Replay& replay() const { return replay_; }
  const World& world() const { return world_; }
  /// The current frame's contact points, with this world's body handles.
  const std::vector<DebugContact>& contacts() const { return contacts_; }

  bool playing = true;
  float time_scale = 1;

 private:
  Replay replay_;
  World world_;
  std::vector<BodyId> ids_;  // in the replay's body order
  int frame_ = 0;
  double clock_ = 0;  // s of recorded time since the current frame
  std::vector<DebugContact> contacts_;
};

}  // namespace impulse::testbed
