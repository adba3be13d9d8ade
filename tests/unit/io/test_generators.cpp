// A generated float32 tensor holds the float64 tensor's values rounded to
// float once, whatever the chunking: the same deck gives the same inputs in
// either type (docs/deck.md's generators), also chunk by chunk and for
// values beyond float's range.
#include <gtest/gtest.h>

#include <cmath>

#include "tra/io/generators.hpp"

namespace tra::io {
namespace {

Generator make(Generator::Kind kind, double a, double b, std::uint64_t seed = 0) {
  Generator g;
  g.kind = kind, g.a = a, g.b = b, g.seed = seed;
  return g;
}

TEST(Generators, Float32ValuesAreTheFloat64ValuesRoundedOnce) {
  const Shape shape{6, 8}, chunk{3, 4};
  for (const Generator& g :
       {make(Generator::Kind::Uniform, -1, 1, 71), make(Generator::Kind::Normal, 0.5, 2, 9), make(Generator::Kind::Arange, 0.1, 0.3),
        make(Generator::Kind::Identity, 0, 1), make(Generator::Kind::Arange, 1e38, 1e37)}) {
    int inexact = 0;
    for (Index i = 0; i < 2; ++i)
      for (Index j = 0; j < 2; ++j) {
        const Chunk wide = generate_chunk(g, shape, chunk, {i, j});
        const Chunk narrow = generate_chunk(g, shape, chunk, {i, j}, DType::Float32);
        EXPECT_EQ(narrow.dtype, DType::Float32);
        const std::vector<double> w = wide.to_host(), n = narrow.to_host();
        for (size_t e = 0; e < w.size(); ++e) {
          EXPECT_EQ(n[e], static_cast<double>(to_float(w[e]))) << g.str() << " chunk " << i << "," << j << " element " << e;
          inexact += n[e] != w[e];
        }
      }
    if (g.kind == Generator::Kind::Identity) EXPECT_EQ(inexact, 0);
    else EXPECT_GT(inexact, 0) << g.str() << ": no value needed rounding, the test would not tell";
  }
}

TEST(Generators, Float32BeyondTheRangeIsInfinite) {
  // arange(1e38, 1e37): from 3.5e38 on, beyond the largest float (3.4e38).
  const Chunk c = generate_chunk(make(Generator::Kind::Arange, 1e38, 1e37), {40}, {40}, {0}, DType::Float32);
  const std::vector<double> v = c.to_host();
  EXPECT_FALSE(std::isinf(v[24]));
  EXPECT_TRUE(std::isinf(v[30]));
}

}  // namespace
}  // namespace tra::io
