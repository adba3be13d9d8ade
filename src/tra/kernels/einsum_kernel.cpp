#include "tra/kernels/einsum_kernel.hpp"

#include <KokkosBlas3_gemm.hpp>
#include <algorithm>
#include <sstream>
#include <type_traits>

#include "tra/common/error.hpp"
#include "tra/kernels/blocks.hpp"
#include "tra/kernels/elementwise.hpp"
#include "tra/kernels/sparse_product.hpp"
#include "tra/kernels/strided.hpp"

namespace tra::kernels {

using einsum::Label;
using einsum::Labels;

namespace {

// On a device a batched contraction runs as GEMMs only when each does at
// least this much work (2·32³ flops); smaller ones run as one loop kernel.
// A host's BLAS call costs a fraction of a microsecond, a GPU's a launch and
// more, so a host keeps calling GEMM for every batch.
constexpr double kMinBatchedGemmFlops = std::is_same_v<MemSpace, Kokkos::HostSpace> ? 0.0 : 2.0 * 32 * 32 * 32;

bool has(const Labels& ls, const Label& l) { return std::find(ls.begin(), ls.end(), l) != ls.end(); }

int position(const Labels& ls, const Label& l) { return static_cast<int>(std::find(ls.begin(), ls.end(), l) - ls.begin()); }

Labels concat(std::initializer_list<const Labels*> parts) {
  Labels out;
  for (const Labels* p : parts) out.insert(out.end(), p->begin(), p->end());
  return out;
}

// The loop kernels on chunks of element type T.
template <class T>
void loop(const char* name, const einsum::ScalarProgram& join, einsum::AggOp agg, bool aligned, const Walk& out, const Walk& inner, const Chunk& x,
          const Chunk* y, Chunk& z) {
  const ElementData<T> xe = x.elements<T>(), ye = elements_or_none<T>(y), ze = z.elements<T>();
  if (aligned) eval_elements<T>(name, join, xe, ye, ze);
  else if (agg == einsum::AggOp::None) eval_walk<T>(name, join, out, xe, ye, ze);
  else eval_reduce<T>(name, join, agg, out, inner, xe, ye, ze);
}

// z[b] = alpha · op(a[b]) · op(c[b]) + beta · z[b] for every batch index b,
// on element type T (KokkosBlas::gemm: dgemm or sgemm, cuBLAS on a GPU).
template <class T>
void batched_gemm(const char* ta, const char* tb, Index nb, Index m, Index n, Index k, double alpha, const ElementData<T>& a, const ElementData<T>& b,
                  double beta, const ElementData<T>& z) {
  using Const = Kokkos::View<const T**, Kokkos::LayoutRight, MemSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using Out = Kokkos::View<T**, Kokkos::LayoutRight, MemSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  for (Index i = 0; i < nb; ++i) {
    Const A(a.data() + i * m * k, ta[0] == 'N' ? m : k, ta[0] == 'N' ? k : m);
    Const B(b.data() + i * k * n, tb[0] == 'N' ? k : n, tb[0] == 'N' ? n : k);
    Out C(z.data() + i * m * n, m, n);
    KokkosBlas::gemm(ta, tb, static_cast<T>(alpha), A, B, static_cast<T>(beta), C);
  }
}

// perm such that permuting `from` by it gives `to`.
std::vector<int> permutation(const Labels& from, const Labels& to) {
  std::vector<int> perm;
  for (const auto& l : to) perm.push_back(position(from, l));
  return perm;
}

}  // namespace

bool EinSumKernel::sparse_product_fits(const einsum::EinSum& st, int sparse_input, std::string* why) {
  auto no = [&](const std::string& reason) {
    if (why) *why = reason;
    return false;
  };
  double alpha = 0;
  if (st.inputs.size() != 2 || sparse_input < 0 || sparse_input > 1) return no("a sparse tensor can only be multiplied by one dense tensor");
  if (st.agg != einsum::AggOp::Sum || !st.join.is_scaled_product(&alpha) || alpha != 1)
    return no("a sparse tensor's statement is a plain sum of products (sum_u A[v,u] * H[u,h])");
  const Labels& s = st.inputs[static_cast<size_t>(sparse_input)].labels;
  const Labels& d = st.inputs[static_cast<size_t>(1 - sparse_input)].labels;
  if (s.size() != 2 || d.size() != 2 || st.output.labels.size() != 2 || st.agg_labels.size() != 1)
    return no("a sparse product has two 2-D inputs, one summed label and a 2-D result");
  const Label& summed = st.agg_labels[0];
  if (!has(s, summed) || !has(d, summed) || s[0] == s[1] || d[0] == d[1])
    return no("the summed label is one of the sparse tensor's two and one of the dense tensor's two");
  const Label& kept_s = s[0] == summed ? s[1] : s[0];
  const Label& kept_d = d[0] == summed ? d[1] : d[0];
  if (kept_s == kept_d || !has(st.output.labels, kept_s) || !has(st.output.labels, kept_d))
    return no("the result's labels are the sparse tensor's and the dense tensor's unsummed ones");
  return true;
}

EinSumKernel::EinSumKernel(const einsum::EinSum& st, const std::map<Label, Index>& extent, int sparse_input, double stored_per_call)
    : x_labels_(st.inputs.at(0).labels), z_labels_(st.output.labels), agg_labels_(st.agg_labels), extent_(extent), agg_(st.agg), join_(st.join),
      inputs_(static_cast<int>(st.inputs.size())) {
  if (inputs_ > 1) y_labels_ = st.inputs[1].labels;
  TRA_ASSERT(z_labels_.size() <= static_cast<size_t>(kMaxRank) && agg_labels_.size() <= static_cast<size_t>(kMaxRank),
             "too many labels for one kernel");
  if (sparse_input >= 0) {
    std::string why;
    TRA_ASSERT(sparse_product_fits(st, sparse_input, &why), "a sparse kernel for " << st.str() << ": " << why);
    sparse_input_ = sparse_input;
    stored_per_call_ = stored_per_call;
    const Labels& s = sparse_input == 0 ? x_labels_ : y_labels_;
    const Labels& d = sparse_input == 0 ? y_labels_ : x_labels_;
    const Label& summed = agg_labels_[0];
    sparse_transposed_ = s[0] == summed;
    sparse_dense_order_ = {summed, d[0] == summed ? d[1] : d[0]};
    sparse_out_order_ = {sparse_transposed_ ? s[1] : s[0], sparse_dense_order_[1]};
    adds_into_ = z_labels_ == sparse_out_order_;
    return;
  }
  if (inputs_ == 2 && agg_ == einsum::AggOp::Sum && join_.is_scaled_product(&alpha_)) {
    bool private_agg = false;
    for (const auto& l : agg_labels_) private_agg |= !(has(x_labels_, l) && has(y_labels_, l));
    if (!private_agg) {
      gemm_ = true;
      for (const auto& l : z_labels_) {
        if (has(x_labels_, l) && has(y_labels_, l)) batch_.push_back(l);
        else if (has(x_labels_, l)) rows_.push_back(l);
        else cols_.push_back(l);
      }
      for (const auto& l : x_labels_)
        if (!has(z_labels_, l)) contracted_.push_back(l);
      // W.grad[f,h] = Σ_b Z.grad[b,h]·X[b,f]: as (Xᵀ·Z.grad), the output's
      // order, instead of a transposition of (Z.gradᵀ·X) after the GEMM.
      if (z_labels_ != concat({&batch_, &rows_, &cols_}) && z_labels_ == concat({&batch_, &cols_, &rows_})) {
        std::swap(rows_, cols_);
        operands_swapped_ = true;
      }
      // Many small GEMMs cost a library call each (on a GPU a launch and
      // more: the LLaMA block's g_ffn.grad[m] = Σ_{b,s} ..., 64 GEMMs of
      // 1 x 1 x 32, took 20 ms on an H200); on a device the loop kernel
      // does them all in one, a tree-folded reduction per output.
      auto product = [&](const Labels& ls) {
        double n = 1;
        for (const auto& l : ls) n *= static_cast<double>(extent_.at(l));
        return n;
      };
      if (product(batch_) > 1 && 2 * product(rows_) * product(cols_) * product(contracted_) < kMinBatchedGemmFlops) {
        gemm_ = operands_swapped_ = false;
        batch_.clear(), rows_.clear(), cols_.clear(), contracted_.clear();
      }
    }
  }
  adds_into_ = gemm_ && z_labels_ == concat({&batch_, &rows_, &cols_});
}

Shape EinSumKernel::shape_of(const Labels& ls) const {
  Shape s;
  for (const auto& l : ls) s.push_back(extent_.at(l));
  return s;
}

std::string EinSumKernel::name() const { return sparse() ? "sparse-product" : gemm_ ? "gemm" : "einsum-loop"; }

double EinSumKernel::flops() const {
  const double nz = static_cast<double>(volume(z_shape()));
  double na = 1;
  for (const auto& l : agg_labels_) na *= static_cast<double>(extent_.at(l));
  if (sparse()) return 2.0 * stored_per_call_ * static_cast<double>(extent_.at(sparse_dense_order_[1]));
  if (gemm_) return 2.0 * nz * na;
  // A copy or a permutation (no operation) still reads and writes each
  // element: an operation's worth (10^6 doubles copied in 5.2 ms on the VM,
  // as many added in 5.9 ms).
  return nz * na * std::max(1, join_.flops_per_eval() + (agg_ == einsum::AggOp::None ? 0 : 1));
}

Chunk EinSumKernel::apply(const Chunk& x, const Chunk* y) const {
  TRA_ASSERT(x.shape == x_shape(), "kernel input x " << shape_string(x.shape) << " expected " << shape_string(x_shape()));
  if (inputs_ == 2) TRA_ASSERT(y && y->shape == y_shape(), "kernel input y expected " << shape_string(y_shape()));
  if (inputs_ == 2) TRA_ASSERT(y->dtype == x.dtype, "kernel inputs of two element types: " << dtype_name(x.dtype) << " and " << dtype_name(y->dtype));
  if (sparse()) {
    Chunk z(shape_of(sparse_out_order_), x.dtype);
    sparse_product(x, *y, z, 0.0);
    if (z_labels_ != sparse_out_order_) return permute(z, permutation(sparse_out_order_, z_labels_));
    const SparseBlock& block = *(sparse_input_ == 0 ? x : *y).sparse;
    z.row_support = (sparse_transposed_ ? block.by_column : block.by_row).filled_rows;
    z.has_row_support = true;
    return z;
  }
  return gemm_ ? apply_gemm(x, *y) : apply_generic(x, y);
}

void EinSumKernel::sparse_product(const Chunk& x, const Chunk& y, Chunk& z, double beta) const {
  const Chunk& block = sparse_input_ == 0 ? x : y;
  const Chunk& dense = sparse_input_ == 0 ? y : x;
  const Labels& dense_labels = sparse_input_ == 0 ? y_labels_ : x_labels_;
  TRA_ASSERT(block.is_sparse() && !dense.is_sparse(), "a sparse product's input " << sparse_input_ << " is not a sparse block, or both are");
  const Chunk ordered = dense_labels == sparse_dense_order_ ? dense : permute(dense, permutation(dense_labels, sparse_dense_order_));
  kernels::sparse_product_into(*block.sparse, sparse_transposed_, ordered, beta, z);
}

Chunk EinSumKernel::apply_generic(const Chunk& x, const Chunk* y) const {
  // Elements that line up need no index arithmetic: the flat element loop.
  const Chunk* y_in = inputs_ == 2 ? y : nullptr;
  if (aligned()) {
    Chunk z = Chunk::uninitialized(z_shape(), x.dtype);
    if (x.dtype == DType::Float32) loop<float>("tra::einsum_aligned", join_, agg_, true, Walk(), Walk(), x, y_in, z);
    else loop<double>("tra::einsum_aligned", join_, agg_, true, Walk(), Walk(), x, y_in, z);
    return z;
  }
  const Shape sx = row_major_strides(x_shape());
  const Shape sy = inputs_ == 2 ? row_major_strides(y_shape()) : Shape{};
  const Shape zs = z_shape();
  const Shape sz = row_major_strides(zs);
  auto stride_in = [&](const Labels& ls, const Shape& strides, const Label& l) -> Index {
    return has(ls, l) ? strides[static_cast<size_t>(position(ls, l))] : 0;
  };
  Walk out, inner;
  out.rank = static_cast<int>(z_labels_.size());
  for (int d = 0; d < out.rank; ++d) {
    const Label& l = z_labels_[d];
    out.extent[d] = zs[d];
    out.stride_a[d] = stride_in(x_labels_, sx, l);
    out.stride_b[d] = inputs_ == 2 ? stride_in(y_labels_, sy, l) : 0;
    out.stride_c[d] = sz[d];
  }
  inner.rank = static_cast<int>(agg_labels_.size());
  for (int d = 0; d < inner.rank; ++d) {
    const Label& l = agg_labels_[d];
    inner.extent[d] = extent_.at(l);
    inner.stride_a[d] = stride_in(x_labels_, sx, l);
    inner.stride_b[d] = inputs_ == 2 ? stride_in(y_labels_, sy, l) : 0;
  }
  Chunk z = Chunk::uninitialized(zs, x.dtype);  // the loop writes every element
  const char* name = agg_ == einsum::AggOp::None ? "tra::einsum_loop" : "tra::einsum_reduce";
  if (x.dtype == DType::Float32) loop<float>(name, join_, agg_, false, out, inner, x, y_in, z);
  else loop<double>(name, join_, agg_, false, out, inner, x, y_in, z);
  return z;
}

Chunk EinSumKernel::apply_gemm(const Chunk& x, const Chunk& y) const {
  const Labels z_n = concat({&batch_, &rows_, &cols_});
  Chunk zc = Chunk::uninitialized(shape_of(z_n), x.dtype);  // beta = 0: GEMM writes every element
  gemm(x, y, zc, 0.0);
  if (z_labels_ == z_n) return zc;
  return permute(zc, permutation(z_n, z_labels_));
}

void EinSumKernel::apply_add(const Chunk& x, const Chunk& y, Chunk& z) const {
  TRA_ASSERT(adds_into(), "kernel " << name() << " cannot add into its output");
  TRA_ASSERT(x.shape == x_shape() && y.shape == y_shape() && z.shape == z_shape(), "kernel apply_add: shapes do not match");
  TRA_ASSERT(x.dtype == z.dtype && y.dtype == z.dtype, "kernel apply_add on chunks of different element types");
  if (sparse()) sparse_product(x, y, z, 1.0);
  else gemm(x, y, z, 1.0);
  z.forget_row_support();  // a sum of products: its rows are no one block's
}

void EinSumKernel::gemm(const Chunk& x, const Chunk& y, Chunk& zc, double beta) const {
  // Bring x to [batch, rows, contracted] (or [batch, contracted, rows], read
  // transposed), y to [batch, contracted, cols] (or transposed), and compute
  // z as [batch, rows, cols] with one GEMM per batch index.
  const Labels x_n = concat({&batch_, &rows_, &contracted_}), x_t = concat({&batch_, &contracted_, &rows_});
  const Labels y_n = concat({&batch_, &contracted_, &cols_}), y_t = concat({&batch_, &cols_, &contracted_});
  // The first and second GEMM operands with their labels.
  const Chunk& first = operands_swapped_ ? y : x;
  const Chunk& second = operands_swapped_ ? x : y;
  const Labels& first_labels = operands_swapped_ ? y_labels_ : x_labels_;
  const Labels& second_labels = operands_swapped_ ? x_labels_ : y_labels_;

  Chunk xa = first, ya = second;
  const char* ta = "N";
  const char* tb = "N";
  if (first_labels == x_t && !rows_.empty() && !contracted_.empty()) ta = "T";
  else if (first_labels != x_n) xa = permute(first, permutation(first_labels, x_n));
  if (second_labels == y_t && !cols_.empty() && !contracted_.empty()) tb = "T";
  else if (second_labels != y_n) ya = permute(second, permutation(second_labels, y_n));

  auto product = [&](const Labels& ls) {
    Index n = 1;
    for (const auto& l : ls) n *= extent_.at(l);
    return n;
  };
  const Index nb = product(batch_), m = product(rows_), n = product(cols_), k = product(contracted_);
  if (zc.dtype == DType::Float32) batched_gemm<float>(ta, tb, nb, m, n, k, alpha_, xa.data_f32, ya.data_f32, beta, zc.data_f32);
  else batched_gemm<double>(ta, tb, nb, m, n, k, alpha_, xa.data, ya.data, beta, zc.data);
}

}  // namespace tra::kernels
