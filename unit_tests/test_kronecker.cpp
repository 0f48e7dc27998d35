// The Kronecker operator (seed 001) on one process, every backend: against
// the explicitly formed product on random systems (shared and separate
// patterns, s = 1..6 across the 4-column chunks, b = 1..5), GMRES against a
// dense solve, the stage preconditioner's effect, and named errors.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "dense_solve.hpp"
#include "kronecker.hpp"
#include "spmv.hpp"
#include "test_support.hpp"
#include "trellis/gallery/kronecker_problems.hpp"
#include "trellis/solvers/gmres.hpp"
#include "trellis/solvers/kronecker_operator.hpp"
#include "trellis/solvers/preconditioners/identity.hpp"
#include "trellis/solvers/preconditioners/kronecker_stages.hpp"

namespace trellis {
namespace {

using test::device_vector;
using test::host_vector;
using test::random_vector;

template <class Device>
class KroneckerOnBackend : public ::testing::Test {};
TYPED_TEST_SUITE(KroneckerOnBackend, test::Backends, test::BackendNames);

/// y = K x through the operator, y prefilled with NaN (every entry must be written).
template <class Device>
std::vector<double> apply(const KroneckerOperator<double, Device>& K, const std::vector<double>& x) {
  const auto xd = device_vector<Device>(x);
  Kokkos::View<double*, Device> y("y", x.size());
  Kokkos::deep_copy(y, std::numeric_limits<double>::quiet_NaN());
  K.apply(xd, y);
  return host_vector(y);
}

TYPED_TEST(KroneckerOnBackend, MatchesTheFormedProduct) {
  using Device = TypeParam;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  int case_id = 0;
  for (const bool shared : {true, false})
    for (const int s : {1, 2, 3, 4, 5, 6})
      for (const int b : {1, 2, 4, 5}) {
        const ordinal_t n = 5 + ordinal_t((seed + case_id) % 23);
        const auto sys = gallery::random_kronecker(n, b, s, seed + case_id++, shared);
        for (const bool merge : {true, false})
          for (const auto mapping :
               {KroneckerMapping::block_per_lane, KroneckerMapping::entry_per_lane, KroneckerMapping::row_per_thread}) {
            SCOPED_TRACE("shared " + std::to_string(shared) + " s " + std::to_string(s) + " b " + std::to_string(b) +
                         " n " + std::to_string(n) + " merge " + std::to_string(merge) + " mapping " +
                         std::to_string(int(mapping)));
            KroneckerOptions o;
            o.merge_shared_pattern = merge;
            o.mapping = mapping;
            const KroneckerOperator<double, Device> K(sys, o);
            EXPECT_EQ(K.num_rows(), sys.num_rows());
            EXPECT_EQ(K.shared_pattern(), shared);
            EXPECT_EQ(K.merged(), shared && merge);
            const auto x = random_vector(size_t(sys.num_rows()), seed + 7 * case_id);
            const auto y_ref = reference::multiply(reference::kronecker_product(sys), x);
            const auto y = apply(K, x);
            EXPECT_LT(test::relative_error(y, y_ref), 1e-13);
          }
      }
}

/// Zeroes the entries of every block of X outside `keep` (bit r * b + c).
void zero_outside(HostBsr& X, BlockMask keep) {
  const size_t bb = size_t(X.block_size) * X.block_size;
  for (size_t v = 0; v < X.values.extent(0); ++v)
    if (!((keep >> (v % bb)) & 1)) X.values(v) = 0;
}

// Blocks packed to their matrix's nonzero entries: the same product as the
// formed one on every mapping, with a random mask per matrix (an entry kept
// by the mask may still be zero in some blocks), and the Stokes-like
// problem's diagonal M blocks (4 entries of 16) and 10-entry L blocks.
TYPED_TEST(KroneckerOnBackend, PackedBlocksMatchTheFormedProduct) {
  using Device = TypeParam;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  int case_id = 0;
  for (const bool shared : {true, false})
    for (const int s : {1, 2, 3, 5})
      for (const int b : {1, 2, 3, 4, 8}) {
        auto sys = gallery::random_kronecker(6 + ordinal_t(rng() % 19), b, s, seed + case_id++, shared);
        const BlockMask dense = dense_block_mask(b), diagonal_first = 1;
        const BlockMask m_keep = (rng() & dense) | diagonal_first, l_keep = (rng() & dense) | diagonal_first;
        zero_outside(sys.M, m_keep);
        zero_outside(sys.L, l_keep);
        if (sys.M.values.extent(0) > 0) sys.L.values(0) = 0;  // one zero inside the mask
        const auto x = random_vector(size_t(sys.num_rows()), seed + 5 * case_id);
        const auto y_ref = reference::multiply(reference::kronecker_product(sys), x);
        for (const bool merge : {true, false})
          for (const auto mapping :
               {KroneckerMapping::block_per_lane, KroneckerMapping::entry_per_lane, KroneckerMapping::row_per_thread}) {
            SCOPED_TRACE("shared " + std::to_string(shared) + " s " + std::to_string(s) + " b " + std::to_string(b) +
                         " merge " + std::to_string(merge) + " mapping " + std::to_string(int(mapping)));
            KroneckerOptions o;
            o.merge_shared_pattern = merge;
            o.mapping = mapping;
            const KroneckerOperator<double, Device> K(sys, o);
            const bool packed = mapping != KroneckerMapping::entry_per_lane;
            EXPECT_LE(K.stored_block_entries_M(), packed ? block_mask_entries(m_keep) : b * b);
            EXPECT_LE(K.stored_block_entries_L(), packed ? block_mask_entries(l_keep) : b * b);
            EXPECT_LT(test::relative_error(apply(K, x), y_ref), 1e-13);
          }
      }
  const auto stokes = gallery::stokes_kronecker(4, 3, 5, 2, 0.25);
  const auto x = random_vector(size_t(stokes.num_rows()), seed + 1);
  const auto y_ref = reference::multiply(reference::kronecker_product(stokes), x);
  for (const bool pack : {true, false}) {
    KroneckerOptions o;
    o.pack_blocks = pack;
    const KroneckerOperator<double, Device> K(stokes, o);
    EXPECT_EQ(K.stored_block_entries_M(), pack ? 4 : 16);
    EXPECT_EQ(K.stored_block_entries_L(), pack ? 10 : 16);
    EXPECT_LT(test::relative_error(apply(K, x), y_ref), 1e-13);
  }
}

TEST(Kronecker, EntryPerLaneRefusesPackedBlocks) {
  auto sys = gallery::random_kronecker(8, 2, 2, 3, true);
  zero_outside(sys.M, 0b1001);  // diagonal blocks
  Kokkos::View<double*> pc("pc", 4), y("y", size_t(sys.num_rows()));
  const auto t = make_kronecker_terms<double, DefaultDevice>(sys.M, nullptr, pc, {}, true);
  EXPECT_EQ(t.p_mask, BlockMask(0b1001));
  const Kokkos::View<double*> x("x", size_t(sys.num_rows()));
  try {
    kronecker_spmv<double, DefaultDevice>(Kokkos::DefaultExecutionSpace(), t, 2, {x, sys.space_rows()}, 0.0, y,
                                          sys.space_rows(), KroneckerMapping::entry_per_lane);
    ADD_FAILURE() << "no error";
  } catch (const StructureError& e) {
    EXPECT_NE(std::string(e.what()).find("entry_per_lane reads dense blocks"), std::string::npos) << e.what();
  }
}

TYPED_TEST(KroneckerOnBackend, GmresSolvesAgainstADenseSolve) {
  using Device = TypeParam;
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const int s : {2, 3}) {
    const auto sys = gallery::random_kronecker(30, 4, s, seed + s, s == 2);
    const KroneckerOperator<double, Device> K(sys);
    const auto b = random_vector(size_t(sys.num_rows()), seed + 11);
    const auto x_ref = reference::dense_solve(reference::kronecker_product(sys), b);
    const auto bd = device_vector<Device>(b);
    Kokkos::View<double*, Device> x("x", b.size());
    KrylovOptions o;
    o.rel_tol = 1e-12;
    const IdentityPreconditioner<double, Device> none;
    const auto r = gmres<double, Device>(K, none, bd, x, o);
    EXPECT_TRUE(r.converged());
    EXPECT_LT(r.true_relative_residual, 1e-11);
    EXPECT_LT(test::relative_error(host_vector(x), x_ref), 1e-9);
  }
}

TYPED_TEST(KroneckerOnBackend, SeparatePatternsKeepTheirOwnEntries) {
  // L's blocks outside M's pattern must count: a product where M is the
  // identity pattern and L carries every coupling.
  using Device = TypeParam;
  auto sys = gallery::random_kronecker(12, 3, 2, 5, false);
  const KroneckerOperator<double, Device> K(sys);
  const auto x = random_vector(size_t(sys.num_rows()), 9);
  EXPECT_LT(test::relative_error(apply(K, x), reference::multiply(reference::kronecker_product(sys), x)), 1e-13);
}

TEST(Kronecker, StagePreconditionerCutsIterations) {
  const auto sys = gallery::stokes_kronecker(8, 8, 8, 2, 0.125);
  const KroneckerOperator<double> K(sys);
  const auto b = random_vector(size_t(sys.num_rows()), 3);
  const auto bd = device_vector<DefaultDevice>(b);
  KrylovOptions o;
  o.rel_tol = 1e-8;
  o.max_iterations = 3000;
  Kokkos::View<double*, DefaultDevice> x0("x0", b.size()), x1("x1", b.size());
  const IdentityPreconditioner<double, DefaultDevice> none;
  const auto plain = gmres<double, DefaultDevice>(K, none, bd, x0, o);
  const KroneckerStagePreconditioner P(sys, 0, "ilu0");
  EXPECT_DOUBLE_EQ(P.alpha(), 1.0);                         // A = I
  EXPECT_DOUBLE_EQ(P.gamma(), (5.0 / 12 + 1.0 / 4) / 2.0);  // mean Radau IIA diagonal
  const auto pre = gmres<double, DefaultDevice>(K, P, bd, x1, o);
  ASSERT_TRUE(plain.converged());
  ASSERT_TRUE(pre.converged());
  EXPECT_LT(pre.true_relative_residual, 1e-7);
  EXPECT_LT(pre.iterations, plain.iterations / 2) << "plain " << plain.iterations << ", ilu0 " << pre.iterations;
  EXPECT_LT(test::relative_error(host_vector(x0), host_vector(x1)), 1e-6);
}

TEST(Kronecker, StageMatrixIsAlphaMPlusTauGammaL) {
  const auto sys = gallery::random_kronecker(6, 2, 2, 4, true);
  const HostCsr S = kronecker_stage_matrix(sys, 0, 2.0, 3.0);
  const HostCsr M = bsr_to_csr(sys.M), L = bsr_to_csr(sys.L);
  const auto x = random_vector(size_t(S.num_rows), 1);
  const auto m = reference::multiply(M, x), l = reference::multiply(L, x), y = reference::multiply(S, x);
  for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], 2.0 * m[i] + sys.tau * 3.0 * l[i], 1e-12);
}

