#include "debug_draw.h"

#include <numbers>

namespace impulse::testbed {
namespace {

constexpr Color k_point_color{1.0f, 0.9f, 0.2f};
constexpr Color k_speculative_color{0.6f, 0.6f, 0.6f};  // a gap, not a touch
constexpr Color k_normal_color{0.3f, 0.9f, 1.0f};
constexpr Color k_normal_impulse_color{1.0f, 0.3f, 0.3f};
constexpr Color k_friction_impulse_color{1.0f, 0.6f, 0.1f};
constexpr Color k_leaf_color{0.3f, 0.9f, 0.4f};
constexpr Color k_node_color{0.7f, 0.4f, 0.9f};
constexpr Color k_com_color{1.0f, 1.0f, 1.0f};
constexpr Color k_joint_color{0.4f, 1.0f, 0.6f};
constexpr Color k_joint_gap_color{1.0f, 0.1f, 0.1f};
constexpr Color k_broken_joint_color{0.45f, 0.45f, 0.45f};
constexpr Real k_point_size = Real(0.04);  // m
constexpr Real k_anchor_size = Real(0.08);
constexpr Real k_visible_gap = Real(1e-3);  // m: anchors closer than this look joined anyway
constexpr Real k_normal_length = Real(0.3);
constexpr Real k_frame_size = Real(0.25);  // m: the joint frame's axes and its limit marks
constexpr Color k_limit_color{1.0f, 0.8f, 0.2f};
constexpr int k_arc_segments = 16;

// The joint frame's axes at the anchor (x red, y green, z blue), and its limits: a hinge's angle
// range as an arc about x from the y axis, a slider's range along x, a cone's rim, a twist range.
void add_frame_and_limits(const JointSettings& s, const JointState& state, LineBatch& lines) {
  const Vec3 at = state.anchor_a;
  const Quat& f = state.frame_a;
  const Vec3 x = rotate(f, Vec3::unit_x()), y = rotate(f, Vec3::unit_y());
  lines.line(at, at + x * k_frame_size, {1.0f, 0.3f, 0.3f});
  lines.line(at, at + y * k_frame_size, {0.3f, 1.0f, 0.3f});
  lines.line(at, at + rotate(f, Vec3::unit_z()) * k_frame_size, {0.3f, 0.5f, 1.0f});
  const auto arc = [&](const Vec3& center, const Vec3& axis, const Vec3& from, Range range) {
    Vec3 last = center + rotate(Quat::from_axis_angle(axis, range.lo), from);
    for (int k = 1; k <= k_arc_segments; ++k) {
      const Real angle = range.lo + (range.hi - range.lo) * Real(k) / k_arc_segments;
      const Vec3 next = center + rotate(Quat::from_axis_angle(axis, angle), from);
      lines.line(last, next, k_limit_color);
      last = next;
    }
  };
  switch (s.type) {
    case JointType::hinge:
      if (s.limits) arc(at, x, y * k_frame_size, *s.limits);
      break;
    case JointType::prismatic:
      if (s.limits) lines.line(at + x * s.limits->lo, at + x * s.limits->hi, k_limit_color);
      break;
    case JointType::cone_twist: {
      // The rim: where b's twist axis may reach, swing_limit off a's x.
      const Vec3 tip = rotate(Quat::from_axis_angle(y, s.swing_limit), x * k_frame_size);
      arc(at, x, tip, {-std::numbers::pi_v<Real>, std::numbers::pi_v<Real>});
      arc(at, x, y * (k_frame_size / 2), s.twist_limits);
      break;
    }
    default:
      break;
  }
}

}  // namespace

void add_debug_lines(const World& world, const std::vector<DebugContact>& contacts,
                     const DrawOptions& options, LineBatch& lines) {
  for (const DebugContact& c : contacts) {
    if (options.contact_points)
      lines.cross_mark(c.position, k_point_size, c.depth < 0 ? k_speculative_color : k_point_color);
    if (options.contact_normals)
      lines.arrow(c.position, c.position + c.normal * k_normal_length, k_normal_color);
    if (options.contact_impulses) {
      const Real scale = options.impulse_scale;
      // The impulse on body b, along the normal from a to b, and its friction part.
      lines.arrow(c.position, c.position + c.normal * (c.normal_impulse * scale),
                  k_normal_impulse_color);
      lines.arrow(c.position, c.position + c.friction_impulse * scale, k_friction_impulse_color);
    }
  }
  if (options.aabbs || options.tree) {
    for (const DebugTreeBox& node : world.debug_tree()) {
      const bool leaf = node.height == 0;
      if (leaf ? options.aabbs : options.tree)
        lines.box(node.box, leaf ? k_leaf_color : k_node_color);
    }
  }
  if (options.centers_of_mass) {
    for (const BodyId id : world.bodies()) {
      if (world.type(id) == BodyType::dynamic_body)
        lines.cross_mark(world.center_of_mass(id), Real(0.15), k_com_color);
    }
  }
}

void add_joint_lines(const World& world, LineBatch& lines) {
  for (const JointId id : world.joints()) {
    const JointSettings& settings = world.joint_settings(id);
    const JointState& state = world.joint_state(id);
    const Color color = state.broken ? k_broken_joint_color : k_joint_color;
    // A null body is the world: its anchor is fixed, with no centre of mass to draw from.
    if (!settings.body_a.is_null())
      lines.line(world.center_of_mass(settings.body_a), state.anchor_a, color);
    if (!settings.body_b.is_null())
      lines.line(world.center_of_mass(settings.body_b), state.anchor_b, color);
    lines.cross_mark(state.anchor_a, k_anchor_size, color);
    lines.cross_mark(state.anchor_b, k_anchor_size, color);
    if (distance(state.anchor_a, state.anchor_b) > k_visible_gap)
      lines.line(state.anchor_a, state.anchor_b, state.broken ? color : k_joint_gap_color);
    if (!state.broken) add_frame_and_limits(settings, state, lines);
  }
}

}  // namespace impulse::testbed
