// A chunk holds float64 or float32 elements: values given to a float32 chunk
// round to the nearest float once, its elements widen to double exactly,
// it starts zeroed, and it cannot be read as the other type.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "tra/common/error.hpp"
#include "tra/core/chunk.hpp"

namespace tra {
namespace {

TEST(Chunk, Float32ValuesRoundToTheNearestFloatAndWidenExactly) {
  const std::vector<double> given = {0.1, -1.0 / 3.0, 1e-50, 3.4e39, 16777217.0, 0.0};
  const Chunk c = Chunk::from_host({2, 3}, given, DType::Float32);
  EXPECT_EQ(c.dtype, DType::Float32);
  EXPECT_EQ(c.data_f32.extent(0), 6u);
  EXPECT_EQ(c.data.extent(0), 0u);
  const std::vector<double> back = c.to_host();
  for (size_t i = 0; i < given.size(); ++i) EXPECT_EQ(back[i], static_cast<double>(static_cast<float>(given[i]))) << i;
  EXPECT_NE(back[0], 0.1);  // rounded: 0.1 is not a float
  EXPECT_EQ(back[2], 0.0);  // below the floats' range: to zero
  EXPECT_TRUE(std::isinf(back[3]));  // above it: to infinity
  EXPECT_EQ(back[4], 16777216.0);  // 2^24 + 1 rounds to even
}

// Round to nearest at the top of float's range, as IEEE 754 and NumPy's
// astype(float32): up to half an ulp above the largest float rounds down to
// it; from there, to infinity (the tie goes to even: infinity).
TEST(Chunk, ToFloatRoundsLikeIeeeAtTheTopOfTheRange) {
  const double max = std::numeric_limits<float>::max(), half_ulp = std::ldexp(1.0, 103);
  EXPECT_EQ(to_float(max), std::numeric_limits<float>::max());
  EXPECT_EQ(to_float(max + half_ulp / 2), std::numeric_limits<float>::max());
  EXPECT_TRUE(std::isinf(to_float(max + half_ulp)));
  EXPECT_EQ(to_float(-(max + half_ulp)), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(to_float(std::nan(""))));
  EXPECT_EQ(to_float(1e-50), 0.0f);
}

TEST(Chunk, Float64KeepsEveryBit) {
  const std::vector<double> given = {0.1, -1.0 / 3.0, 1e-300};
  EXPECT_EQ(Chunk::from_host({3}, given).to_host(), given);
}

TEST(Chunk, StartsZeroedInEitherType) {
  for (DType t : {DType::Float64, DType::Float32}) {
    const Chunk c({4, 5}, t);
    EXPECT_EQ(c.dtype, t);
    EXPECT_EQ(c.to_host(), std::vector<double>(20, 0.0)) << dtype_name(t);
  }
}

TEST(Chunk, IsReadOnlyAsItsOwnType) {
  const Chunk f = Chunk::from_host({2}, {1.5, 2.5}, DType::Float32);
  EXPECT_EQ(f.elements<float>().extent(0), 2u);
  EXPECT_THROW(f.elements<double>(), InternalError);
  const Chunk d = Chunk::from_host({2}, {1.5, 2.5});
  EXPECT_THROW(d.elements<float>(), InternalError);
  // with_elements hands each its own View.
  EXPECT_EQ(with_elements(f, [](const auto& v) { return sizeof(typename std::decay_t<decltype(v)>::value_type); }), sizeof(float));
  EXPECT_EQ(with_elements(d, [](const auto& v) { return sizeof(typename std::decay_t<decltype(v)>::value_type); }), sizeof(double));
}

}  // namespace
}  // namespace tra
