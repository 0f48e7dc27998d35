// Names of enum values (core/name_table.hpp) and the preconditioner factory:
// every name round-trips, the papers' spellings parse, unknown names are
// errors listing the accepted ones; every preconditioner the factory lists
// builds and applies as the same class built directly.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <limits>
#include <memory>

#include "test_support.hpp"
#include "trellis/core/matrix_summary.hpp"
#include "trellis/core/triangle.hpp"
#include "trellis/gallery/problem_spec.hpp"
#include "trellis/gauss_seidel/sweep_direction.hpp"
#include "trellis/partition/partition.hpp"
#include "trellis/solvers/bicgstab.hpp"
#include "trellis/solvers/krylov.hpp"
#include "trellis/solvers/preconditioner_choice.hpp"
#include "trellis/solvers/preconditioner_factory.hpp"
#include "trellis/solvers/preconditioners/domain_decomposition.hpp"
#include "trellis/solvers/preconditioners/gauss_seidel.hpp"
#include "trellis/solvers/preconditioners/global_ilu0.hpp"
#include "trellis/solvers/preconditioners/identity.hpp"
#include "trellis/solvers/preconditioners/jacobi.hpp"
#include "trellis/solvers/preconditioners/kokkos_kernels_ilu0.hpp"
#include "trellis/solvers/preconditioners/struct_ilu.hpp"
#include "trellis/trsv/algorithm.hpp"

