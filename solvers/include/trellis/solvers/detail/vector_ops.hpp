#pragma once
// The vector operations of the Krylov drivers. Every reduction goes through
// dot() here, so that a distributed build can make them global in one place.
#include <KokkosBlas1_axpby.hpp>
#include <KokkosBlas1_dot.hpp>
#include <KokkosBlas1_scal.hpp>
#include <KokkosBlas1_update.hpp>
#include <cmath>

namespace trellis::detail {

template <class X, class Y>
typename X::non_const_value_type dot(const X& x, const Y& y) {
  return KokkosBlas::dot(x, y);
}

template <class X>
typename X::non_const_value_type norm2(const X& x) {
  return std::sqrt(dot(x, x));
}

/// y = a x + b y.
template <class Scalar, class X, class Y>
void axpby(Scalar a, const X& x, Scalar b, const Y& y) {
  KokkosBlas::axpby(a, x, b, y);
}

/// z = a x + b y + c z, in one pass (c = 0: z is not read).
template <class Scalar, class X, class Y, class Z>
void update(Scalar a, const X& x, Scalar b, const Y& y, Scalar c, const Z& z) {
  KokkosBlas::update(a, x, b, y, c, z);
}

/// y = a x.
template <class Scalar, class X, class Y>
void scale(Scalar a, const X& x, const Y& y) {
  KokkosBlas::scal(y, a, x);
}

}  // namespace trellis::detail
