#pragma once
// Mass properties of a convex polyhedron of uniform density.

#include <impulse/body.h>

#include "collision/convex_hull.h"

namespace impulse {

/// Mass, centre of mass and inertia tensor (about the centre of mass, body axes) of a hull filled
/// with the given density (kg/m^3).
MassProperties polyhedron_mass_properties(const HullData& hull, Real density);

}  // namespace impulse
