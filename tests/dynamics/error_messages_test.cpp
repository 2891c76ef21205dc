// The error messages docs/reliability.md quotes, exactly: the entry, the field and the problem.

#include <impulse/error.h>
#include <impulse/world.h>

#include <gtest/gtest.h>

#include <string>

namespace impulse {
namespace {

template <class E, class Call>
std::string message_of(Call call) {
  try {
    call();
  } catch (const E& e) {
    return e.what();
  }
  return "(nothing thrown)";
}

TEST(ErrorMessages, NameTheEntryTheFieldAndTheProblem) {
  World world;
  BodySettings sphere;
  sphere.shapes[0].geometry = Sphere{-1};
  EXPECT_EQ(message_of<InvalidArgument>([&] { world.create_body(sphere); }),
            "body settings: /shapes/0/radius: must be a finite number > 0");
  BodySettings point;
  point.shapes[0].geometry = ConvexHull{std::vector<Vec3>(4, Vec3{1, 2, 3})};
  EXPECT_EQ(message_of<InvalidArgument>([&] { world.create_body(point); }),
            "body settings: /shapes/0: convex hull: the points span no volume (they all coincide)");
  BodySettings dust;  // a 1 um sphere of 1e-30 kg: the inverse of its inertia overflows a float
  dust.shapes[0].geometry = Sphere{Real(1e-6)};
  dust.mass = Real(1e-30);
  EXPECT_EQ(message_of<InvalidArgument>([&] { world.create_body(dust); }),
            "body settings: /mass: the inertia or its inverse overflows single precision");
  BodySettings dense;  // 8e30 m^3 at 3e38 kg/m^3: the mass overflows, the volume is there
  dense.shapes[0].geometry = Box{Vec3::splat(Real(1e10))};
  dense.density = Real(3e38);
  EXPECT_EQ(message_of<InvalidArgument>([&] { world.create_body(dense); }),
            "body settings: /density: the shapes' mass or inertia at this density overflows "
            "single precision");
  BodySettings unturned;
  unturned.orientation = Quat{Real(1e-7), 0, 0, 0};
  EXPECT_EQ(message_of<InvalidArgument>([&] { world.create_body(unturned); }),
            "body settings: /orientation: a quaternion of length 1e-07 is no rotation (its length "
            "must be at least 1e-06)");
  EXPECT_EQ(message_of<InvalidArgument>([&] { world.step(0); }),
            "step: dt must be a finite number > 0");
  for (int i = 0; i < 3; ++i)
    world.create_body({});
  const BodyId removed = world.create_body({});
  world.remove_body(removed);
  EXPECT_EQ(message_of<StaleHandle>([&] { world.position(removed); }),
            "body handle " + std::to_string(removed.index) + ":" +
                std::to_string(removed.generation) + " does not name a live body");
  EXPECT_EQ(world.body_count(), 3u);
}

}  // namespace
}  // namespace impulse
