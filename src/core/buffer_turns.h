#pragma once
// Two buffers that take turns holding something's current state and its last (a solver's layout
// and the one before it), swapped at each turn. Whenever the current one is filled, the other is
// given as much room (share_room): the one taking the next turn then has room for what this one
// holds, and buffers warmed up allocate no more.

namespace impulse {

template <class Buffer>
void share_room(const Buffer& filled, Buffer& other) {
  if (other.capacity() < filled.capacity()) other.reserve(filled.capacity());
}

}  // namespace impulse
