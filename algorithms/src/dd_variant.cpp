#include "trellis/dd/dd_variant.hpp"

#include "trellis/core/errors.hpp"

namespace trellis {

const char* to_string(DdLowerSolve v) {
  switch (v) {
    case DdLowerSolve::spin_loop_lds: return "spin_loop_lds";
    case DdLowerSolve::dag_ec_no_lds: return "dag_ec_no_lds";
    case DdLowerSolve::dag_ec_lds: return "dag_ec_lds";
    case DdLowerSolve::dag_ec_lds_ud: return "dag_ec_lds_ud";
  }
  return "?";
}

const char* to_string(DdApply v) {
  switch (v) {
    case DdApply::dag_ec_ILD_UO: return "dag_ec_ILD_UO";
    case DdApply::dag_vc_ILDUO_fused: return "dag_vc_ILDUO_fused";
    case DdApply::dag_ec_ILDUO_fused: return "dag_ec_ILDUO_fused";
  }
  return "?";
}

const std::vector<DdLowerSolve>& all_dd_lower_solves() {
  static const std::vector<DdLowerSolve> all{DdLowerSolve::spin_loop_lds, DdLowerSolve::dag_ec_no_lds,
                                             DdLowerSolve::dag_ec_lds, DdLowerSolve::dag_ec_lds_ud};
  return all;
}

const std::vector<DdApply>& all_dd_applies() {
  static const std::vector<DdApply> all{DdApply::dag_ec_ILD_UO, DdApply::dag_vc_ILDUO_fused,
                                        DdApply::dag_ec_ILDUO_fused};
  return all;
}

namespace {
template <class E>
E parse_name(const std::string& name, const std::vector<E>& all, const char* what) {
  std::string names;
  for (E v : all) {
    if (name == to_string(v)) return v;
    names += std::string(names.empty() ? "" : ", ") + to_string(v);
  }
  throw InputError(std::string("unknown ") + what + " '" + name + "' (expected one of: " + names + ")");
}
}  // namespace

DdLowerSolve parse_dd_lower_solve(const std::string& name) {
  return parse_name(name, all_dd_lower_solves(), "subdomain lower solve");
}
DdApply parse_dd_apply(const std::string& name) {
  return parse_name(name, all_dd_applies(), "subdomain ILDU0 application");
}

bool is_bit_reproducible(DdLowerSolve v) { return v == DdLowerSolve::spin_loop_lds; }
bool is_bit_reproducible(DdApply v) { return v == DdApply::dag_vc_ILDUO_fused; }

}  // namespace trellis
