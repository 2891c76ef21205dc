// The README's example: a box dropped onto the ground. Compiled so it cannot rot.
#include <impulse/world.h>

#include <cstdio>

int main() {
  impulse::World world;  // gravity -9.81 m/s^2 along y, 60 Hz
  impulse::BodySettings ground;
  ground.type = impulse::BodyType::static_body;
  ground.shapes = {{impulse::Box{{20, 0.5f, 20}}, {}}};
  ground.position = {0, -0.5f, 0};
  world.create_body(ground);

  impulse::BodySettings box;  // dynamic, a 1 m cube of density 1000 by default
  box.position = {0, 10, 0};
  const impulse::BodyId id = world.create_body(box);

  for (int i = 0; i < 60; ++i)
    world.step(1.0f / 60.0f);
  const impulse::Transform t = world.transform(id);
  std::printf("after 1 s: y = %.3f m, q = [%.2f %.2f %.2f %.2f]\n", t.position.y, t.orientation.x,
              t.orientation.y, t.orientation.z, t.orientation.w);
}
