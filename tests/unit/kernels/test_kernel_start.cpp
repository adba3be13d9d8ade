// Starting the libraries and loop kernels (kernels/kernel_start.hpp) runs
// them on small chunks of their own, once per process and element type: it
// must leave nothing behind that a later kernel reads. After every start,
// in both types and twice over, a GEMM and a reduction long enough to use
// the device form's levels (and its scratch buffer, which the start's
// reduction sized first) equal the reference evaluator exactly: their
// inputs are small integers, so every sum is exact in either type.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "support/reference_evaluator.hpp"
#include "tra/einsum/parser.hpp"
#include "tra/kernels/einsum_kernel.hpp"
#include "tra/kernels/kernel_start.hpp"

namespace kernels = tra::kernels;
namespace einsum = tra::einsum;
using tra::Chunk;
using tra::DType;
using tra::Shape;
using tra::testing::Dense;

namespace {

Dense small_integers(const Shape& shape, int seed) {
  Dense d{shape, std::vector<double>(static_cast<size_t>(tra::volume(shape)))};
  for (size_t i = 0; i < d.v.size(); ++i) d.v[i] = static_cast<double>((static_cast<int>(i) * 7 + seed) % 9 - 4);
  return d;
}

// The statement's result on integer inputs, by the kernel in `t` and by the
// reference evaluator.
void expect_exact(const std::string& text, const std::map<std::string, tra::Index>& extent, DType t) {
  const einsum::EinSum st = einsum::parse_einsum(text, {"test", 1, 1});
  std::map<std::string, Dense> in;
  std::vector<Chunk> chunks;
  int seed = 1;
  for (const auto& ref : st.inputs) {
    Shape s;
    for (const auto& l : ref.labels) s.push_back(extent.at(l));
    in[ref.name] = small_integers(s, seed++);
    chunks.push_back(Chunk::from_host(s, in[ref.name].v, t));
  }
  const kernels::EinSumKernel k(st, extent);
  const Chunk out = k.apply(chunks[0], chunks.size() > 1 ? &chunks[1] : nullptr);
  EXPECT_EQ(out.to_host(), tra::testing::evaluate(st, in).v) << text << " in " << tra::dtype_name(t);
}

TEST(KernelStart, LeavesLaterKernelsExact) {
  for (int twice = 0; twice < 2; ++twice)
    for (DType t : {DType::Float64, DType::Float32}) {
      kernels::start_gemm_library(t);
      kernels::start_sparse_library(t, 3);
      kernels::start_loop_kernels(t);
      expect_exact("C[i,k] = sum_{j} A[i,j] * B[j,k]", {{"i", 5}, {"j", 70}, {"k", 3}}, t);
      expect_exact("S[i] = sum_{j} A[i,j]", {{"i", 3}, {"j", 1100}}, t);
    }
}

}  // namespace
