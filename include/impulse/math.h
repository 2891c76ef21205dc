#pragma once
// The math of Impulse: Real, Vec3, Mat33, Quat, Transform, AABB.

#include <impulse/math/aabb.h>
#include <impulse/math/mat33.h>
#include <impulse/math/quat.h>
#include <impulse/math/real.h>
#include <impulse/math/transform.h>
#include <impulse/math/vec3.h>
