#include "tra/kernels/elementwise.hpp"

#include <algorithm>
#include <type_traits>
#include <vector>

#include "tra/kernels/element_evaluators.hpp"
#include "tra/kernels/scratch.hpp"
#include "tra/kernels/tree_fold.hpp"

namespace tra::kernels {

namespace {

constexpr Index kBlock = einsum::ScalarProgram::kBlock;

template <class Space, class T, class E>
void run(const char* name, const E& eval, const ElementData<T>& x, const ElementData<T>& y, const ElementData<T>& z) {
  const Index n = static_cast<Index>(z.extent(0));
  if constexpr (std::is_same_v<typename Space::memory_space, Kokkos::HostSpace>) {
    const T* xp = x.data();
    const T* yp = y.extent(0) ? y.data() : nullptr;
    T* zp = z.data();
    Kokkos::parallel_for(name, Kokkos::RangePolicy<Space>(0, (n + kBlock - 1) / kBlock), [=](const Index blk) {
      const Index s = blk * kBlock;
      eval.block(xp + s, yp ? yp + s : nullptr, zp + s, static_cast<int>(std::min(kBlock, n - s)));
    });
  } else {
    const bool two = y.extent(0) != 0;
    Kokkos::parallel_for(
        name, Kokkos::RangePolicy<Space>(0, n), KOKKOS_LAMBDA(const Index i) { z(i) = eval(x(i), two ? y(i) : T(0)); });
  }
}

// Gathers m elements of x and y (y may be null) along the odometer's path.
template <class T>
void gather(Odometer& o, const T* x, const T* y, T* xa, T* yb, int m) {
  for (int i = 0; i < m; ++i, o.next()) {
    xa[i] = x[o.a];
    yb[i] = y ? y[o.b] : T(0);
  }
}

template <class Space, class T, class E>
void run_walk(const char* name, const E& eval, const Walk& w, const ElementData<T>& x, const ElementData<T>& y, const ElementData<T>& z) {
  const Index n = w.count();
  const bool two = y.extent(0) != 0;
  if constexpr (std::is_same_v<typename Space::memory_space, Kokkos::HostSpace>) {
    const T* xp = x.data();
    const T* yp = two ? y.data() : nullptr;
    T* zp = z.data();
    Kokkos::parallel_for(name, Kokkos::RangePolicy<Space>(0, (n + kBlock - 1) / kBlock), [=](const Index blk) {
      const Index s = blk * kBlock;
      const int m = static_cast<int>(std::min(kBlock, n - s));
      Odometer o(w, s);
      T a[kBlock], b[kBlock];
      gather(o, xp, yp, a, b, m);
      eval.block(a, two ? b : nullptr, zp + s, m);
    });
  } else {
    Kokkos::parallel_for(
        name, Kokkos::RangePolicy<Space>(0, n), KOKKOS_LAMBDA(const Index p) {
          Index oa, ob, oc;
          w.offsets(p, oa, ob, oc);
          z(oc) = eval(x(oa), two ? y(ob) : T(0));
        });
  }
}

// Outputs consecutive along the last output dimension, whose inputs are
// consecutive (or one value) along it too, reduced together with the inner
// walk outermost: a bias gradient Σ_b G[b,h] then reads runs of G's rows
// instead of one element per cache line. Inner walks that are contiguous
// themselves (a row sum) are read best one output at a time.
bool reduce_by_columns(const Walk& out, const Walk& inner, bool two) {
  if (out.rank == 0 || inner.rank == 0) return false;
  const int d = out.rank - 1, e = inner.rank - 1;
  auto unit_or_zero = [](Index s) { return s == 0 || s == 1; };
  if (out.stride_c[d] != 1 || out.extent[d] < 8 || !unit_or_zero(out.stride_a[d]) || (two && !unit_or_zero(out.stride_b[d]))) return false;
  return inner.stride_a[e] != 1 && (!two || inner.stride_b[e] != 1);
}

// Host: reduce_by_columns' loop. Each output still folds its values in the
// tree order (kernels/tree_fold.hpp), one lane per output, so the results
// equal the one-output-at-a-time loop's bit for bit.
template <class T, class E>
void run_reduce_by_columns(const char* name, const E& eval, einsum::AggOp agg, const Walk& out, const Walk& inner, const T* xp, const T* yp, T* zp) {
  const int d = out.rank - 1;
  const Index len = out.extent[d], tiles = (len + kBlock - 1) / kBlock, rows = out.count() / len, n_inner = inner.count();
  const bool x_runs = out.stride_a[d] == 1, y_runs = out.stride_b[d] == 1;
  Kokkos::parallel_for(name, Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, rows * tiles), [=](const Index job) {
    const Index t0 = (job % tiles) * kBlock;
    const int m = static_cast<int>(std::min(kBlock, len - t0));
    Index ox, oy, oz;
    out.offsets((job / tiles) * len + t0, ox, oy, oz);
    T a[kBlock], b[kBlock], v[kBlock];
    TreeFold<kBlock, T> fold(agg, n_inner, m);
    Odometer o(inner, 0);
    for (Index q = 0; q < n_inner; ++q, o.next()) {
      const T* pa = xp + ox + o.a;
      if (!x_runs) std::fill(a, a + m, *pa);
      const T* pb = yp ? yp + oy + o.b : nullptr;
      if (pb && !y_runs) std::fill(b, b + m, *pb);
      eval.block(x_runs ? pa : a, pb ? (y_runs ? pb : b) : nullptr, v, m);
      fold.push(v);
    }
    fold.finish(zp + oz);
  });
}

// The levels of the device's reduction above its first (kernels/tree_fold.hpp):
// `groups[l]` partial results per output at level l, all of them in `part`,
// level after level; the top's folded into z. The same for every ⊗: a
// kernel per element type, not per form.
template <class Space, class T>
void fold_levels_above(const char* name, einsum::AggOp agg, const Walk& out, const std::vector<Index>& groups, const ElementData<T>& part,
                       const ElementData<T>& z) {
  const Index outputs = out.count();
  const int levels = static_cast<int>(groups.size());
  Index from = 0;
  for (int l = 1; l <= levels; ++l) {
    const Index len = groups[static_cast<size_t>(l - 1)], to = from + outputs * len;
    const bool top = l == levels;
    const Index next = top ? 1 : groups[static_cast<size_t>(l)];
    Kokkos::parallel_for(
        name, Kokkos::RangePolicy<Space>(0, outputs * next), KOKKOS_LAMBDA(const Index job) {
          const Index p = job / next, j0 = top ? 0 : (job % next) * kFoldWidth;
          const Index j1 = top ? len : (j0 + kFoldWidth < len ? j0 + kFoldWidth : len);
          T acc = einsum::agg_identity<T>(agg);
          for (Index j = j0; j < j1; ++j) acc = einsum::agg_combine(agg, acc, part(from + p * len + j));
          if (top) {
            Index ox, oy, oz;
            out.offsets(p, ox, oy, oz);
            z(oz) = acc;
          } else {
            part(to + job) = acc;
          }
        });
    from = to;
  }
}

// The device's reduction, valid on any execution space (the tests run it on
// the host and compare it with the host form, bit for bit): the tree of
// kernels/tree_fold.hpp a level at a time, one thread per output and group,
// every level's results in one scratch buffer. The first level evaluates ⊗.
template <class Space, class T, class E>
void reduce_device_form(const char* name, const E& eval, einsum::AggOp agg, const Walk& out, const Walk& inner, const ElementData<T>& x,
                        const ElementData<T>& y, const ElementData<T>& z) {
  const Index n_inner = inner.count(), outputs = out.count();
  const int levels = fold_levels(n_inner);
  const bool two = y.extent(0) != 0;
  // Groups per output at each level above the values; the top's are folded into z.
  std::vector<Index> groups;
  for (Index len = n_inner; groups.size() < static_cast<size_t>(levels);) groups.push_back(len = (len + kFoldWidth - 1) / kFoldWidth);
  Index total = 0;
  for (Index g : groups) total += outputs * g;
  const ElementData<T> part = scratch<T>(static_cast<size_t>(std::max<Index>(total, 1)));  // kept between reductions (no allocation each)
  const Index first = levels == 0 ? 1 : groups[0];
  Kokkos::parallel_for(
      name, Kokkos::RangePolicy<Space>(0, outputs * first), KOKKOS_LAMBDA(const Index job) {
        const Index p = job / first, q0 = (job % first) * kFoldWidth;
        const Index q1 = levels == 0 ? n_inner : (q0 + kFoldWidth < n_inner ? q0 + kFoldWidth : n_inner);
        Index ox, oy, oz;
        out.offsets(p, ox, oy, oz);
        T acc = einsum::agg_identity<T>(agg);
        for (Index q = q0; q < q1; ++q) {
          Index ax, ay, unused;
          inner.offsets(q, ax, ay, unused);
          acc = einsum::agg_combine(agg, acc, eval(x(ox + ax), two ? y(oy + ay) : T(0)));
        }
        if (levels == 0) z(oz) = acc;
        else part(job) = acc;
      });
  fold_levels_above<Space, T>(name, agg, out, groups, part, z);
}

template <class Space, class T, class E>
void run_reduce(const char* name, const E& eval, einsum::AggOp agg, const Walk& out, const Walk& inner, const ElementData<T>& x,
                const ElementData<T>& y, const ElementData<T>& z) {
  const Index n_inner = inner.count();
  const bool two = y.extent(0) != 0;
  if constexpr (std::is_same_v<typename Space::memory_space, Kokkos::HostSpace>) {
    const T* xp = x.data();
    const T* yp = two ? y.data() : nullptr;
    T* zp = z.data();
    if (reduce_by_columns(out, inner, two)) return run_reduce_by_columns<T>(name, eval, agg, out, inner, xp, yp, zp);
    Kokkos::parallel_for(name, Kokkos::RangePolicy<Space>(0, out.count()), [=](const Index p) {
      Index ox, oy, oz;
      out.offsets(p, ox, oy, oz);
      Odometer o(inner, 0);
      T a[kBlock], b[kBlock], v[kBlock];
      TreeFold<1, T> fold(agg, n_inner, 1);
      for (Index q = 0; q < n_inner; q += kBlock) {
        const int m = static_cast<int>(std::min(kBlock, n_inner - q));
        gather(o, xp + ox, yp ? yp + oy : nullptr, a, b, m);
        eval.block(a, two ? b : nullptr, v, m);
        for (int i = 0; i < m; ++i) fold.push(v[i]);  // in the order of q, as on a device
      }
      fold.finish(zp + oz);
    });
  } else {
    reduce_device_form<Space, T>(name, eval, agg, out, inner, x, y, z);
  }
}

}  // namespace

