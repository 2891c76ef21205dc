#pragma once
// What the testbed draws besides the bodies: the debug-draw toggles.

namespace impulse::testbed {

struct DrawOptions {
  bool grid = true;
  bool color_islands = true;   // awake bodies of one island share a colour
  bool color_sleeping = true;  // sleeping bodies in grey-blue
  bool contact_points = false;
  bool contact_normals = false;
  bool contact_impulses = false;
  bool feature_ids = false;     // each contact's feature id as a label, green when warm-started
  float impulse_scale = 0.02f;  // m of arrow per N s
  bool aabbs = false;           // the broadphase tree's leaves: each shape's fat box
  bool tree = false;            // its internal nodes
  bool centers_of_mass = false;
  bool joints = false;  // anchors, the lines to them from the centres of mass, and the gaps
};

}  // namespace impulse::testbed