TEST(Kronecker, StagePreconditionerRefusesRenumberingOnes) {
  const auto sys = gallery::random_kronecker(40, 3, 2, 4, true);
  try {
    KroneckerStagePreconditioner P(sys, 0, "dd");
    FAIL() << "dd accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("renumbers"), std::string::npos) << e.what();
  }
}

/// The message of the InputError thrown by building an operator from sys.
std::string construction_error(const KroneckerSystem& sys) {
  try {
    KroneckerOperator<double> K(sys);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Kronecker, BadSystemsAreNamedErrors) {
  const auto good = gallery::random_kronecker(8, 2, 2, 1, true);
  auto s0 = good;
  s0.stages = 0;
  EXPECT_NE(construction_error(s0).find("s = 0"), std::string::npos) << construction_error(s0);
  auto small_a = good;
  small_a.A.pop_back();
  EXPECT_NE(construction_error(small_a).find("A and B"), std::string::npos) << construction_error(small_a);
  auto nan_tau = good;
  nan_tau.tau = std::nan("");
  EXPECT_NE(construction_error(nan_tau).find("tau"), std::string::npos) << construction_error(nan_tau);
  auto nan_b = good;
  nan_b.B[1] = std::numeric_limits<double>::infinity();
  EXPECT_NE(construction_error(nan_b).find("B has a non-finite"), std::string::npos) << construction_error(nan_b);
  auto other_l = good;
  other_l.L = gallery::random_kronecker(9, 2, 2, 1, true).L;
  EXPECT_NE(construction_error(other_l).find("does not match M"), std::string::npos) << construction_error(other_l);
  auto nan_m = good;
  nan_m.M.values(3) = std::nan("");
  EXPECT_NE(construction_error(nan_m).find("M has a non-finite"), std::string::npos) << construction_error(nan_m);
}

TEST(Kronecker, WrongVectorSizesAreNamedErrors) {
  const auto sys = gallery::random_kronecker(8, 2, 3, 1, true);
  const KroneckerOperator<double> K(sys);
  Kokkos::View<double*, DefaultDevice> x("x", size_t(sys.num_rows())), y("y", size_t(sys.num_rows()) - 1);
  try {
    K.apply(x, y);
    FAIL() << "accepted a short y";
  } catch (const StructureError& e) {
    EXPECT_NE(std::string(e.what()).find("3 stages"), std::string::npos) << e.what();
  }
  EXPECT_THROW(K.apply(x, x), StructureError);
}

}  // namespace
}  // namespace trellis