template <class T>
void eval_walk(const char* name, const einsum::ScalarProgram& prog, const Walk& walk, const ElementData<T>& x, const ElementData<T>& y,
               const ElementData<T>& z) {
  with_evaluator<T>(prog, [&](const auto& e) { run_walk<ExecSpace, T>(name, e, walk, x, y, z); });
}

template <class T>
void eval_reduce(const char* name, const einsum::ScalarProgram& prog, einsum::AggOp agg, const Walk& out, const Walk& inner, const ElementData<T>& x,
                 const ElementData<T>& y, const ElementData<T>& z) {
  with_evaluator<T>(prog, [&](const auto& e) { run_reduce<ExecSpace, T>(name, e, agg, out, inner, x, y, z); });
}

template <class T>
void eval_reduce_device_form(const char* name, const einsum::ScalarProgram& prog, einsum::AggOp agg, const Walk& out, const Walk& inner,
                             const ElementData<T>& x, const ElementData<T>& y, const ElementData<T>& z) {
  with_evaluator<T>(prog, [&](const auto& e) { reduce_device_form<ExecSpace, T>(name, e, agg, out, inner, x, y, z); });
}

template <class T>
void eval_elements(const char* name, const einsum::ScalarProgram& prog, const ElementData<T>& x, const ElementData<T>& y, const ElementData<T>& z) {
  with_evaluator<T>(prog, [&](const auto& e) { run<ExecSpace, T>(name, e, x, y, z); });
}

// The element types chunks hold.
#define TRA_ELEMENTWISE_FOR(T)                                                                                                                    \
  template void eval_elements<T>(const char*, const einsum::ScalarProgram&, const ElementData<T>&, const ElementData<T>&, const ElementData<T>&); \
  template void eval_walk<T>(const char*, const einsum::ScalarProgram&, const Walk&, const ElementData<T>&, const ElementData<T>&,                \
                             const ElementData<T>&);                                                                                              \
  template void eval_reduce<T>(const char*, const einsum::ScalarProgram&, einsum::AggOp, const Walk&, const Walk&, const ElementData<T>&,         \
                               const ElementData<T>&, const ElementData<T>&);                                                                     \
  template void eval_reduce_device_form<T>(const char*, const einsum::ScalarProgram&, einsum::AggOp, const Walk&, const Walk&,                    \
                                           const ElementData<T>&, const ElementData<T>&, const ElementData<T>&);
TRA_ELEMENTWISE_FOR(double)
TRA_ELEMENTWISE_FOR(float)
#undef TRA_ELEMENTWISE_FOR

}  // namespace tra::kernels
