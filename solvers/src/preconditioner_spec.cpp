#include "trellis/solvers/detail/preconditioner_spec.hpp"

#include "trellis/core/errors.hpp"

namespace trellis {

namespace {

/// What follows the ':' of a spec, by preconditioner.
enum class VariantKind { none, trsv_algorithm, dd_apply, structilu_kind };

VariantKind variant_kind(PreconditionerKind k) {
  switch (k) {
    case PreconditionerKind::gs:
    case PreconditionerKind::sgs:
    case PreconditionerKind::ilu0: return VariantKind::trsv_algorithm;
    case PreconditionerKind::dd: return VariantKind::dd_apply;
    case PreconditionerKind::structilu: return VariantKind::structilu_kind;
    default: return VariantKind::none;
  }
}

}  // namespace

namespace detail {

PreconditionerSpec read_preconditioner_spec(const std::string& spec) {
  const size_t colon = spec.find(':');
  const std::string name = spec.substr(0, colon);
  const bool has_variant = colon != std::string::npos;
  const std::string variant = has_variant ? spec.substr(colon + 1) : "";
  PreconditionerSpec out;
  try {
    out.kind = parse<PreconditionerKind>(name);
  } catch (const InputError&) {
    std::string accepted = preconditioner_usage(2);
    accepted.pop_back();  // its last newline
    throw InputError("unknown preconditioner '" + spec + "'; accepted:\n" + accepted);
  }
  out.canonical = to_string(out.kind);
  if (!has_variant) return out;
  switch (variant_kind(out.kind)) {
    case VariantKind::none: throw InputError("preconditioner '" + name + "' takes no variant (got '" + spec + "')");
    case VariantKind::trsv_algorithm:
      out.algorithm = parse<TrsvAlgorithm>(variant);
      out.canonical += std::string(":") + to_string(*out.algorithm);
      break;
    case VariantKind::dd_apply:
      out.apply = parse<DdApply>(variant);
      out.canonical += std::string(":") + to_string(*out.apply);
      break;
    case VariantKind::structilu_kind:
      out.structilu = parse<StructIluKind>(variant);
      out.canonical += std::string(":") + to_string(*out.structilu);
      break;
  }
  return out;
}

}  // namespace detail

std::string canonical_preconditioner(const std::string& spec) {
  return detail::read_preconditioner_spec(spec).canonical;
}

std::vector<std::string> preconditioner_names() {
  std::vector<std::string> out;
  for (PreconditionerKind k : values<PreconditionerKind>()) {
    const std::string name = to_string(k);
    out.push_back(name);
    if (variant_kind(k) == VariantKind::trsv_algorithm)
      for (TrsvAlgorithm a : values<TrsvAlgorithm>()) out.push_back(name + ":" + to_string(a));
    if (variant_kind(k) == VariantKind::dd_apply)
      for (DdApply v : values<DdApply>()) out.push_back(name + ":" + to_string(v));
    if (variant_kind(k) == VariantKind::structilu_kind)
      for (StructIluKind v : values<StructIluKind>()) out.push_back(name + ":" + to_string(v));
  }
  return out;
}

std::string preconditioner_usage(int indent) {
  std::string kinds;
  for (PreconditionerKind k : values<PreconditionerKind>()) {
    if (!kinds.empty()) kinds += ", ";
    kinds += to_string(k);
    if (variant_kind(k) == VariantKind::trsv_algorithm) kinds += "[:TRSV]";
    if (variant_kind(k) == VariantKind::dd_apply) kinds += "[:DD-APPLY]";
    if (variant_kind(k) == VariantKind::structilu_kind) kinds += "[:KIND]";
  }
  const std::string pad(indent, ' ');
  return pad + kinds + "\n" + pad + "TRSV      " + names<TrsvAlgorithm>() + " (default auto)\n" + pad + "DD-APPLY  " +
         names<DdApply>() + "\n" + pad + "          (default " + to_string(DdApply::dag_ec_ILDUO_fused) + " on GPUs, " +
         to_string(DdApply::dag_vc_ILDUO_fused) + " on CPUs)\n" + pad + "KIND      " + names<StructIluKind>() +
         " (default ilu0; structilu needs a grid problem)\n";
}

}  // namespace trellis
