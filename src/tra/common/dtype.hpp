#pragma once
// The element types a chunk may hold. Host-side values (learning rates,
// costs, a program's constants) stay double whatever the chunks hold.
#include <cstddef>
#include <limits>
#include <optional>
#include <string>

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
inline float to_float(double v) {
  constexpr double kOverflow = 0x1.ffffffp+127;  // FLT_MAX + half an ulp: rounds to even, infinity
  if (v >= kOverflow) return std::numeric_limits<float>::infinity();
  if (v <= -kOverflow) return -std::numeric_limits<float>::infinity();
  return static_cast<float>(v);
}

}  // namespace tra
