// The README's custom-constraint example: a body's centre held on the plane y = 0 by a row of
// its own, while gravity pulls and it slides along x. Compiled so it cannot rot.
#include <impulse/world.h>

#include <cstdio>

int main() {
  impulse::World world;
  impulse::BodySettings ball;
  ball.shapes = {{impulse::Sphere{0.5f}, {}}};
  ball.linear_velocity = {1, 0, 0};
  const impulse::BodyId id = world.create_body(ball);

  const impulse::ConstraintId c = world.add_custom_constraint(
      [id](const impulse::World& w, impulse::Real dt, impulse::RowWriter& rows) {
        impulse::ConstraintRow row;  // C = y, dC/dt = v.y: J = [0 1 0 | 0 0 0]
        row.body_a = id;
        row.linear_a = {0, 1, 0};
        row.bias = -w.settings().solver.baumgarte / dt * w.center_of_mass(id).y;
        rows.add(row);
      });

  for (int i = 0; i < 60; ++i)
    world.step(1.0f / 60.0f);
  const impulse::Vec3 p = world.position(id);
  std::printf("after 1 s: position (%.3f, %.3f, %.3f) m, last impulse %.3f N s\n", p.x, p.y, p.z,
              world.custom_constraint_impulses(c)[0]);
}
