#include "dynamics/custom_constraints.h"

#include <impulse/error.h>

namespace impulse {
namespace {

class ValidatingRowWriter final : public RowWriter {
 public:
  ValidatingRowWriter(const World& world, std::vector<ConstraintRow>& out)
      : world_(world), out_(out) {}

  void add(const ConstraintRow& row) override {
    const std::string where = "custom constraint row " + std::to_string(out_.size()) + ": ";
    if (!world_.is_valid(row.body_a)) throw StaleHandle(where + "body_a is not a live body");
    if (!row.body_b.is_null() && !world_.is_valid(row.body_b))
      throw StaleHandle(where + "body_b is not a live body");
    if (row.body_a == row.body_b) throw InvalidArgument(where + "a row between a body and itself");
    if (!is_finite(row.linear_a) || !is_finite(row.angular_a) || !is_finite(row.linear_b) ||
        !is_finite(row.angular_b) || !is_finite(row.bias))
      throw InvalidArgument(where + "the Jacobian and bias must be finite");
    if (std::isnan(row.lo) || std::isnan(row.hi) || row.lo > row.hi)
      throw InvalidArgument(where + "the bounds must satisfy lo <= hi");
    if (row.friction_of >= 0 &&
        (std::size_t(row.friction_of) >= out_.size() || !is_finite(row.mu) || row.mu < 0))
      throw InvalidArgument(where +
                            "friction_of must name an earlier row and mu be finite and >= 0");
    out_.push_back(row);
  }

 private:
  const World& world_;
  std::vector<ConstraintRow>& out_;
};

}  // namespace

void collect_custom_rows(const World& world, World::Impl& impl, Real dt) {
  for (World::Impl::CustomConstraintRecord& record : impl.custom_constraints) {
    if (!record.alive) continue;
    record.rows.clear();
    ValidatingRowWriter writer(world, record.rows);
    record.build(world, dt, writer);
  }
}

void write_custom_rows(World::Impl& impl) {
  for (World::Impl::CustomConstraintRecord& record : impl.custom_constraints) {
    if (!record.alive) continue;
    record.first_row = impl.rows.size();
    const auto first = std::int32_t(record.first_row);
    impl.rows.begin_block();
    for (std::size_t k = 0; k < record.rows.size(); ++k) {
      const ConstraintRow& row = record.rows[k];
      RowSpec spec;
      spec.body_a = row.body_a.index;
      spec.body_b = row.body_b.is_null() ? World::Impl::k_world_slot : row.body_b.index;
      spec.j_lin_a = row.linear_a;
      spec.j_ang_a = row.angular_a;
      spec.j_lin_b = row.linear_b;
      spec.j_ang_b = row.angular_b;
      spec.bias = row.bias;
      spec.lo = row.lo;
      spec.hi = row.hi;
      spec.normal_row = row.friction_of < 0 ? -1 : first + row.friction_of;
      spec.mu = row.mu;
      // Rows are matched to last step's by their position in the constraint.
      spec.lambda = k < record.impulses.size() ? record.impulses[k] : 0;
      impl.rows.add(spec);
    }
    impl.rows.end_block();
  }
}

void store_custom_impulses(World::Impl& impl) {
  for (World::Impl::CustomConstraintRecord& record : impl.custom_constraints) {
    if (!record.alive) continue;
    const auto first = impl.rows.lambda.begin() + std::ptrdiff_t(record.first_row);
    record.impulses.assign(first, first + std::ptrdiff_t(record.rows.size()));
  }
}

}  // namespace impulse
