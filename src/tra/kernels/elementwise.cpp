#include "tra/kernels/elementwise.hpp"

#include <algorithm>
#include <type_traits>

#include "tra/kernels/scratch.hpp"

namespace tra::kernels {

namespace {

constexpr Index kBlock = einsum::ScalarProgram::kBlock;
// A reduction over more than this many inner positions is folded in
// segments of this many (each from the identity, in the order of q), whose
// results are then folded in order: the same order on every backend, so a
// host and a device sum alike, and a device can fold the segments in
// parallel instead of one thread walking 524,288 terms.
constexpr Index kSegment = kSegmentLength;
static_assert(kSegment % kBlock == 0, "host blocks must not cross a segment");

template <class Space>
void run(const char* name, const einsum::ScalarProgram& prog, const ChunkData& x, const ChunkData& y, const ChunkData& z) {
  const Index n = static_cast<Index>(z.extent(0));
  if constexpr (std::is_same_v<typename Space::memory_space, Kokkos::HostSpace>) {
    const Scalar* xp = x.data();
    const Scalar* yp = y.extent(0) ? y.data() : nullptr;
    Scalar* zp = z.data();
    Kokkos::parallel_for(name, Kokkos::RangePolicy<Space>(0, (n + kBlock - 1) / kBlock), [=](const Index blk) {
      const Index s = blk * kBlock;
      prog.eval_block(xp + s, yp ? yp + s : nullptr, zp + s, static_cast<int>(std::min(kBlock, n - s)));
    });
  } else {
    const bool two = y.extent(0) != 0;
    Kokkos::parallel_for(name, Kokkos::RangePolicy<Space>(0, n), KOKKOS_LAMBDA(const Index i) {
      z(i) = prog.eval(x(i), two ? y(i) : Scalar(0));
    });
  }
}

// Steps through the row-major positions of a Walk's shape from `start`,
// keeping the offsets in a and b: an addition per dimension that rolls over
// instead of a division and a remainder per dimension and element (host).
struct Odometer {
  Odometer(const Walk& walk, Index start) : w(walk) {
    for (int d = w.rank - 1; d >= 0; --d) {
      idx[d] = start % w.extent[d];
      start /= w.extent[d];
      a += idx[d] * w.stride_a[d];
      b += idx[d] * w.stride_b[d];
    }
  }
  void next() {
    for (int d = w.rank - 1; d >= 0; --d) {
      a += w.stride_a[d];
      b += w.stride_b[d];
      if (++idx[d] < w.extent[d]) return;
      a -= w.extent[d] * w.stride_a[d];
      b -= w.extent[d] * w.stride_b[d];
      idx[d] = 0;
    }
  }
  const Walk& w;
  Index idx[kMaxRank] = {};
  Index a = 0, b = 0;
};

// Gathers m elements of x and y (y may be null) along the odometer's path.
void gather(Odometer& o, const Scalar* x, const Scalar* y, Scalar* xa, Scalar* yb, int m) {
  for (int i = 0; i < m; ++i, o.next()) {
    xa[i] = x[o.a];
    yb[i] = y ? y[o.b] : Scalar(0);
  }
}

template <class Space>
void run_walk(const char* name, const einsum::ScalarProgram& prog, const Walk& w, const ChunkData& x, const ChunkData& y,
              const ChunkData& z) {
  const Index n = w.count();
  const bool two = y.extent(0) != 0;
  if constexpr (std::is_same_v<typename Space::memory_space, Kokkos::HostSpace>) {
    const Scalar* xp = x.data();
    const Scalar* yp = two ? y.data() : nullptr;
    Scalar* zp = z.data();
    Kokkos::parallel_for(name, Kokkos::RangePolicy<Space>(0, (n + kBlock - 1) / kBlock), [=](const Index blk) {
      const Index s = blk * kBlock;
      const int m = static_cast<int>(std::min(kBlock, n - s));
      Odometer o(w, s);
      Scalar a[kBlock], b[kBlock];
      gather(o, xp, yp, a, b, m);
      prog.eval_block(a, two ? b : nullptr, zp + s, m);
    });
  } else {
    Kokkos::parallel_for(name, Kokkos::RangePolicy<Space>(0, n), KOKKOS_LAMBDA(const Index p) {
      Index oa, ob, oc;
      w.offsets(p, oa, ob, oc);
      z(oc) = prog.eval(x(oa), two ? y(ob) : Scalar(0));
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
// order of the inner walk from the identity, so the results equal the
// one-output-at-a-time loop's bit for bit.
void run_reduce_by_columns(const char* name, const einsum::ScalarProgram& prog, einsum::AggOp agg, const Walk& out, const Walk& inner,
                           const Scalar* xp, const Scalar* yp, Scalar* zp) {
  const int d = out.rank - 1;
  const Index len = out.extent[d], tiles = (len + kBlock - 1) / kBlock, rows = out.count() / len, n_inner = inner.count();
  const bool x_runs = out.stride_a[d] == 1, y_runs = out.stride_b[d] == 1;
  Kokkos::parallel_for(name, Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, rows * tiles), [=](const Index job) {
    const Index t0 = (job % tiles) * kBlock;
    const int m = static_cast<int>(std::min(kBlock, len - t0));
    Index ox, oy, oz;
    out.offsets((job / tiles) * len + t0, ox, oy, oz);
    Scalar acc[kBlock], seg[kBlock], a[kBlock], b[kBlock], v[kBlock];
    std::fill(acc, acc + m, einsum::agg_identity(agg));
    Odometer o(inner, 0);
    for (Index q0 = 0; q0 < n_inner; q0 += kSegment) {  // segment by segment (kSegment)
      std::fill(seg, seg + m, einsum::agg_identity(agg));
      for (Index q = q0; q < std::min(q0 + kSegment, n_inner); ++q, o.next()) {
        const Scalar* pa = xp + ox + o.a;
        if (!x_runs) std::fill(a, a + m, *pa);
        const Scalar* pb = yp ? yp + oy + o.b : nullptr;
        if (pb && !y_runs) std::fill(b, b + m, *pb);
        prog.eval_block(x_runs ? pa : a, pb ? (y_runs ? pb : b) : nullptr, v, m);
        for (int i = 0; i < m; ++i) seg[i] = einsum::agg_combine(agg, seg[i], v[i]);
      }
      for (int i = 0; i < m; ++i) acc[i] = einsum::agg_combine(agg, acc[i], seg[i]);
    }
    std::copy(acc, acc + m, zp + oz);
  });
}

// The device's reduction, valid on any execution space (the tests run it on
// the host and compare it with the host form, bit for bit): one thread per
// (output, segment) folds its segment from the identity, then one thread
// per output folds the segments' results in order.
template <class Space>
void reduce_device_form(const char* name, const einsum::ScalarProgram& prog, einsum::AggOp agg, const Walk& out, const Walk& inner,
                        const ChunkData& x, const ChunkData& y, const ChunkData& z) {
  const Index n_inner = inner.count(), outputs = out.count();
  const Index segments = n_inner == 0 ? 1 : (n_inner + kSegment - 1) / kSegment;
  const bool two = y.extent(0) != 0;
  const ChunkData part = scratch(static_cast<size_t>(outputs * segments));  // kept between reductions (no allocation each)
  Kokkos::parallel_for(name, Kokkos::RangePolicy<Space>(0, outputs * segments), KOKKOS_LAMBDA(const Index job) {
    const Index p = job / segments, q0 = (job % segments) * kSegment;
    const Index q1 = q0 + kSegment < n_inner ? q0 + kSegment : n_inner;
    Index ox, oy, oz;
    out.offsets(p, ox, oy, oz);
    Scalar acc = einsum::agg_identity(agg);
    for (Index q = q0; q < q1; ++q) {
      Index ax, ay, unused;
      inner.offsets(q, ax, ay, unused);
      acc = einsum::agg_combine(agg, acc, prog.eval(x(ox + ax), two ? y(oy + ay) : Scalar(0)));
    }
    part(job) = acc;
  });
  Kokkos::parallel_for(name, Kokkos::RangePolicy<Space>(0, outputs), KOKKOS_LAMBDA(const Index p) {
    Index ox, oy, oz;
    out.offsets(p, ox, oy, oz);
    Scalar acc = einsum::agg_identity(agg);
    for (Index s = 0; s < segments; ++s) acc = einsum::agg_combine(agg, acc, part(p * segments + s));
    z(oz) = acc;
  });
}

template <class Space>
void run_reduce(const char* name, const einsum::ScalarProgram& prog, einsum::AggOp agg, const Walk& out, const Walk& inner,
                const ChunkData& x, const ChunkData& y, const ChunkData& z) {
  const Index n_inner = inner.count();
  const bool two = y.extent(0) != 0;
  if constexpr (std::is_same_v<typename Space::memory_space, Kokkos::HostSpace>) {
    const Scalar* xp = x.data();
    const Scalar* yp = two ? y.data() : nullptr;
    Scalar* zp = z.data();
    if (reduce_by_columns(out, inner, two)) return run_reduce_by_columns(name, prog, agg, out, inner, xp, yp, zp);
    Kokkos::parallel_for(name, Kokkos::RangePolicy<Space>(0, out.count()), [=](const Index p) {
      Index ox, oy, oz;
      out.offsets(p, ox, oy, oz);
      Odometer o(inner, 0);
      Scalar a[kBlock], b[kBlock], v[kBlock];
      Scalar acc = einsum::agg_identity(agg), seg = acc;
      for (Index q = 0; q < n_inner; q += kBlock) {
        if (q % kSegment == 0) seg = einsum::agg_identity(agg);
        const int m = static_cast<int>(std::min(kBlock, n_inner - q));
        gather(o, xp + ox, yp ? yp + oy : nullptr, a, b, m);
        prog.eval_block(a, two ? b : nullptr, v, m);
        for (int i = 0; i < m; ++i) seg = einsum::agg_combine(agg, seg, v[i]);  // in the order of q, as on a device
        if ((q + kBlock) % kSegment == 0 || q + kBlock >= n_inner) acc = einsum::agg_combine(agg, acc, seg);
      }
      zp[oz] = acc;
    });
  } else {
    reduce_device_form<Space>(name, prog, agg, out, inner, x, y, z);
  }
}

}  // namespace

void eval_walk(const char* name, const einsum::ScalarProgram& prog, const Walk& walk, const ChunkData& x, const ChunkData& y,
               const ChunkData& z) {
  run_walk<ExecSpace>(name, prog, walk, x, y, z);
}

void eval_reduce(const char* name, const einsum::ScalarProgram& prog, einsum::AggOp agg, const Walk& out, const Walk& inner,
                 const ChunkData& x, const ChunkData& y, const ChunkData& z) {
  run_reduce<ExecSpace>(name, prog, agg, out, inner, x, y, z);
}

void eval_reduce_device_form(const char* name, const einsum::ScalarProgram& prog, einsum::AggOp agg, const Walk& out, const Walk& inner,
                              const ChunkData& x, const ChunkData& y, const ChunkData& z) {
  reduce_device_form<ExecSpace>(name, prog, agg, out, inner, x, y, z);
}

void eval_elements(const char* name, const einsum::ScalarProgram& prog, const ChunkData& x, const ChunkData& y, const ChunkData& z) {
  run<ExecSpace>(name, prog, x, y, z);
}

}  // namespace tra::kernels
