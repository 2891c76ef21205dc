#pragma once
// Shooting a ball from the camera: a dynamic sphere leaving the eye along the view ray.

#include <impulse/world.h>

#include "camera.h"

namespace impulse::testbed {

struct BallShooter {
  float radius = 0.3f;  // m
  float speed = 25;     // m/s
  float density = 2000;

  BodyId shoot(World& world, const Ray& ray) const;
};

}  // namespace impulse::testbed
