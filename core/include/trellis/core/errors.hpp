#pragma once
// Typed errors. Every message names the input it is about (file, line, row,
// value) so that a user can find the problem without a debugger.
#include <cstdio>
#include <new>
#include <stdexcept>
#include <string>

namespace trellis {

/// Base of all errors Trellis throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Malformed or unsupported input data: a file, a string spec, an argument.
class InputError : public Error {
 public:
  using Error::Error;
};

/// A Matrix Market file could not be read. what() is "file:line: problem".
class MatrixMarketError : public InputError {
 public:
  MatrixMarketError(const std::string& file, long line, const std::string& problem)
      : InputError(file + ":" + std::to_string(line) + ": " + problem), file_(file), line_(line), problem_(problem) {}
  const std::string& file() const { return file_; }
  long line() const { return line_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string file_;
  long line_;
  std::string problem_;
};

/// A matrix does not have the structure an operation needs (not square,
/// missing diagonal, sizes that do not match, too many nonzeros for offset_t).
class StructureError : public Error {
 public:
  using Error::Error;
};

/// A numerical failure tied to one row: a zero, tiny or non-finite pivot.
class PivotError : public Error {
 public:
  /// "WHAT_FAILED at row ROW (value VALUE)", then ": ADVICE" if given.
  PivotError(const std::string& what_failed, long row, double value, const std::string& advice = "")
      : Error(what_failed + " at row " + std::to_string(row) + " (value " + shortest(value) + ")" +
              (advice.empty() ? "" : ": " + advice)),
        row_(row),
        value_(value) {}
  long row() const { return row_; }
  double value() const { return value_; }

 private:
  static std::string shortest(double v) {
    char s[32];
    std::snprintf(s, sizeof s, "%.6g", v);
    return s;
  }
  long row_;
  double value_;
};

/// Whether an exception says an allocation failed: std::bad_alloc, or the
/// runtime_error Kokkos throws naming the array's label and size.
inline bool is_allocation_failure(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e)) return true;
  const std::string what = e.what();
  return what.find("failed to allocate") != std::string::npos || what.find("allocation failure") != std::string::npos;
}

}  // namespace trellis
