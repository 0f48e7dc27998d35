#pragma once
// The subdomain solve variants of seed 000 (Tables 5.2 and 5.3), by name.
//
// Edge-centric (ec) variants add each entry's contribution with an atomic, in
// an order that changes from run to run: their results are not
// bit-reproducible. The vertex-centric (vc) and spin-loop variants compute
// each row in a fixed order and are.
#include <string>
#include <vector>

namespace trellis {

/// Lower solves with the ILU0 lower factor including its diagonal, y = (L D)^{-1} r.
enum class DdLowerSolve {
  spin_loop_lds,  // Algorithm 4.1: ready flags, subdomain vector in scratch
  dag_ec_no_lds,  // per-subdomain DAG, edge-centric, vector in global memory
  dag_ec_lds,     // the same with the subdomain vector in scratch
  dag_ec_lds_ud,  // unit-diagonal L, scaling by D^{-1} once after the solve (ILDU0)
};

/// Preconditioner applications z = (L D U')^{-1} r.
enum class DdApply {
  dag_ec_ILD_UO,       // two kernels: (L D) lower solve, then unit U' upper solve
  dag_vc_ILDUO_fused,  // one kernel: L, D^{-1}, U' with the vector in scratch, vertex-centric
  dag_ec_ILDUO_fused,  // the same, edge-centric
};

const char* to_string(DdLowerSolve v);
const char* to_string(DdApply v);
/// Inverses of to_string; throw InputError listing the accepted names.
DdLowerSolve parse_dd_lower_solve(const std::string& name);
DdApply parse_dd_apply(const std::string& name);
const std::vector<DdLowerSolve>& all_dd_lower_solves();
const std::vector<DdApply>& all_dd_applies();
/// False for variants that accumulate with atomics.
bool is_bit_reproducible(DdLowerSolve v);
bool is_bit_reproducible(DdApply v);

}  // namespace trellis
