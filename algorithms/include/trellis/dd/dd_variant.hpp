#pragma once
// The subdomain solve variants of seed 000 (Tables 5.2 and 5.3), by name.
//
// Edge-centric (ec) variants add each entry's contribution with an atomic, in
// an order that changes from run to run: their results are not
// bit-reproducible. The vertex-centric (vc) and spin-loop variants compute
// each row in a fixed order and are.
#include "trellis/core/name_table.hpp"

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

template <>
struct NameTable<DdLowerSolve> {
  static constexpr const char* what = "subdomain lower solve";
  static constexpr NameEntry<DdLowerSolve> entries[] = {
      {DdLowerSolve::spin_loop_lds, "spin-loop-lds"},
      {DdLowerSolve::dag_ec_no_lds, "dag-ec-no-lds"},
      {DdLowerSolve::dag_ec_lds, "dag-ec-lds"},
      {DdLowerSolve::dag_ec_lds_ud, "dag-ec-lds-ud"},
  };
};

template <>
struct NameTable<DdApply> {
  static constexpr const char* what = "subdomain ILDU0 application";
  static constexpr NameEntry<DdApply> entries[] = {
      {DdApply::dag_ec_ILD_UO, "dag-ec-ild-uo"},
      {DdApply::dag_vc_ILDUO_fused, "dag-vc-ilduo-fused"},
      {DdApply::dag_ec_ILDUO_fused, "dag-ec-ilduo-fused"},
  };
};

/// False for variants that accumulate with atomics.
inline bool is_bit_reproducible(DdLowerSolve v) { return v == DdLowerSolve::spin_loop_lds; }
inline bool is_bit_reproducible(DdApply v) { return v == DdApply::dag_vc_ILDUO_fused; }

}  // namespace trellis