namespace trellis {
namespace {

// --- names ------------------------------------------------------------------

template <class E>
class EnumNames : public ::testing::Test {};
using NamedEnums = ::testing::Types<TrsvAlgorithm, DdLowerSolve, DdApply, Partitioner, KrylovStatus, BicgstabForm,
                                    SweepDirection, Symmetry, Triangle, PreconditionerKind>;
TYPED_TEST_SUITE(EnumNames, NamedEnums);

/// The papers' style: upper case, '_' between words.
std::string shouted(std::string name) {
  for (char& c : name) c = c == '-' ? '_' : char(std::toupper(static_cast<unsigned char>(c)));
  return name;
}

TYPED_TEST(EnumNames, EveryNameIsCanonicalAndRoundTrips) {
  using E = TypeParam;
  const auto all = values<E>();
  EXPECT_EQ(all.size(), std::size(NameTable<E>::entries));
  for (size_t i = 0; i < all.size(); ++i) {
    const std::string name = to_string(all[i]);
    SCOPED_TRACE(name);
    EXPECT_EQ(name, detail::normalized_name(name)) << "lower-case words joined by '-'";
    EXPECT_FALSE(name.empty());
    EXPECT_EQ(parse<E>(name), all[i]);
    EXPECT_EQ(parse<E>(shouted(name)), all[i]);
    for (size_t j = 0; j < i; ++j) EXPECT_NE(name, to_string(all[j])) << "two values, one name";
  }
}

TYPED_TEST(EnumNames, UnknownNameListsEveryAcceptedName) {
  using E = TypeParam;
  try {
    parse<E>("no-such-name");
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(NameTable<E>::what), std::string::npos) << what;
    EXPECT_NE(what.find("'no-such-name'"), std::string::npos) << what;
    for (E v : values<E>()) EXPECT_NE(what.find(to_string(v)), std::string::npos) << what;
  }
}

TEST(Names, ThePapersSpellingsParse) {
  EXPECT_EQ(parse<DdApply>("dag_ec_ILDUO_fused"), DdApply::dag_ec_ILDUO_fused);
  EXPECT_EQ(parse<DdApply>("dag_vc_ILDUO_fused"), DdApply::dag_vc_ILDUO_fused);
  EXPECT_EQ(parse<DdApply>("dag_ec_ILD_UO"), DdApply::dag_ec_ILD_UO);
  EXPECT_EQ(parse<DdLowerSolve>("spin_loop_lds"), DdLowerSolve::spin_loop_lds);
  EXPECT_EQ(parse<DdLowerSolve>("dag_ec_lds_ud"), DdLowerSolve::dag_ec_lds_ud);
  EXPECT_EQ(parse<TrsvAlgorithm>("levelset_csr"), TrsvAlgorithm::levelset_csr);
  EXPECT_EQ(parse<TrsvAlgorithm>("ELMR-Value"), TrsvAlgorithm::elmr_value);
  EXPECT_EQ(parse<Partitioner>("METIS"), Partitioner::metis);
  EXPECT_STREQ(to_string(DdApply::dag_ec_ILDUO_fused), "dag-ec-ilduo-fused");
  EXPECT_STREQ(to_string(TrsvAlgorithm::automatic), "auto");
  EXPECT_EQ(names<BicgstabForm>("|"), "right|split");
}

// --- the factory ------------------------------------------------------------

using Device = DefaultDevice;
using Vec = std::vector<double>;

/// The default problem's kind, small: a 3D point-block Laplacian (b = 3).
gallery::Problem small_problem() { return gallery::load_problem("blocklap3d:8x8x6:b=3"); }

/// Subdomains of 64 block rows: several of them, whatever the backend's scratch.
constexpr ordinal_t subdomain_rows = 64;

PreconditionerOptions options_for(const gallery::Problem& p) {
  PreconditionerOptions o;
  o.grid = p.grid;
  o.subdomain_rows = subdomain_rows;
  return o;
}

Vec apply_once(const Preconditioner<double, Device>& M, const Vec& r) {
  auto z = test::device_vector<Device>(Vec(r.size(), std::numeric_limits<double>::quiet_NaN()));
  M.apply(test::device_vector<Device>(r), z);
  return test::host_vector(z);
}

/// The preconditioner a spec names, built from its class, and whether its
/// application is bit-reproducible.
struct Direct {
  std::shared_ptr<const Preconditioner<double, Device>> M;
  bool deterministic = true;
};

Direct build_directly(const std::string& spec, const gallery::Problem& p, const BsrMatrix<double, Device>& blocks) {
  const size_t colon = spec.find(':');
  const PreconditionerKind kind = parse<PreconditionerKind>(spec.substr(0, colon));
  const std::string variant = colon == std::string::npos ? "" : spec.substr(colon + 1);
  const TrsvAlgorithm alg = variant.empty() || kind == PreconditionerKind::dd || kind == PreconditionerKind::structilu
                                ? TrsvAlgorithm::automatic
                                : parse<TrsvAlgorithm>(variant);
  // `auto` may choose an algorithm that accumulates with atomics.
  const bool trsv_deterministic = alg != TrsvAlgorithm::automatic && is_deterministic(alg);
  const auto point = copy_to<Device>(p.matrix);
  switch (kind) {
    case PreconditionerKind::none: return {std::make_shared<IdentityPreconditioner<double, Device>>()};
    case PreconditionerKind::jacobi: return {std::make_shared<JacobiPreconditioner<double, Device>>(point)};
    case PreconditionerKind::gs:
    case PreconditionerKind::sgs:
      return {std::make_shared<GaussSeidelPreconditioner<double, Device>>(
                  point, kind == PreconditionerKind::gs ? SweepDirection::forward : SweepDirection::symmetric, alg),
              trsv_deterministic};
    case PreconditionerKind::ilu0:
      return {std::make_shared<GlobalIlu0Preconditioner<double, Device>>(
                  std::make_shared<const GlobalIlu0<double, Device>>(p.matrix, ilu::PivotOptions{}, alg)),
              trsv_deterministic};
    case PreconditionerKind::ilu0_kk:
      return {std::make_shared<KokkosKernelsIlu0Preconditioner<double, Device>>(GlobalIlu0<double, Device>(p.matrix))};
    case PreconditionerKind::dd: {
      DdOptions opt;
      opt.grid = p.grid;
      opt.subdomain_rows = subdomain_rows;
      auto dd = std::make_shared<const DomainDecompositionIlu<double, Device>>(blocks, opt);
      const DdApply v = variant.empty() ? dd->default_variant() : parse<DdApply>(variant);
      return {std::make_shared<DdPreconditioner<double, Device>>(dd, v, true), is_bit_reproducible(v)};
    }
    case PreconditionerKind::automatic: ADD_FAILURE() << "auto names no class"; break;
    case PreconditionerKind::structilu: {
      StructIluOptions opt;
      opt.kind = variant.empty() ? StructIluKind::ilu0 : parse<StructIluKind>(variant);
      const StencilMatrix S = StencilMatrix::from_csr(p.matrix, {p.grid[0], p.grid[1], p.grid[2]});
      return {std::make_shared<StructIluPreconditioner<double, Device>>(
          std::make_shared<const StructIlu<double, Device>>(S, opt))};
    }
  }
  return {};
}

TEST(PreconditionerFactory, BuildsEveryListedNameAsTheClassItNames) {
  const gallery::Problem p = small_problem();
  const auto blocks = copy_to<Device>(*p.block_matrix);
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Vec r = test::random_vector(size_t(p.matrix.num_rows), seed);
  const std::vector<std::string> names = preconditioner_names();
  EXPECT_EQ(names.size(), values<PreconditionerKind>().size() + 3 * values<TrsvAlgorithm>().size() +
                              values<DdApply>().size() + values<StructIluKind>().size());
  for (const std::string& spec : names) {
    SCOPED_TRACE(spec);
    const BuiltPreconditioner M = make_preconditioner(spec, p.matrix, blocks, options_for(p));
    ASSERT_TRUE(M.preconditioner);
    // auto builds what choose_preconditioner says, under that one's name.
    const PreconditionerKind asked = parse<PreconditionerKind>(spec.substr(0, spec.find(':')));
    const bool is_auto = asked == PreconditionerKind::automatic;
    EXPECT_EQ(M.kind, is_auto ? choose_preconditioner(p.matrix, options_for(p)).kind : asked);
    EXPECT_EQ(M.auto_reason.empty(), !is_auto);
    if (M.kind == PreconditionerKind::dd) {
      EXPECT_EQ(M.name.rfind("dd:", 0), 0u) << M.name;  // the default variant named
      if (spec != "dd" && !is_auto) EXPECT_EQ(M.name, spec);
      ASSERT_TRUE(M.dd_report);
      EXPECT_GT(M.dd_report->subdomains, 1);
      EXPECT_TRUE(M.reordered());
    } else {
      EXPECT_EQ(M.name, is_auto ? to_string(M.kind) : spec);
      EXPECT_EQ(M.reordered(), M.kind == PreconditionerKind::structilu);  // structilu: its layout order
    }
    const bool reports = M.kind == PreconditionerKind::dd || M.kind == PreconditionerKind::ilu0 ||
                         M.kind == PreconditionerKind::ilu0_kk || M.kind == PreconditionerKind::structilu;
    EXPECT_EQ(!M.setup_report.empty(), reports) << M.setup_report;
    EXPECT_EQ(bool(M.trsv_algorithm), M.kind == PreconditionerKind::ilu0);

    const Direct direct = build_directly(is_auto ? to_string(M.kind) : spec, p, blocks);
    Vec z = apply_once(*M.preconditioner, r);
    if (M.kind == PreconditionerKind::structilu) {  // the class built directly takes the grid's numbering
      Kokkos::View<double*, Device> rr("rr", r.size()), zr("zr", r.size()), zn("zn", r.size());
      M.to_reordered(test::device_vector<Device>(r), rr);
      M.preconditioner->apply(rr, zr);
      M.from_reordered(zr, zn);
      z = test::host_vector(zn);
    }
    const Vec expected = apply_once(*direct.M, r);
    if (direct.deterministic)
      EXPECT_EQ(z, expected) << "not bit-identical";
    else
      EXPECT_LT(test::relative_error(z, expected), 1e-12);
  }
}

TEST(PreconditionerFactory, DdWorksInItsReorderedNumbering) {
  const gallery::Problem p = small_problem();
  const auto blocks = copy_to<Device>(*p.block_matrix);
  const size_t n = size_t(p.matrix.num_rows);
  const BuiltPreconditioner M = make_preconditioner("dd:dag-vc-ilduo-fused", p.matrix, blocks, options_for(p));
  ASSERT_TRUE(M.reordered());
  EXPECT_EQ(size_t(M.reordered_matrix().num_rows()), n);
  EXPECT_EQ(M.reordered_matrix().block_size, 3);

  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Vec x = test::random_vector(n, seed);
  Kokkos::View<double*, Device> xr("xr", n), back("back", n), zr("zr", n), z("z", n);
  M.to_reordered(test::device_vector<Device>(x), xr);
  M.from_reordered(xr, back);
  EXPECT_EQ(test::host_vector(back), x);
  EXPECT_NE(test::host_vector(xr), x) << "a permutation that moves nothing";

  // In the reordered numbering, M^{-1} is the original-numbering one permuted.
  M.preconditioner->apply(xr, zr);
  M.from_reordered(zr, z);
  DdOptions opt;
  opt.grid = p.grid;
  opt.subdomain_rows = subdomain_rows;
  const DomainDecompositionIlu<double, Device> dd(blocks, opt);
  Kokkos::View<double*, Device> z_original("z_original", n);
  dd.apply(test::device_vector<Device>(x), z_original, DdApply::dag_vc_ILDUO_fused);
  EXPECT_EQ(test::host_vector(z), test::host_vector(z_original));
}

TEST(PreconditionerFactory, OthersWorkInTheOriginalNumbering) {
  const gallery::Problem p = small_problem();
  const BuiltPreconditioner M = make_preconditioner("jacobi", p.matrix);
  EXPECT_FALSE(M.reordered());
  EXPECT_THROW(M.reordered_matrix(), Error);
  const Vec x = test::random_vector(size_t(p.matrix.num_rows), 5);
  Kokkos::View<double*, Device> xr("xr", x.size());
  M.to_reordered(test::device_vector<Device>(x), xr);
  EXPECT_EQ(test::host_vector(xr), x);
}

TEST(PreconditionerFactory, DdFromThePointMatrixAlone) {
  const gallery::Problem p = small_problem();
  PreconditionerOptions o;  // no grid: the grid is one of cells, the matrix one of points
  o.subdomain_rows = subdomain_rows;
  const BuiltPreconditioner M = make_preconditioner("dd", p.matrix, o);
  EXPECT_GT(M.dd_report->subdomains, 1);
  EXPECT_EQ(M.reordered_matrix().block_size, 1);
  EXPECT_EQ(size_t(M.reordered_matrix().num_rows()), size_t(p.matrix.num_rows));
}

TEST(PreconditionerFactory, AcceptsThePapersSpellings) {
  const gallery::Problem p = small_problem();
  const auto blocks = copy_to<Device>(*p.block_matrix);
  EXPECT_EQ(make_preconditioner("DD:dag_ec_ILDUO_fused", p.matrix, blocks, options_for(p)).name,
            "dd:dag-ec-ilduo-fused");
  EXPECT_EQ(make_preconditioner("ILU0:LEVELSET_CSR", p.matrix).name, "ilu0:levelset-csr");
  EXPECT_EQ(make_preconditioner("ilu0_kk", p.matrix).name, "ilu0-kk");
  EXPECT_EQ(make_preconditioner("sgs:elmr_value", p.matrix).name, "sgs:elmr-value");
}

/// The InputError `f` throws, or "" when it throws none.
template <class F>
std::string input_error(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(PreconditionerFactory, UnknownNamesListWhatIsAccepted) {
  const gallery::Problem p = small_problem();
  const std::string bogus = input_error([&] { make_preconditioner("bogus", p.matrix); });
  ASSERT_FALSE(bogus.empty());
  EXPECT_NE(bogus.find("unknown preconditioner 'bogus'"), std::string::npos) << bogus;
  for (PreconditionerKind k : values<PreconditionerKind>()) EXPECT_NE(bogus.find(to_string(k)), std::string::npos);
  for (TrsvAlgorithm a : values<TrsvAlgorithm>()) EXPECT_NE(bogus.find(to_string(a)), std::string::npos);
  for (DdApply v : values<DdApply>()) EXPECT_NE(bogus.find(to_string(v)), std::string::npos);

  const std::string variant = input_error([&] { make_preconditioner("dd:fastest", p.matrix); });
  EXPECT_NE(variant.find("unknown subdomain ILDU0 application 'fastest'"), std::string::npos) << variant;
  for (DdApply v : values<DdApply>()) EXPECT_NE(variant.find(to_string(v)), std::string::npos) << variant;

  const std::string algorithm = input_error([&] { make_preconditioner("ilu0:elmx", p.matrix); });
  EXPECT_NE(algorithm.find("unknown triangular-solve algorithm 'elmx'"), std::string::npos) << algorithm;

  EXPECT_NE(input_error([&] { make_preconditioner("jacobi:elmr", p.matrix); }).find("takes no variant"),
            std::string::npos);
  EXPECT_NE(input_error([&] { make_preconditioner("dd:", p.matrix); }), "");
}

TEST(PreconditionerFactory, UsageListsEveryNameAndVariant) {
  const std::string usage = preconditioner_usage();
  for (PreconditionerKind k : values<PreconditionerKind>()) EXPECT_NE(usage.find(to_string(k)), std::string::npos);
  for (TrsvAlgorithm a : values<TrsvAlgorithm>()) EXPECT_NE(usage.find(to_string(a)), std::string::npos);
  for (DdApply v : values<DdApply>()) EXPECT_NE(usage.find(to_string(v)), std::string::npos);
  EXPECT_EQ(preconditioner_usage(4).rfind("    none", 0), 0u);
}

// ------------------------------------------------------------------ auto ---

/// Tridiagonal (n levels each way) or diagonal (one level) n x n, the
/// off-diagonals -1 beside `diagonal`.
HostCsr banded(ordinal_t n, bool tridiagonal, double diagonal = 2.0) {
  std::vector<ordinal_t> r, c;
  std::vector<double> v;
  for (ordinal_t i = 0; i < n; ++i)
    for (ordinal_t j = i - 1; j <= i + 1; ++j)
      if (j >= 0 && j < n && (tridiagonal || j == i))
        r.push_back(i), c.push_back(j), v.push_back(i == j ? diagonal : -1.0);
  return csr_from_triplets(n, n, r, c, v);
}

TEST(PreconditionerChoice, AKnownGridChoosesDdWithoutAnalysis) {
  const gallery::Problem p = small_problem();
  const PreconditionerChoice c = choose_preconditioner(p.matrix, options_for(p));
  EXPECT_EQ(c.kind, PreconditionerKind::dd);
  EXPECT_EQ(c.lower_levels + c.upper_levels, 0);
  EXPECT_HAS(c.reason, "grid is known");
}

TEST(PreconditionerChoice, NonzerosPerLevelDecideAtTheRulesThreshold) {
  const ordinal_t n = 3000;
  const PreconditionerChoice chain = choose_preconditioner(banded(n, true), {});
  EXPECT_EQ(chain.lower_levels, n);
  EXPECT_EQ(chain.upper_levels, n);
  EXPECT_DOUBLE_EQ(chain.nonzeros_per_level, double(3 * n - 2) / (2 * n));
  EXPECT_EQ(chain.kind, PreconditionerKind::dd);
  EXPECT_HAS(chain.reason, "3000 + 3000 levels");

  // 6000 nonzeros on 1 + 1 levels; diagonal, so Jacobi's unless the rule
  // leaves Jacobi out.
  const HostCsr D = banded(2 * n, false);
  AutoRule rule;
  rule.jacobi_below_dominance = 0;
  const PreconditionerChoice flat = choose_preconditioner(D, {}, rule);
  EXPECT_EQ(flat.lower_levels, 1);
  EXPECT_DOUBLE_EQ(flat.nonzeros_per_level, 3000.0);
  EXPECT_EQ(flat.kind, PreconditionerKind::ilu0);
  rule.dd_below_nonzeros_per_level = 3000;  // "below": equal stays ilu0
  EXPECT_EQ(choose_preconditioner(D, {}, rule).kind, PreconditionerKind::ilu0);
  rule.dd_below_nonzeros_per_level = 3001;
  EXPECT_EQ(choose_preconditioner(D, {}, rule).kind, PreconditionerKind::dd);
}

TEST(PreconditionerChoice, StrictDiagonalDominanceChoosesJacobi) {
  // Rows at 2 / 4 = 0.5 of their diagonal: Jacobi, before the level rule.
  const PreconditionerChoice strict = choose_preconditioner(banded(3000, true, 4.0), {});
  EXPECT_DOUBLE_EQ(strict.dominance, 0.5);
  EXPECT_EQ(strict.kind, PreconditionerKind::jacobi);
  EXPECT_HAS(strict.reason, "auto: jacobi");
  EXPECT_EQ(strict.lower_levels, 0);  // no level count needed
  // Weak dominance (the Laplacian's 2 / 2 = 1) is not enough.
  const PreconditionerChoice weak = choose_preconditioner(banded(3000, true, 2.0), {});
  EXPECT_DOUBLE_EQ(weak.dominance, 1.0);
  EXPECT_NE(weak.kind, PreconditionerKind::jacobi);
  // [[1, 0, 0], [3, 4, 0], [0, 0.1, 1]]: dominant by rows (3 / 4 = 0.75 at
  // most), not by columns (column 0 holds 3 against its 1).
  const HostCsr by_rows = csr_from_triplets(3, 3, {0, 1, 1, 2, 2}, {0, 0, 1, 1, 2}, {1, 3, 4, 0.1, 1});
  EXPECT_DOUBLE_EQ(diagonal_dominance(by_rows), 0.75);
  // Its transpose: dominant by columns at 0.75, not by rows.
  const HostCsr by_cols = csr_from_triplets(3, 3, {0, 0, 1, 1, 2}, {0, 1, 1, 2, 2}, {1, 3, 4, 0.1, 1});
  EXPECT_DOUBLE_EQ(diagonal_dominance(by_cols), 0.75);
  // A zero diagonal or a NaN: not dominant.
  EXPECT_EQ(diagonal_dominance(csr_from_triplets(2, 2, {0, 1}, {1, 1}, {1, 1})), HUGE_VAL);
  EXPECT_EQ(diagonal_dominance(csr_from_triplets(2, 2, {0, 0, 1}, {0, 1, 1}, {1, std::nan(""), 1})), HUGE_VAL);
  // The device's count from blocks agrees with the host's, for b = 1 and 2.
  for (const HostCsr& A : {banded(100, true, 4.0), banded(100, true, 2.0), by_rows, by_cols}) {
    EXPECT_DOUBLE_EQ(diagonal_dominance(copy_to<DefaultDevice>(as_point_bsr(A))), diagonal_dominance(A));
    if (A.num_rows % 2 == 0)
      EXPECT_DOUBLE_EQ(diagonal_dominance(copy_to<DefaultDevice>(csr_to_bsr(A, 2))), diagonal_dominance(A));
  }
  // The rule's threshold: "below".
  AutoRule rule;
  rule.jacobi_below_dominance = 0.5;
  EXPECT_NE(choose_preconditioner(banded(3000, true, 4.0), {}, rule).kind, PreconditionerKind::jacobi);
}

TEST(PreconditionerChoice, EmptyOrRectangularMatricesAreNamedErrors) {
  const HostCsr empty = csr_from_triplets(0, 0, {}, {}, {});
  EXPECT_HAS(test::error_of<StructureError>([&] { choose_preconditioner(empty, {}); }), "auto: empty matrix");
  const HostCsr wide = csr_from_triplets(2, 3, {0, 1}, {0, 2}, {1.0, 1.0});
  EXPECT_HAS(test::error_of<StructureError>([&] { choose_preconditioner(wide, {}); }),
             "auto: matrix is 2x3, not square");
  // The level counts read sorted rows: a row out of order is named, not miscounted.
  HostCsr unsorted = banded(5, true);
  std::swap(unsorted.entries(unsorted.row_map(2)), unsorted.entries(unsorted.row_map(2) + 2));
  EXPECT_HAS(test::error_of<StructureError>([&] { choose_preconditioner(unsorted, {}); }), "auto");
}

TEST(PreconditionerChoice, RealMatricesGetTheirLevelsAndWhatTheRuleSays) {
  // The levels against the device analysis of `trellis info`, and auto
  // built through the factory: what the choice says, applied as that one.
  const auto list = test::real_matrices();
  TRELLIS_REQUIRE_REAL_MATRICES(list);
  const auto seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const auto& m : list) {
    SCOPED_TRACE(m.file);
    const gallery::Problem p = gallery::load_problem(m.path);
    const PreconditionerChoice c = choose_preconditioner(p.matrix, {});
    const MatrixSummary s = summarize(p.matrix);
    EXPECT_EQ(c.lower_levels, s.lower.num_levels);
    EXPECT_EQ(c.upper_levels, s.upper.num_levels);
    EXPECT_EQ(c.dominance, diagonal_dominance(p.matrix));
    const PreconditionerKind by_levels = c.nonzeros_per_level < AutoRule{}.dd_below_nonzeros_per_level
                                             ? PreconditionerKind::dd
                                             : PreconditionerKind::ilu0;
    EXPECT_EQ(c.kind, c.dominance < AutoRule{}.jacobi_below_dominance ? PreconditionerKind::jacobi : by_levels);
    const BuiltPreconditioner M = make_preconditioner("auto", p.matrix);
    EXPECT_EQ(M.kind, c.kind);
    EXPECT_EQ(M.auto_reason, c.reason);
    EXPECT_EQ(M.setup_report.rfind(c.reason, 0), 0u) << M.setup_report;
    const BuiltPreconditioner same = make_preconditioner(to_string(c.kind), p.matrix);
    const Vec r = test::random_vector(size_t(p.matrix.num_rows), seed);
    EXPECT_LT(test::relative_error(apply_once(*M.preconditioner, r), apply_once(*same.preconditioner, r)), 1e-12);
  }
}

}  // namespace
}  // namespace trellis
