#pragma once
// Names of enum values, for the command line, the benchmarks and messages:
// one table per enum, declared in the enum's header, and these generic
// functions on it.
//
//   template <> struct NameTable<Partitioner> {
//     static constexpr const char* what = "partitioner";   // for error messages
//     static constexpr NameEntry<Partitioner> entries[] = {
//         {Partitioner::automatic, "auto"}, {Partitioner::geometric, "geometric"}, ...};
//   };
//
//   to_string(Partitioner::automatic)   "auto"
//   parse<Partitioner>("Geometric")     Partitioner::geometric
//   names<Partitioner>("|")             "auto|geometric|metis|contiguous|slabs|regions"
//   values<Partitioner>()               every value, in table order
//
// Names are lower-case words joined by '-' ("dag-ec-ilduo-fused"). parse()
// compares case-insensitively and reads '_' as '-', so the papers' spellings
// ("dag_ec_ILDUO_fused") are accepted too; an unknown name is an InputError
// that lists the accepted ones.
#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "trellis/core/errors.hpp"

namespace trellis {

template <class E>
struct NameEntry {
  E value;
  const char* name;
};

/// Specialised beside each named enum (see above).
template <class E>
struct NameTable;

namespace detail {

template <class E, class = void>
struct has_name_table : std::false_type {};
template <class E>
struct has_name_table<E, std::void_t<decltype(NameTable<E>::entries)>> : std::true_type {};
template <class E>
using if_named = std::enable_if_t<has_name_table<E>::value, int>;

/// Lower case, '_' read as '-'.
inline std::string normalized_name(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
    if (c == '_') c = '-';
  }
  return out;
}

}  // namespace detail

/// The canonical name of a value.
template <class E, detail::if_named<E> = 0>
constexpr const char* to_string(E value) {
  for (const auto& e : NameTable<E>::entries)
    if (e.value == value) return e.name;
  return "?";
}

/// Every accepted name, in table order, joined by `separator`.
template <class E, detail::if_named<E> = 0>
std::string names(std::string_view separator = ", ") {
  std::string out;
  for (const auto& e : NameTable<E>::entries) {
    if (!out.empty()) out += separator;
    out += e.name;
  }
  return out;
}

/// The value a name stands for (any case, '_' or '-'); InputError naming
/// the input and listing the accepted names otherwise.
template <class E, detail::if_named<E> = 0>
E parse(std::string_view name) {
  const std::string wanted = detail::normalized_name(name);
  for (const auto& e : NameTable<E>::entries)
    if (wanted == e.name) return e.value;
  throw InputError(std::string("unknown ") + NameTable<E>::what + " '" + std::string(name) +
                   "' (accepted: " + names<E>() + ")");
}

/// Every value of the table, in table order.
template <class E, detail::if_named<E> = 0>
constexpr auto values() {
  constexpr auto& entries = NameTable<E>::entries;
  std::array<E, std::size(entries)> out{};
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = entries[i].value;
  return out;
}

}  // namespace trellis
