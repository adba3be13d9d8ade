#pragma once
// The element types a chunk may hold. Host-side values (learning rates,
// costs, a program's constants) stay double whatever the chunks hold.
#include <Kokkos_Macros.hpp>

#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <type_traits>

namespace tra {

enum class DType : unsigned char { Float64, Float32 };

inline const char* dtype_name(DType t) { return t == DType::Float32 ? "float32" : "float64"; }

inline std::size_t element_bytes(DType t) { return t == DType::Float32 ? 4 : 8; }

// "float64" or "float32"; nothing for any other name.
inline std::optional<DType> dtype_named(const std::string& name) {
  if (name == "float64") return DType::Float64;
  if (name == "float32") return DType::Float32;
  return std::nullopt;
}

// The DType of an element type.
template <class T>
constexpr DType dtype_of();
template <>
constexpr DType dtype_of<double>() {
  return DType::Float64;
}
template <>
constexpr DType dtype_of<float>() {
  return DType::Float32;
}

// v rounded to the nearest float, as IEEE 754 and NumPy's astype(float32)
// round it: beyond the largest float by half its last place or more, to
// ±infinity (a C++ conversion of such a double is undefined).
// Host and device code alike (the generators round on the device).
KOKKOS_INLINE_FUNCTION float to_float(double v) {
  constexpr double kOverflow = 0x1.ffffffp+127;  // FLT_MAX + half an ulp: rounds to even, infinity
  if (v >= kOverflow) return HUGE_VALF;
  if (v <= -kOverflow) return -HUGE_VALF;
  return static_cast<float>(v);
}

// v as an element of type T: itself, or rounded to the nearest float.
template <class T>
KOKKOS_INLINE_FUNCTION T to_element(double v) {
  if constexpr (std::is_same_v<T, float>) return to_float(v);
  else return v;
}

}  // namespace tra
