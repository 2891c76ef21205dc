#include "collision/shape_pairs.h"

#include "collision/box_box.h"
#include "collision/plane_pairs.h"
#include "collision/primitives.h"
#include "core/overloaded.h"

namespace impulse {
namespace {

using HullPtr = std::shared_ptr<const HullData>;
using MeshPtr = std::shared_ptr<const MeshShape>;

// Each routine takes the lower-ranked shape first; the other order is turned around.
int rank(const CookedShape& shape) {
  constexpr int k_rank[] = {0, 2, 1, 3, 4, 5};  // sphere, box, capsule, hull, plane, mesh
  return k_rank[shape.index()];
}

// Runs one convex routine into a new manifold, keeping it only when it found points.
template <class Routine>
void add_if_touching(std::vector<Manifold>& out, Routine&& routine) {
  Manifold& m = out.emplace_back();
  if (!routine(m)) out.pop_back();
}

void collide_ordered(const CookedShape& a, const Transform& ta, const CookedShape& b,
                     const Transform& tb, Real margin, std::vector<Manifold>& out, Real* box_gap,
                     std::span<const MeshTouch> touched) {
  // One routine per primitive pair, then the families against hulls, planes and meshes.
  const auto touching = [&](auto routine) { add_if_touching(out, routine); };
  std::optional<BoxPolyhedron> box_storage;
  std::visit(
      Overloaded{
          [&](const Sphere& sa, const Sphere& sb) {
            touching([&](Manifold& m) { return collide_sphere_sphere(sa, ta, sb, tb, margin, m); });
          },
          [&](const Sphere& sa, const Capsule& sb) {
            touching(
                [&](Manifold& m) { return collide_sphere_capsule(sa, ta, sb, tb, margin, m); });
          },
          [&](const Capsule& sa, const Capsule& sb) {
            touching(
                [&](Manifold& m) { return collide_capsule_capsule(sa, ta, sb, tb, margin, m); });
          },
          [&](const Sphere& sa, const Box& sb) {
            touching([&](Manifold& m) { return collide_sphere_box(sa, ta, sb, tb, margin, m); });
          },
          [&](const Capsule& sa, const Box& sb) {
            touching([&](Manifold& m) { return collide_capsule_box(sa, ta, sb, tb, margin, m); });
          },
          [&](const Box& sa, const Box& sb) {
            touching(
                [&](Manifold& m) { return collide_box_box(sa, ta, sb, tb, margin, m, box_gap); });
          },
          // Hulls: any convex shape against a hull's polyhedron.
          [&](const auto&, const HullPtr& hull) {
            const std::optional<ConvexRef> convex = convex_ref(a, box_storage);
            if (!convex) return;
            touching([&](Manifold& m) {
              return std::visit(
                  Overloaded{
                      [&](const Sphere& s) {
                        return collide_sphere_polyhedron(s, ta, hull->view(), tb, margin, m);
                      },
                      [&](const Capsule& c) {
                        return collide_capsule_polyhedron(c, ta, hull->view(), tb, margin, m);
                      },
                      [&](const PolyhedronView& p) {
                        return collide_polyhedra(p, ta, hull->view(), tb, margin, m);
                      },
                  },
                  *convex);
            });
          },
          [&](const auto&, const Plane& plane) {
            const std::optional<ConvexRef> convex = convex_ref(a, box_storage);
            if (!convex) return;  // planes and meshes are static: they never meet
            touching([&](Manifold& m) {
              return collide_convex_plane(*convex, ta, plane, tb, margin, m);
            });
          },
          [&](const auto&, const MeshPtr& mesh) {
            const std::optional<ConvexRef> convex = convex_ref(a, box_storage);
            if (convex) collide_convex_mesh(*convex, ta, *mesh, tb, margin, out, touched);
          },
          // Every other order is handled by collide_shapes turning the pair around.
          [](const auto&, const auto&) {},
      },
      a, b);
}

}  // namespace

void flip_manifold(Manifold& manifold) {
  for (int k = 0; k < manifold.count; ++k) {
    ContactPoint& p = manifold.points[std::size_t(k)];
    p.position += manifold.normal * p.depth;  // onto the other surface
    p.id = p.id.flipped();
  }
  manifold.normal = -manifold.normal;
  if (manifold.normal_face != NormalFace::none)
    manifold.normal_face = manifold.normal_face == NormalFace::a ? NormalFace::b : NormalFace::a;
}

void collide_shapes(const CookedShape& a, const Transform& ta, const CookedShape& b,
                    const Transform& tb, Real margin, std::vector<Manifold>& out, Real* box_gap,
                    std::span<const MeshTouch> touched) {
  if (rank(a) <= rank(b)) {
    collide_ordered(a, ta, b, tb, margin, out, box_gap, touched);
    return;
  }
  const std::size_t first = out.size();
  collide_ordered(b, tb, a, ta, margin, out, box_gap, touched);
  for (std::size_t i = first; i < out.size(); ++i)
    flip_manifold(out[i]);
}

}  // namespace impulse
