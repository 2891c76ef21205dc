#include "ball_shooter.h"

namespace impulse::testbed {

BodyId BallShooter::shoot(World& world, const Ray& ray) const {
  BodySettings ball;
  ball.shapes = {ShapeSettings{Sphere{radius}, {}}};
  // Out of the near plane and clear of the eye, so that the first frame shows it.
  ball.position = ray.origin + ray.direction * Real(2 * radius + 0.5f);
  ball.linear_velocity = ray.direction * speed;
  ball.density = density;
  return world.create_body(ball);
}

}  // namespace impulse::testbed
