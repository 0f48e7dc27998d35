// StructILU (seed 003): stencils and their wavefront transforms, stencil
// matrices and their CSR/BSR forms, and the factorization and solves against
// the serial block ILU(0) reference on every stencil and DoF 1-8, odd grids
// included; named errors; the sweeps under a deadlock watchdog.
#include <algorithm>
#include <array>
#include <gtest/gtest.h>

#include <limits>
#include <set>

#include "ilu0.hpp"  // reference/
#include "spmv.hpp"  // reference/
#include "test_support.hpp"
#include "trellis/gallery/gallery.hpp"
#include "trellis/gallery/stencil_problems.hpp"
#include "trellis/io/matrix_market.hpp"
#include "trellis/solvers/bsr_operator.hpp"
#include "trellis/solvers/cg.hpp"
#include "trellis/solvers/preconditioners/struct_ilu.hpp"
#include "trellis/solvers/stencil_operator.hpp"
#include "trellis/structured/struct_ilu.hpp"

namespace trellis {
namespace {

using Vec = std::vector<double>;

const std::vector<StencilShape> named_shapes = {StencilShape::star7, StencilShape::star13, StencilShape::diamond13,
                                                StencilShape::diamond25, StencilShape::box27};

TEST(Stencils, NamedShapesHaveThePapersSizesAndLowerHalves) {
  const std::vector<int> sizes = {7, 13, 13, 25, 27};
  for (size_t s = 0; s < named_shapes.size(); ++s) {
    const Stencil st(named_shapes[s]);
    EXPECT_EQ(st.size(), sizes[s]) << st.name();
    EXPECT_EQ(st.lower_size(), st.upper_size()) << st.name();
    EXPECT_EQ(st.offsets()[st.centre()], (StencilOffset{0, 0, 0}));
    for (int e = 0; e < st.size(); ++e)
      EXPECT_GE(st.index_of({-st.offsets()[e].x, -st.offsets()[e].y, -st.offsets()[e].z}), 0);
  }
}

TEST(Stencils, Star7LevelOneFillIsDiamond13) {
  EXPECT_EQ(Stencil(StencilShape::star7).level_one_fill().shape(), StencilShape::diamond13);
}

TEST(Stencils, WavefrontTransformsAreThePapers) {
  auto same = [](WavefrontTransform t, int a, int b, int c) { return t.a == a && t.b == b && t.c == c; };
  EXPECT_TRUE(same(Stencil(StencilShape::star7).wavefront(9, 9, 9), 0, 0, 0));
  EXPECT_TRUE(same(Stencil(StencilShape::star13).wavefront(9, 9, 9), 0, 0, 0));
  EXPECT_TRUE(same(Stencil(StencilShape::diamond13).wavefront(9, 9, 9), 1, 1, 1));  // level i + 2j + 3k
  EXPECT_TRUE(same(Stencil(StencilShape::box27).wavefront(9, 9, 9), 1, 2, 1));      // level i + 2j + 4k
}

TEST(Stencils, CustomStencilsAreCheckedAndRecognized) {
  EXPECT_THROW(Stencil(std::vector<StencilOffset>{{1, 0, 0}, {-1, 0, 0}}), InputError);  // no centre
  EXPECT_THROW(Stencil(std::vector<StencilOffset>{{0, 0, 0}, {1, 0, 0}, {1, 0, 0}}), InputError);
  const Stencil s({{0, 0, -1}, {0, -1, 0}, {-1, 0, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}});
  EXPECT_EQ(s.shape(), StencilShape::star7);
  const Stencil c({{0, 0, 0}, {-2, 1, 0}, {2, -1, 0}});
  EXPECT_EQ(c.shape(), StencilShape::custom);
  EXPECT_GE(c.wavefront(8, 8, 8).a, 2);  // (2,-1,0) must point backward in î
}

TEST(StencilMatrices, CsrRoundTripAndNamedErrors) {
  const Stencil st(StencilShape::diamond13);
  const StencilMatrix A = gallery::stencil_problem(st, {5, 4, 3}, 2, gallery::StencilPde::dominant, 7);
  const HostCsr csr = A.to_csr();
  const StencilMatrix B = StencilMatrix::from_csr(csr, {5, 4, 3});
  EXPECT_EQ(B.stencil().shape(), StencilShape::diamond13);
  EXPECT_EQ(B.dof(), 2);
  const HostCsr back = B.to_csr();
  ASSERT_EQ(back.values.extent(0), csr.values.extent(0));
  for (size_t k = 0; k < csr.values.extent(0); ++k) EXPECT_EQ(back.values(k), csr.values(k));
  // a 7-point matrix read against star7 works; against a grid it does not fit, a named error
  const HostCsr lap = gallery::laplace3d_7pt(6, 5, 4);
  EXPECT_NO_THROW(StencilMatrix::from_csr(lap, {6, 5, 4}, Stencil(StencilShape::star7)));
  EXPECT_THROW(StencilMatrix::from_csr(lap, {7, 5, 4}), StructureError);
  try {
    StencilMatrix::from_csr(gallery::laplace3d_27pt(6, 5, 4), {6, 5, 4}, Stencil(StencilShape::star7));
    ADD_FAILURE() << "a 27-point matrix passed as star7";
  } catch (const StructureError& e) {
    EXPECT_NE(std::string(e.what()).find("star7"), std::string::npos) << e.what();
  }
  EXPECT_THROW(StencilMatrix({0, 4, 4}, st, 1), InputError);
  EXPECT_THROW(StencilMatrix({4, 4, 4}, st, 9), InputError);
}

TEST(StencilMatrices, UnstructuredRealMatricesAreRefusedByName) {
  for (const auto& m : test::real_matrices()) {
    if (m.rows != m.cols || m.rows > 100000) continue;
    const HostCsr A = io::read_matrix_market(m.path);
    EXPECT_THROW(StencilMatrix::from_csr(A, {int(A.num_rows), 1, 1}), StructureError) << m.file;
    return;  // one is enough
  }
}

template <class Device>
class StructIluTest : public ::testing::Test {};
TYPED_TEST_SUITE(StructIluTest, test::Backends, test::BackendNames);

/// StructILU's z = (LU)^{-1} r against the serial block ILU(0) of the same
/// matrix's BSR form (with the factor stencil's fill as explicit zeros).
template <class Device>
void expect_matches_reference(const StencilMatrix& A, StructIluOptions options, const std::string& what) {
  SCOPED_TRACE(what + " grid " + std::to_string(A.nx()) + "x" + std::to_string(A.ny()) + "x" + std::to_string(A.nz()) +
               " dof " + std::to_string(A.dof()));
  const bool fill = options.kind == StructIluKind::ilu1 || options.kind == StructIluKind::ic1;
  StencilMatrix P(A.grid(), fill ? A.stencil().level_one_fill() : A.stencil(), A.dof());
  for (long p = 0; p < A.points(); ++p)
    for (int e = 0; e < A.stencil().size(); ++e)
      std::copy(A.block(p, e), A.block(p, e) + A.dof() * A.dof(),
                P.block(p, P.stencil().index_of(A.stencil().offsets()[e])));
  const reference::Ilu0Factors ref = reference::ilu0(P.to_bsr());
  ASSERT_LT(ref.bad_row, 0) << "the test matrix has no ILU";
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Vec r = test::random_vector(size_t(A.num_rows()), seed);
  const Vec expected = reference::ilu0_apply(ref, r);
  std::unique_ptr<StructIlu<double, Device>> M;
  test::run_with_watchdog("structilu factor " + what, 120,
                          [&] { M = std::make_unique<StructIlu<double, Device>>(A, options); });
  auto z = test::device_vector<Device>(Vec(r.size(), std::numeric_limits<double>::quiet_NaN()));
  test::run_with_watchdog("structilu apply " + what, 120, [&] { M->apply(test::device_vector<Device>(r), z); });
  EXPECT_LT(test::relative_error(test::host_vector(z), expected), 1e-11);
  // a second apply gives the same (the sweeps' flags need no reset)
  auto z2 = test::device_vector<Device>(Vec(r.size(), 0.0));
  test::run_with_watchdog("structilu second apply " + what, 120, [&] { M->apply(test::device_vector<Device>(r), z2); });
  EXPECT_EQ(test::host_vector(z2), test::host_vector(z));
  // the split solves: y = L^{-1} r against the reference's forward substitution
  auto y = test::device_vector<Device>(Vec(r.size(), std::numeric_limits<double>::quiet_NaN()));
  test::run_with_watchdog("structilu lower solve " + what, 120,
                          [&] { M->lower_solve({}, test::device_vector<Device>(r), y); });
  EXPECT_LT(test::relative_error(test::host_vector(y), reference::detail::unit_lower_solve(ref, r)), 1e-11);
}

TYPED_TEST(StructIluTest, EveryStencilAndDofMatchesTheBlockIlu0Reference) {
  for (StencilShape shape : named_shapes)
    for (int dof = 1; dof <= 8; ++dof) {
      const Stencil st(shape);
      const auto A = gallery::stencil_problem(st, {7, 5, 4}, dof, gallery::StencilPde::dominant, test::fresh_seed());
      expect_matches_reference<TypeParam>(A, {}, st.name());
    }
}

TYPED_TEST(StructIluTest, EntryLanesMatchTheReference) {
  // dof 1 with a thread per row entry in the factorization (automatic on
  // GPUs, forced here so every backend runs it), incl. ILU(1)'s fill stencil
  StructIluOptions o;
  o.entry_lanes = StructIluOptions::EntryLanes::on;
  for (StencilShape shape : named_shapes)
    for (const auto& g : std::vector<std::array<int, 3>>{{7, 5, 4}, {13, 11, 9}, {1, 9, 6}}) {
      const Stencil st(shape);
      expect_matches_reference<TypeParam>(gallery::stencil_problem(st, g, 1, gallery::StencilPde::dominant, 8), o,
                                          st.name() + " entry lanes");
    }
  o.kind = StructIluKind::ilu1;
  expect_matches_reference<TypeParam>(
      gallery::stencil_problem(Stencil(StencilShape::star7), {9, 8, 7}, 1, gallery::StencilPde::dominant, 9), o,
      "star7 ilu1 entry lanes");
}

TYPED_TEST(StructIluTest, EntryLanesAtDofAboveOneMatchTheReferenceAndTheRowLaneBits) {
  // a thread per entry and row of the block row: against the reference,
  // and bit for bit against a thread per row (the same products, each
  // target's updates in the same order)
  StructIluOptions entry, row;
  entry.entry_lanes = StructIluOptions::EntryLanes::on;
  row.entry_lanes = StructIluOptions::EntryLanes::off;
  for (StencilShape shape : named_shapes)
    for (int dof : {2, 3, 5, 8}) {
      const Stencil st(shape);
      const auto A = gallery::stencil_problem(st, {9, 7, 5}, dof, gallery::StencilPde::dominant, test::fresh_seed());
      expect_matches_reference<TypeParam>(A, entry, st.name() + " entry lanes");
      std::unique_ptr<StructIlu<double, TypeParam>> by_entry, by_row;
      test::run_with_watchdog("structilu entry lanes " + st.name(), 120, [&] {
        by_entry = std::make_unique<StructIlu<double, TypeParam>>(A, entry);
        by_row = std::make_unique<StructIlu<double, TypeParam>>(A, row);
      });
      const Vec r = test::random_vector(size_t(A.num_rows()), 11);
      auto z1 = test::device_vector<TypeParam>(Vec(r.size(), std::numeric_limits<double>::quiet_NaN()));
      auto z2 = test::device_vector<TypeParam>(Vec(r.size(), std::numeric_limits<double>::quiet_NaN()));
      by_entry->apply(test::device_vector<TypeParam>(r), z1);
      by_row->apply(test::device_vector<TypeParam>(r), z2);
      EXPECT_EQ(test::host_vector(z1), test::host_vector(z2)) << st.name() << " dof " << dof;
    }
  // ILU(1)'s fill stencil, and a zero pivot named with its grid point
  StructIluOptions ilu1 = entry;
  ilu1.kind = StructIluKind::ilu1;
  expect_matches_reference<TypeParam>(
      gallery::stencil_problem(Stencil(StencilShape::star7), {9, 8, 7}, 3, gallery::StencilPde::dominant, 9), ilu1,
      "star7 ilu1 entry lanes dof 3");
  auto Z = gallery::stencil_problem(Stencil(StencilShape::star13), {6, 5, 4}, 4, gallery::StencilPde::dominant, 2);
  const double zero[16] = {};  // the whole row of point (3,2,1): its pivots stay 0
  for (const auto& o : Z.stencil().offsets()) Z.set_block({3, 2, 1}, o, zero);
  try {
    StructIlu<double, TypeParam> M(Z, entry);
    ADD_FAILURE() << "a zero diagonal block was factored";
  } catch (const PivotError& e) {
    EXPECT_NE(std::string(e.what()).find("(3,2,1), dof 0"), std::string::npos) << e.what();
  }
}

TYPED_TEST(StructIluTest, DiagonalBlocksNeedingRowSwapsMatchTheReference) {
  // every diagonal block's rows rotated by one: the block inversion
  // pivots (swaps rows) at every column
  for (StencilShape shape : {StencilShape::star7, StencilShape::box27})
    for (int dof : {2, 3, 5, 8}) {
      const Stencil st(shape);
      auto A = gallery::stencil_problem(st, {6, 5, 4}, dof, gallery::StencilPde::dominant, test::fresh_seed());
      for (long p = 0; p < A.points(); ++p) {
        double* d = A.block(p, st.centre());
        std::rotate(d, d + dof, d + dof * dof);
      }
      expect_matches_reference<TypeParam>(A, {}, st.name() + " rotated diagonal blocks");
    }
}

TYPED_TEST(StructIluTest, OddGridsMatchTheReference) {
  const std::vector<std::array<int, 3>> grids = {{1, 1, 1}, {1, 1, 9}, {9, 1, 1},  {1, 9, 1},
                                                 {2, 2, 2}, {3, 1, 5}, {40, 3, 2}, {3, 37, 5}};
  for (StencilShape shape : named_shapes)
    for (const auto& g : grids)
      for (int dof : {1, 3}) {
        const Stencil st(shape);
        expect_matches_reference<TypeParam>(gallery::stencil_problem(st, g, dof, gallery::StencilPde::dominant, 3), {},
                                            st.name());
      }
}

TYPED_TEST(StructIluTest, LargerGridsWithSmallTilesMatchTheReference) {
  // many tiles in flight: the block-to-block waits are exercised; 32x8
  // tiles make 256-thread teams on GPUs
  for (structured::TileShape tile : {structured::TileShape{4, 2}, structured::TileShape{32, 8}})
    for (StencilShape shape : {StencilShape::star7, StencilShape::box27}) {
      const Stencil st(shape);
      StructIluOptions o;
      o.tile = tile;
      expect_matches_reference<TypeParam>(
          gallery::stencil_problem(st, {24, 20, 18}, 1, gallery::StencilPde::dominant, 5), o,
          st.name() + " tiles " + std::to_string(tile.x) + "x" + std::to_string(tile.y));
    }
  // 256 lines x 5 or 8 dof lanes is more than a GPU team: groups of dof
  // threads take several lines each
  StructIluOptions o;
  o.tile = {32, 8};
  for (int dof : {5, 8})
    expect_matches_reference<TypeParam>(
        gallery::stencil_problem(Stencil(StencilShape::star7), {10, 9, 8}, dof, gallery::StencilPde::dominant, 6), o,
        "star7 tiles 32x8");
}

/// Two option sets that must give the same bits (same operations in the
/// same order) on one fresh right-hand side.
template <class Device>
void expect_same_bits(const StencilMatrix& A, const StructIluOptions& a, const StructIluOptions& b,
                      const std::string& what) {
  const Vec r = test::random_vector(size_t(A.num_rows()), test::fresh_seed());
  // two allocations: a View copy would share za's data
  auto za = test::device_vector<Device>(Vec(r.size(), 0.0));
  auto zb = test::device_vector<Device>(Vec(r.size(), 0.0));
  test::run_with_watchdog("structilu " + what, 120, [&] {
    StructIlu<double, Device>(A, a).apply(test::device_vector<Device>(r), za);
    StructIlu<double, Device>(A, b).apply(test::device_vector<Device>(r), zb);
  });
  EXPECT_EQ(test::host_vector(za), test::host_vector(zb)) << what;
}

TYPED_TEST(StructIluTest, WaitingOncePerRunOfLevelsMatchesTheReference) {
  // levels_per_wait > 1: a team waits for its neighbours once per run of
  // levels; the same operations in the same order, so the same bits as
  // waiting at every level. Runs longer than any tile's levels included.
  using Device = TypeParam;
  for (int per_wait : {2, 3, 7, 1000})
    for (StencilShape shape : {StencilShape::star7, StencilShape::diamond25})
      for (int dof : {1, 3}) {
        const Stencil st(shape);
        const auto A = gallery::stencil_problem(st, {22, 19, 17}, dof, gallery::StencilPde::dominant, 11);
        StructIluOptions o;
        o.tile = {4, 2};  // many tiles, many waits
        o.levels_per_wait = per_wait;
        const std::string what = st.name() + " levels per wait " + std::to_string(per_wait);
        expect_matches_reference<Device>(A, o, what);
        StructIluOptions every = o;
        every.levels_per_wait = 1;
        expect_same_bits<Device>(A, o, every, what);
      }
  // the strided teams (32x8 lines x 5 lanes is more than a GPU team)
  StructIluOptions o;
  o.tile = {32, 8};
  o.levels_per_wait = 4;
  expect_matches_reference<Device>(
      gallery::stencil_problem(Stencil(StencilShape::star7), {40, 12, 9}, 5, gallery::StencilPde::dominant, 12), o,
      "star7 tiles 32x8 levels per wait 4");
  o.levels_per_wait = -1;
  EXPECT_THROW(
      (StructIlu<double, Device>(
          gallery::stencil_problem(Stencil(StencilShape::star7), {4, 4, 4}, 1, gallery::StencilPde::dominant, 1), o)),
      InputError);
}

TYPED_TEST(StructIluTest, PipelinesMatchTheReferenceOnAndOff) {
  // The intra-row pipelines: the solves' entries two or more levels back
  // summed before the level's wait, the factorization's eliminated level by
  // level and before the wait (the tile's first level: after it), with many
  // tiles, runs of levels and teams taking tiles by ticket; on and off both
  // match the reference, IC and the entry lanes' level sets included.
  using Device = TypeParam;
  using Lanes = StructIluOptions::EntryLanes;
  for (StencilShape shape : {StencilShape::star13, StencilShape::diamond13, StencilShape::box27})
    for (int dof : {1, 2, 3})
      for (int per_wait : {1, 3}) {
        const Stencil st(shape);
        const auto A =
            gallery::stencil_problem(st, {14, 12, 11}, dof, gallery::StencilPde::dominant_sym, test::fresh_seed());
        for (bool pipelined : {true, false})
          for (StructIluKind kind : {StructIluKind::ilu0, StructIluKind::ic0}) {
            if (kind == StructIluKind::ic0 && !pipelined) continue;  // the same sweeps' code as ILU's unpipelined
            StructIluOptions o;
            o.kind = kind;
            o.tile = {4, 2};
            o.levels_per_wait = per_wait;
            o.teams_per_sm = per_wait == 3 ? 1 : StructIluOptions::team_per_tile;
            o.pipelined_solves = o.pipelined_factor = pipelined;
            // entry lanes at DoF 1 (GPUs' automatic choice on wide stencils), rows per lane above
            o.entry_lanes = kind == StructIluKind::ilu0 && dof == 1 && per_wait == 1 ? Lanes::on : Lanes::off;
            expect_matches_reference<Device>(A, o,
                                             st.name() + " " + to_string(kind) + " levels per wait " +
                                                 std::to_string(per_wait) +
                                                 (pipelined ? " pipelined" : " unpipelined"));
          }
      }
}

TEST(StructIluStages, TheLastStageHoldsTheLevelOneEntries) {
  // seed 003's Table 2 stencils: three entries of the previous level each
  // (Box-27P four in the paper's mapping), the rest summed a level ahead
  for (StencilShape shape : {StencilShape::star7, StencilShape::star13, StencilShape::diamond13,
                             StencilShape::diamond25, StencilShape::box27}) {
    const Stencil st(shape);
    const auto t = st.wavefront(32, 32, 32);
    Kokkos::View<structured::EntryShift*, Kokkos::HostSpace> shifts("shifts", st.size());
    const auto all = structured::entry_shifts(st, t);
    for (int e = 0; e < st.size(); ++e) shifts(e) = all[e];
    for (bool lower : {true, false}) {
      const int e0 = lower ? 0 : st.centre() + 1, e1 = lower ? st.centre() : st.size();
      const structured::detail::HalfShifts<16> staged(shifts, e0, e1, true), plain(shifts, e0, e1, false);
      SCOPED_TRACE(st.name() + (lower ? " lower" : " upper"));
      EXPECT_EQ(staged.count, e1 - e0);
      EXPECT_EQ(staged.last_stage, 3);
      EXPECT_EQ(plain.last_stage, e1 - e0);
      std::vector<int> slots;
      for (int e = 0; e < staged.count; ++e) {
        EXPECT_EQ(std::abs(staged.at[e].level) == 1, e < staged.last_stage) << "slot " << e;
        EXPECT_EQ(plain.entry[e], e0 + e);
        slots.push_back(staged.entry[e]);
      }
      std::sort(slots.begin(), slots.end());
      for (int e = 0; e < staged.count; ++e) EXPECT_EQ(slots[e], e0 + e) << "every entry once";
    }
  }
}

TYPED_TEST(StructIluTest, FewerTeamsThanTilesMatchTheReference) {
  // teams_per_sm > 0: each team sweeps tile after tile by ticket; the same
  // operations per point, so the same bits as one team per tile, and a
  // second apply (the ticket counter reset by the last team) the same again.
  using Device = TypeParam;
  for (int teams : {1, 3})
    for (StencilShape shape : {StencilShape::star7, StencilShape::box27})
      for (int dof : {1, 2}) {
        const Stencil st(shape);
        const auto A = gallery::stencil_problem(st, {21, 18, 13}, dof, gallery::StencilPde::dominant, 13);
        StructIluOptions o;
        o.tile = {4, 2};  // many tiles per team
        o.teams_per_sm = teams;
        const std::string what = st.name() + " teams per sm " + std::to_string(teams);
        expect_matches_reference<Device>(A, o, what);
        StructIluOptions one_per_tile = o;
        one_per_tile.teams_per_sm = StructIluOptions::team_per_tile;
        expect_same_bits<Device>(A, o, one_per_tile, what);
      }
  StructIluOptions o;
  o.teams_per_sm = -2;  // -1 is team_per_tile
  EXPECT_THROW(
      (StructIlu<double, Device>(
          gallery::stencil_problem(Stencil(StencilShape::star7), {4, 4, 4}, 1, gallery::StencilPde::dominant, 1), o)),
      InputError);
}

TYPED_TEST(StructIluTest, LevelOneFillAndIcVariantsMatchTheReference) {
  const Stencil star7(StencilShape::star7);
  const auto sym = gallery::stencil_problem(star7, {9, 8, 7}, 1, gallery::StencilPde::poisson);
  for (StructIluKind kind : {StructIluKind::ilu0, StructIluKind::ilu1, StructIluKind::ic0, StructIluKind::ic1}) {
    StructIluOptions o;
    o.kind = kind;
    expect_matches_reference<TypeParam>(sym, o, std::string("poisson ") + to_string(kind));
  }
  const auto blocks =
      gallery::stencil_problem(Stencil(StencilShape::diamond13), {6, 5, 7}, 4, gallery::StencilPde::dominant_sym, 11);
  StructIluOptions o;
  o.kind = StructIluKind::ic1;
  expect_matches_reference<TypeParam>(blocks, o, "diamond13 dof 4 ic1");
  o.kind = StructIluKind::ilu1;
  expect_matches_reference<TypeParam>(
      gallery::stencil_problem(Stencil(StencilShape::box27), {6, 5, 4}, 2, gallery::StencilPde::dominant, 2), o,
      "box27 dof 2 ilu1");
  // Diamond-25P's fill needs the transform a = 3, b = 9 (was refused: the
  // search stopped at 8).
  const auto diamond =
      gallery::stencil_problem(Stencil(StencilShape::diamond25), {7, 6, 5}, 1, gallery::StencilPde::dominant_sym, 5);
  expect_matches_reference<TypeParam>(diamond, o, "diamond25 ilu1");
  o.kind = StructIluKind::ic1;
  expect_matches_reference<TypeParam>(diamond, o, "diamond25 ic1");
  // That fill reaches past a 32 x 4 tile (the GPUs' default, which the
  // default widens): a tile asked for is taken as it is, or refused by name.
  o.tile = {32, 4};
  EXPECT_HAS(test::error_of<InputError>([&] { StructIlu<double, TypeParam> M(diamond, o); }),
             "tile 32x4 is narrower than stencil");
}

TYPED_TEST(StructIluTest, IcStoresOneFactorAndMatchesTheReferenceAtEveryStencilAndDof) {
  // IC keeps L and D^{-1} only: its apply (the upper sweep reading Lᵀ from
  // the neighbours) against the block ILU(0) of the same symmetric matrix,
  // on one tile per team and on many small ones (neighbours across tiles)
  for (StencilShape shape : named_shapes)
    for (int dof = 1; dof <= 8; ++dof) {
      const Stencil st(shape);
      const auto A =
          gallery::stencil_problem(st, {7, 5, 4}, dof, gallery::StencilPde::dominant_sym, test::fresh_seed());
      StructIluOptions ic;
      ic.kind = StructIluKind::ic0;
      expect_matches_reference<TypeParam>(A, ic, st.name() + " ic0");
      ic.tile = {6, 6};  // as wide as the widest stencil reaches
      expect_matches_reference<TypeParam>(A, ic, st.name() + " ic0 small tiles");
      const StructIlu<double, TypeParam> one(A, ic), both(A);
      EXPECT_EQ(one.factor_bytes() * size_t(st.size()), both.factor_bytes() * size_t(st.centre() + 1))
          << st.name() << " dof " << dof;
    }
  // IC(1) on a fill stencil wider than the matrix's, at a block size
  StructIluOptions ic1;
  ic1.kind = StructIluKind::ic1;
  expect_matches_reference<TypeParam>(
      gallery::stencil_problem(Stencil(StencilShape::box27), {6, 5, 5}, 3, gallery::StencilPde::dominant_sym, 3), ic1,
      "box27 dof 3 ic1");
  // what IC cannot do is refused by name
  ic1.entry_lanes = StructIluOptions::EntryLanes::on;
  EXPECT_HAS(test::error_of<InputError>([&] {
               StructIlu<double, TypeParam> M(
                   gallery::stencil_problem(Stencil(StencilShape::star7), {4, 4, 4}, 1, gallery::StencilPde::poisson),
                   ic1);
             }),
             "entry lanes factor ILU only");
  StencilMatrix lopsided({4, 4, 4}, Stencil({{0, 0, 0}, {-1, 0, 0}}), 1);  // a lower offset without its mirror
  for (long p = 0; p < lopsided.points(); ++p) lopsided.block(p, lopsided.stencil().centre())[0] = 4;
  StructIluOptions ic0;
  ic0.kind = StructIluKind::ic0;
  EXPECT_HAS(test::error_of<InputError>([&] { StructIlu<double, TypeParam> M(lopsided, ic0); }), "without its mirror");
}

/// y = A x through op (layout order) against the serial CSR product in the
/// grid's numbering; an unwritten row stays NaN and fails.
template <class Device>
void expect_stencil_product(const StructIlu<double, Device>& M, const StencilOperator<double, Device>& op,
                            const StencilMatrix& A, const std::string& what) {
  using space = typename Device::execution_space;
  const auto seed = test::fresh_seed();
  const Vec x = test::random_vector(size_t(A.num_rows()), seed);
  Kokkos::View<double*, Device> xl("xl", x.size()), yl("yl", x.size()), y("y", x.size());
  Kokkos::deep_copy(yl, std::numeric_limits<double>::quiet_NaN());
  M.to_layout(space(), test::device_vector<Device>(x), xl);
  op.apply(xl, yl);
  M.from_layout(space(), yl, y);
  EXPECT_LT(test::relative_error(test::host_vector(y), reference::multiply(A.to_csr(), x)), 1e-14)
      << what << " seed " << seed;
}

TYPED_TEST(StructIluTest, StencilOperatorInLayoutOrderMatchesTheSerialSpmv) {
  // every stencil and dof, A uploaded from the host and A taken from the
  // preconditioner's device copy: ILU(1) (a factor stencil wider than A's)
  // and IC(1) (A's upper entries read as the transposes of stored lower ones)
  using space = typename TypeParam::execution_space;
  for (StencilShape shape : named_shapes)
    for (int dof = 1; dof <= 8; ++dof) {
      const Stencil st(shape);
      const std::string what = st.name() + " dof " + std::to_string(dof);
      const auto A = gallery::stencil_problem(st, {7, 5, 4}, dof, gallery::StencilPde::dominant, test::fresh_seed());
      StructIluOptions o;
      o.kind = StructIluKind::ilu1;
      const StructIlu<double, TypeParam> M(A, o);
      expect_stencil_product(M, StencilOperator<double, TypeParam>(space(), M, A), A, what + " uploaded");
      expect_stencil_product(M, StencilOperator<double, TypeParam>(space(), M), A, what + " from ilu1");
      const auto S =
          gallery::stencil_problem(st, {7, 5, 4}, dof, gallery::StencilPde::dominant_sym, test::fresh_seed());
      o.kind = StructIluKind::ic1;
      const StructIlu<double, TypeParam> C(S, o);
      expect_stencil_product(C, StencilOperator<double, TypeParam>(space(), C), S, what + " from ic1");
    }
  {  // numeric() from the preconditioner after its numeric(); a mismatch refused
    const Stencil st(StencilShape::box27);
    const auto A = gallery::stencil_problem(st, {6, 5, 4}, 3, gallery::StencilPde::dominant_sym, 1);
    const auto B = gallery::stencil_problem(st, {6, 5, 4}, 3, gallery::StencilPde::dominant_sym, 2);
    StructIluOptions o;
    o.kind = StructIluKind::ic0;
    StructIlu<double, TypeParam> M(A, o);
    StencilOperator<double, TypeParam> op(space(), M);
    M.numeric(space(), B);
    op.numeric(space(), M);
    expect_stencil_product(M, op, B, "box27 ic0 after numeric");
    const StructIlu<double, TypeParam> other(
        gallery::stencil_problem(Stencil(StencilShape::star7), {6, 5, 4}, 3, gallery::StencilPde::dominant, 1));
    EXPECT_HAS(test::error_of<InputError>([&] { op.numeric(space(), other); }), "same grid, stencil and dof");
  }
  // numeric() takes new values; another stencil or grid is refused by name
  const Stencil st(StencilShape::star13);
  const auto A = gallery::stencil_problem(st, {6, 5, 4}, 2, gallery::StencilPde::dominant, 1);
  const auto B = gallery::stencil_problem(st, {6, 5, 4}, 2, gallery::StencilPde::dominant, 2);
  const StructIlu<double, TypeParam> M(A);
  StencilOperator<double, TypeParam> op(space(), M, A);
  op.numeric(space(), B);
  const Vec x = test::random_vector(size_t(B.num_rows()), 3);
  Kokkos::View<double*, TypeParam> xl("xl", x.size()), yl("yl", x.size()), y("y", x.size());
  M.to_layout(space(), test::device_vector<TypeParam>(x), xl);
  op.apply(xl, yl);
  M.from_layout(space(), yl, y);
  EXPECT_LT(test::relative_error(test::host_vector(y), reference::multiply(B.to_csr(), x)), 1e-14);
  EXPECT_HAS(test::error_of<InputError>([&] {
               op.numeric(space(), gallery::stencil_problem(Stencil(StencilShape::star7), {6, 5, 4}, 2,
                                                            gallery::StencilPde::dominant, 2));
             }),
             "same grid, stencil and dof");
  EXPECT_HAS(test::error_of<InputError>([&] {
               StencilOperator<double, TypeParam> wrong(
                   space(), M, gallery::stencil_problem(st, {6, 5, 5}, 2, gallery::StencilPde::dominant, 2));
             }),
             "grid and dof");
}

TYPED_TEST(StructIluTest, CgInTheLayoutOrderSolvesAsInTheGridsNumbering) {
  // CG with StructILU IC(0) on the stencil operator, vectors in the layout
  // order throughout, against the same solve in the grid's numbering (BSR
  // operator, the preconditioner permuting at each application)
  using space = typename TypeParam::execution_space;
  const auto A =
      gallery::stencil_problem(Stencil(StencilShape::star7), {12, 10, 9}, 1, gallery::StencilPde::poisson, 1);
  StructIluOptions o;
  o.kind = StructIluKind::ic0;
  auto M = std::make_shared<const StructIlu<double, TypeParam>>(A, o);
  const StencilOperator<double, TypeParam> op(space(), *M, A);
  const BsrOperator<double, TypeParam> natural_op(copy_to<TypeParam>(A.to_bsr()));
  using P = StructIluPreconditioner<double, TypeParam>;
  const P layout(M, P::Numbering::layout), natural(M, P::Numbering::natural);
  const Vec b = test::random_vector(size_t(A.num_rows()), test::fresh_seed());
  KrylovOptions k;
  k.rel_tol = 1e-10;
  k.max_iterations = 500;
  Kokkos::View<double*, TypeParam> bl("bl", b.size()), xl("xl", b.size()), x("x", b.size()), xn("xn", b.size());
  M->to_layout(space(), test::device_vector<TypeParam>(b), bl);
  const KrylovResult in_layout = cg(op, layout, Kokkos::View<const double*, TypeParam>(bl), xl, k);
  M->from_layout(space(), xl, x);
  const KrylovResult in_grid = cg(natural_op, natural, test::device_vector<TypeParam>(b), xn, k);
  ASSERT_TRUE(in_layout.converged()) << to_string(in_layout.status);
  ASSERT_TRUE(in_grid.converged());
  EXPECT_LE(std::abs(in_layout.iterations - in_grid.iterations), 1);
  EXPECT_LT(test::relative_error(test::host_vector(x), test::host_vector(xn)), 1e-8);
  EXPECT_LT(test::relative_error(reference::multiply(A.to_csr(), test::host_vector(x)), b), 1e-9);
}

TYPED_TEST(StructIluTest, EverySolveEntryPointMatchesTheReference) {
  // every entry point in turn, twice (the sweeps' flags carry over from
  // call to call), natural and layout order, against the reference
  using space = typename TypeParam::execution_space;
  const auto A =
      gallery::stencil_problem(Stencil(StencilShape::star13), {9, 7, 6}, 2, gallery::StencilPde::dominant, 4);
  const reference::Ilu0Factors ref = reference::ilu0(A.to_bsr());
  ASSERT_LT(ref.bad_row, 0);
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Vec r = test::random_vector(size_t(A.num_rows()), seed);
  const Vec lower = reference::detail::unit_lower_solve(ref, r), full = reference::ilu0_apply(ref, r);
  StructIluOptions o;
  o.tile = {4, 2};
  StructIlu<double, TypeParam> M(A, o);
  const auto rd = test::device_vector<TypeParam>(r), lower_d = test::device_vector<TypeParam>(lower);
  auto z = test::device_vector<TypeParam>(Vec(r.size(), std::numeric_limits<double>::quiet_NaN()));
  auto check = [&](const Vec& expected, const std::string& what) {
    EXPECT_LT(test::relative_error(test::host_vector(z), expected), 1e-11) << what;
    Kokkos::deep_copy(z, std::numeric_limits<double>::quiet_NaN());
  };
  for (int round = 0; round < 2; ++round) {
    test::run_with_watchdog("structilu entry points", 120, [&] {
      M.lower_solve(space(), rd, z), check(lower, "lower_solve");
      M.apply(space(), rd, z), check(full, "apply");
      M.upper_solve(space(), lower_d, z), check(full, "upper_solve");
      Kokkos::View<double*, TypeParam> x("x", r.size());
      M.to_layout(space(), rd, x);
      M.lower_solve_layout(space(), x), M.from_layout(space(), x, z), check(lower, "lower_solve_layout");
      M.upper_solve_layout(space(), x), M.from_layout(space(), x, z), check(full, "upper_solve_layout");
      M.to_layout(space(), rd, x);
      M.apply_layout(space(), x), M.from_layout(space(), x, z), check(full, "apply_layout");
    });
  }
}

TYPED_TEST(StructIluTest, DofTwoWideSweepsInChunksOfTwelveMatchTheReference) {
  // The DoF 2 sweeps of Box-27P and Diamond-25P with 12 entries' loads at
  // a time (sweep_chunk gives 8): the chunking that gave NaN or wrong solves
  // on CUDA. Same arithmetic in the same order as the library's sweep.
  using space = typename TypeParam::execution_space;
  for (StencilShape shape : {StencilShape::box27, StencilShape::diamond25})
    for (const std::array<int, 3> grid : {std::array<int, 3>{6, 6, 6}, std::array<int, 3>{7, 5, 4}}) {
      const Stencil st(shape);
      const auto A = gallery::stencil_problem(st, grid, 2, gallery::StencilPde::dominant, test::fresh_seed());
      SCOPED_TRACE(st.name() + " grid " + std::to_string(grid[0]) + "x" + std::to_string(grid[1]) + "x" +
                   std::to_string(grid[2]));
      const reference::Ilu0Factors ref = reference::ilu0(A.to_bsr());
      ASSERT_LT(ref.bad_row, 0);
      const auto seed = test::fresh_seed();
      SCOPED_TRACE("seed " + std::to_string(seed));
      const Vec r = test::random_vector(size_t(A.num_rows()), seed);
      const Vec lower = reference::detail::unit_lower_solve(ref, r), full = reference::ilu0_apply(ref, r);
      StructIlu<double, TypeParam> M(A, StructIluOptions{});
      auto L = M.layout();
      structured::fresh_progress(L);  // flags of its own
      Kokkos::View<double*, TypeParam> x("x", r.size()), z("z", r.size());
      for (int round = 0; round < 2; ++round) {
        test::run_with_watchdog("structilu chunks of 12", 120, [&] {
          M.to_layout(space(), test::device_vector<TypeParam>(r), x);
          structured::detail::triangular_sweep_of<2, 16, double, TypeParam, 12>(space(), L, M.factors(), x, true);
          M.from_layout(space(), x, z);
          EXPECT_LT(test::relative_error(test::host_vector(z), lower), 1e-11) << "lower, round " << round;
          structured::detail::triangular_sweep_of<2, 16, double, TypeParam, 12>(space(), L, M.factors(), x, false);
          M.from_layout(space(), x, z);
          EXPECT_LT(test::relative_error(test::host_vector(z), full), 1e-11) << "lower and upper, round " << round;
        });
      }
    }
}

TYPED_TEST(StructIluTest, IcRefusesANonsymmetricMatrix) {
  const auto A = gallery::stencil_problem(Stencil(StencilShape::star7), {5, 5, 5}, 1, gallery::StencilPde::convdiff);
  StructIluOptions o;
  o.kind = StructIluKind::ic0;
  EXPECT_THROW((StructIlu<double, TypeParam>(A, o)), InputError);
}

TYPED_TEST(StructIluTest, ZeroAndNonFinitePivotsNameTheGridPointAndDof) {
  auto A = gallery::stencil_problem(Stencil(StencilShape::star7), {5, 4, 3}, 2, gallery::StencilPde::dominant, 1);
  const double zero[4] = {0, 0, 0, 0};  // the whole row of point (3,2,1): its pivot stays 0
  for (const auto& o : A.stencil().offsets()) A.set_block({3, 2, 1}, o, zero);
  try {
    StructIlu<double, TypeParam> M(A);
    ADD_FAILURE() << "a zero diagonal block was factored";
  } catch (const PivotError& e) {
    EXPECT_NE(std::string(e.what()).find("(3,2,1), dof 0"), std::string::npos) << e.what();
  }
  StructIluOptions boost;
  boost.pivots.boost = 1e-3;
  StructIlu<double, TypeParam> boosted(A, boost);
  EXPECT_GT(boosted.boosted_pivots(), 0);

  auto B = gallery::stencil_problem(Stencil(StencilShape::box27), {4, 4, 4}, 1, gallery::StencilPde::dominant, 1);
  B.block(B.point_index(1, 2, 3), B.stencil().centre())[0] = std::numeric_limits<double>::quiet_NaN();
  try {
    StructIlu<double, TypeParam> M(B);
    ADD_FAILURE() << "a NaN pivot was factored";
  } catch (const PivotError& e) {
    EXPECT_NE(std::string(e.what()).find("non-finite pivot at grid point (1,2,3)"), std::string::npos) << e.what();
  }
}

TYPED_TEST(StructIluTest, RefactorReusesTheLayoutAndChecksTheMatrix) {
  const Stencil st(StencilShape::diamond25);
  const auto A = gallery::stencil_problem(st, {6, 6, 6}, 2, gallery::StencilPde::dominant, 1);
  const auto B = gallery::stencil_problem(st, {6, 6, 6}, 2, gallery::StencilPde::dominant, 2);
  StructIlu<double, TypeParam> M(A);
  M.numeric(typename TypeParam::execution_space(), B);
  StructIlu<double, TypeParam> fresh(B);
  const Vec r = test::random_vector(size_t(B.num_rows()), test::fresh_seed());
  auto z1 = test::device_vector<TypeParam>(Vec(r.size(), 0.0)), z2 = test::device_vector<TypeParam>(Vec(r.size(), 0.0));
  M.apply(test::device_vector<TypeParam>(r), z1);
  fresh.apply(test::device_vector<TypeParam>(r), z2);
  EXPECT_EQ(test::host_vector(z1), test::host_vector(z2));
  EXPECT_THROW(M.numeric(typename TypeParam::execution_space(),
                         gallery::stencil_problem(st, {6, 6, 5}, 2, gallery::StencilPde::dominant, 2)),
               InputError);
}

}  // namespace
}  // namespace trellis
