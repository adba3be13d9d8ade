#include "tra/app/measure_rates.hpp"

#include <unistd.h>
#include <KokkosBlas3_gemm.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

#include "tra/app/plan_deck.hpp"
#include "tra/comm/agreement.hpp"
#include "tra/comm/exchange.hpp"
#include "tra/common/error.hpp"
#include "tra/common/split_mix64.hpp"
#include "tra/common/timer.hpp"
#include "tra/einsum/parser.hpp"
#include "tra/exec/executor.hpp"
#include "tra/io/deck/deck_reader.hpp"
#include "tra/io/generators.hpp"
#include "tra/io/hdf5/reader.hpp"
#include "tra/io/hdf5/writer.hpp"
#include "tra/kernels/combine.hpp"
#include "tra/kernels/sparse_product.hpp"

namespace tra::app {
namespace {

// Measurements: every one is preceded by an untimed warm-up run (first-touch
// page faults, BLAS and MPI set-up) and keeps the best of kRepeats timed runs.
// Ranks start each run together, so the per-site rates include the contention
// of all sites working at once, as they do in tra-run. A run's time is its
// slowest rank's: where ranks share a CPU (emulated nodes, more ranks than
// cores) one may finish before another starts, and the best of each rank's
// own runs would be an uncontended time that no run of tra-run sees.
constexpr int kRepeats = 3;

template <class F>
double best_seconds(const comm::Communicator& c, F&& run) {
  run();
  double best = HUGE_VAL;
  for (int i = 0; i < kRepeats; ++i) {
    c.barrier();
    Stopwatch sw;
    run();
    best = std::min(best, c.max(sw.seconds()));
  }
  return best;
}

// The time of an m x k by k x n GEMM of T (double: dgemm, float: sgemm).
template <typename T>
double gemm_seconds(const comm::Communicator& c, Index m, Index k, Index n) {
  ElementData<T> a("calibrate-A", m * k), b("calibrate-B", k * n), z("calibrate-C", m * n);
  Kokkos::deep_copy(a, T(0.5));
  Kokkos::deep_copy(b, T(0.25));
  // The views kernels::EinSumKernel::apply_gemm passes, so the same BLAS path runs.
  using Matrix = Kokkos::View<T**, Kokkos::LayoutRight, MemSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using ConstMatrix = Kokkos::View<const T**, Kokkos::LayoutRight, MemSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  ConstMatrix A(a.data(), m, k), B(b.data(), k, n);
  Matrix C(z.data(), m, n);
  return best_seconds(c, [&] {
    KokkosBlas::gemm("N", "N", T(1), A, B, T(0), C);
    Kokkos::fence();
  });
}

// The GEMM rates, solved together from a square GEMM (1024^3) and a thin one
// (64 rows, as a labeling cut fine leaves them; operands larger than a
// cache): each takes t = flops / gemm_flops + bytes / memory_bytes, the
// bytes being its two operands read and its result written once. The square
// one is nearly all flops, the thin one shows the traffic.
struct GemmRates {
  double flops = 0, bytes = 0;  // per second; 0 where the timings do not determine it
};

template <typename T>
GemmRates gemm_rates(const comm::Communicator& c) {
  auto flops = [](Index m, Index k, Index n) { return 2.0 * static_cast<double>(m * k * n); };
  auto bytes = [](Index m, Index k, Index n) { return static_cast<double>(m * k + k * n + m * n) * sizeof(T); };
  const Index s = 1024, m = 64, k = 8192, n = 1024;
  const double t_square = gemm_seconds<T>(c, s, s, s), t_thin = gemm_seconds<T>(c, m, k, n);
  // t_square = F1 x + B1 y, t_thin = F2 x + B2 y, with x = 1 / gemm_flops, y = 1 / memory_bytes.
  const double f1 = flops(s, s, s), b1 = bytes(s, s, s), f2 = flops(m, k, n), b2 = bytes(m, k, n);
  const double det = f1 * b2 - f2 * b1;
  const double x = (t_square * b2 - t_thin * b1) / det, y = (f1 * t_thin - f2 * t_square) / det;
  GemmRates r;
  if (x > 0) r.flops = 1 / x;
  if (y > 0) r.bytes = 1 / y;
  if (!(x > 0) || !(y > 0)) r.flops = f1 / t_square;  // no traffic seen: the square GEMM's rate alone
  return r;
}

double loop_rate(const comm::Communicator& c) {
  const einsum::ScalarProgram f = einsum::parse_scalar_function("x * 2 + 1", SourceLoc{"tra-calibrate", 1, 1});
  const Chunk in(Shape{4 * 1024 * 1024});
  // map_elements allocates its result each time, as every engine kernel does.
  const double t = best_seconds(c, [&] {
    Chunk out = kernels::map_elements(f, in);
    Kokkos::fence();
  });
  return static_cast<double>(f.flops_per_eval()) * static_cast<double>(in.size()) / t;
}

// The fixed cost of a kernel call: the loop above on a chunk of 8 elements,
// 1000 calls issued one after another as the executor issues them (on a GPU
// the host launches while the device runs: the next call waits only for the
// launch), a result allocated for each.
double call_seconds(const comm::Communicator& c) {
  constexpr int kCalls = 1000;
  const einsum::ScalarProgram f = einsum::parse_scalar_function("x * 2 + 1", SourceLoc{"tra-calibrate", 1, 1});
  const Chunk in(Shape{8});
  const double t = best_seconds(c, [&] {
    for (int i = 0; i < kCalls; ++i) Chunk out = kernels::map_elements(f, in);
    Kokkos::fence();
  });
  return t / kCalls;
}

// The fixed cost of an operator beside its calls (the executor's work
// around them: its inputs' tuples matched, its results kept), measured on
// the real engine: a chain of kOps element-wise statements on an 8 x 8
// tensor of one chunk, planned and run as tra-run plans and runs them, less
// the calls its operators make. NaN where the plan has none (kept default).
double operator_seconds(const comm::Communicator& c, double call_seconds) {
  constexpr int kOps = 64;
  std::string deck = "tensors:\n  - {name: A, shape: [8, 8], chunk: [8, 8], source: \"uniform(-1, 1, 1)\"}\ngraph:\n";
  for (int k = 1; k <= kOps; ++k)
    deck += "  - \"T" + std::to_string(k) + "[i,j] = " + (k == 1 ? "A" : "T" + std::to_string(k - 1)) + "[i,j] + A[i,j]\"\n";
  deck += "outputs:\n  - {tensor: T" + std::to_string(kOps) + ", file: unused.h5}\n";
  const model::Workflow wf = io::parse_deck(deck, "tra-calibrate", ".");
  const PlannedDeck planned = plan_deck(wf, c.size(), physical::OptimizerOptions{});
  const physical::IaPlan& plan = planned.optimized.chosen;
  // The operators that call a kernel (T1 = A + A is a map of A, the others
  // joins; a plan for several ranks may add others) and their calls.
  int computed = 0;
  Index calls = 0;
  for (const physical::IaNode& n : plan.nodes)
    if (n.kind() != physical::IaNode::Kind::Scan && n.site_calls > 0) ++computed, calls += n.site_calls;
  if (computed == 0) return std::nan("");
  exec::Executor ex(plan, c, {planned.output_nodes.begin(), planned.output_nodes.end()});
  double best = HUGE_VAL;
  for (int i = 0; i <= kRepeats; ++i) {
    c.barrier();
    ex.run();
    if (i > 0) best = std::min(best, c.max(ex.totals().operators));  // the first is the warm-up
  }
  return (best - static_cast<double>(calls) * call_seconds) / computed;
}

// A sparse product as a graph's has it: a 131072 x 131072 block with 8
// entries per row at random columns (SplitMix64, the same on every rank)
// times a 131072 x 256 dense block (a GCN layer's width; 256 MiB, out of
// cache, as an ogbn-arxiv-sized graph's 346 MB), its result allocated as in
// the engine (a 32 MiB block measured 2.5 times faster, and without the
// allocation 1.5 times), in bytes of the dense operand read per second
// (sparse_bytes). 0 where KokkosSparse is not built.
double sparse_rate(const comm::Communicator& c) {
  if (!kernels::sparse_product_built()) return 0;
  constexpr Index kNodes = 131072, kPerRow = 8, kColumns = 256;
  std::vector<SparseEntry> entries;
  SplitMix64 rng{0x5EED};
  for (Index row = 0; row < kNodes; ++row)
    for (Index k = 0; k < kPerRow; ++k)  // column k of each row in its own eighth: no two entries at one place
      entries.push_back({row, static_cast<Index>(k * (kNodes / kPerRow) + rng.next() % (kNodes / kPerRow)), 0.5});
  const SparseBlock a = SparseBlock::from_entries(kNodes, kNodes, std::move(entries));
  const Chunk x(Shape{kNodes, kColumns});
  const double t = best_seconds(c, [&] {
    const Chunk out = kernels::sparse_product(a, false, x);
    Kokkos::fence();
  });
  return static_cast<double>(a.stored()) * kColumns * sizeof(Scalar) / t;
}

// Each rank's 16 tuples of 256 x 256 chunks, keys rank * 16 + i.
constexpr int kTuples = 16;
const Shape kMoveChunk{256, 256};

std::vector<Tuple> tuples_to_move(const comm::Communicator& c) {
  std::vector<Tuple> mine;
  for (int i = 0; i < kTuples; ++i) mine.push_back({Key{Index(c.rank()) * kTuples + i}, Chunk(kMoveChunk)});
  return mine;
}

double shuffle_rate(const comm::Communicator& c) {
  const std::vector<Tuple> mine = tuples_to_move(c);
  // Every tuple goes to the next rank: each site sends and receives all it has.
  auto next = [&c](const Key& k) { return static_cast<int>((k[0] / kTuples + 1) % c.size()); };
  comm::Moved moved;
  const double t = best_seconds(c, [&] {
    moved = {};
    comm::shuffle(c, mine, 1, kMoveChunk, DType::Float64, next, moved);
  });
  return static_cast<double>(moved.floats) * sizeof(Scalar) / t;
}

double bcast_rate(const comm::Communicator& c) {
  const std::vector<Tuple> mine = tuples_to_move(c);
  const double t = best_seconds(c, [&] {
    comm::Moved moved;
    comm::broadcast(c, mine, 1, kMoveChunk, DType::Float64, moved);
  });
  // What a site receives: the tuples of every other site.
  const double received = static_cast<double>(kTuples) * static_cast<double>(volume(kMoveChunk)) * (c.size() - 1);
  return received * sizeof(Scalar) / t;
}

// Floats per second from a generator of this kind (uniform(-1, 1, 7) or
// normal(0, 1, 7): the dearest, two hashes, a log, a root and a cosine per pair).
double generate_rate(const comm::Communicator& c, model::Generator::Kind kind) {
  model::Generator g;
  g.kind = kind;
  g.a = kind == model::Generator::Kind::Normal ? 0 : -1;
  g.b = 1;
  g.seed = 7;
  const Shape shape{1024, 1024};
  const double t = best_seconds(c, [&] {
    Chunk x = io::generate_chunk(g, shape, shape, Key{0, 0});
    Kokkos::fence();
  });
  return static_cast<double>(volume(shape)) / t;
}

// Writes a 2048 x 2048 dataset with the engine's writer to a temporary file in
// the current folder (which tra-run's inputs usually share, and which all ranks
// see on a cluster), then every rank reads all of it, as for a broadcast input.
// The file was just written, so this is the rate of a file in the OS cache, as
// on a second run of a deck. The read of an 8-element dataset beside it, each
// time opening the file as a Scan does, is the fixed cost of a Scan.
struct Hdf5Rates {
  double read_bytes = 0;  // per second
  double open_seconds = 0;  // per file a Scan opens
};

Hdf5Rates hdf5_rates(const comm::Communicator& c) {
  long long tag = c.rank() == 0 ? static_cast<long long>(getpid()) : 0;
  TRA_MPI_CHECK(MPI_Bcast(&tag, 1, MPI_LONG_LONG, 0, c.get()));
  const std::string path = ".tra-calibrate-" + std::to_string(tag) + ".h5";
  const Shape shape{2048, 2048}, chunk{256, 2048};
  const Index blocks = shape[0] / chunk[0];
  io::hdf5::DatasetData ds{"/X", shape, {}, {}};
  std::vector<Key> all;
  for (Index k = 0; k < blocks; ++k) {
    all.push_back({k, 0});
    if (k % c.size() == c.rank()) ds.local.push_back({{k, 0}, Chunk(chunk)});
  }
  // And one of 8 elements, whose read is all opening: the file, the dataset.
  const Shape tiny{8};
  io::hdf5::DatasetData small{"/x", tiny, {}, {}};
  if (c.rank() == 0) small.local.push_back({{0}, Chunk(tiny)});
  // Checked first: a failure inside the collective write would abort all ranks.
  comm::agree(c, [&] {  // each rank checks its view of the folder; all agree
    try {
      io::hdf5::check_writable(path);
    } catch (const UserError& e) {
      throw UserError(std::string("tra-calibrate measures HDF5 reads with a temporary file in the current folder: ") + e.what());
    }
  });
  io::hdf5::write_file(c, io::hdf5::FileData{path, {ds, small}, {}});
  const model::Hdf5Source src{path, "/X", {}}, small_src{path, "/x", {}};
  const double t = best_seconds(c, [&] { io::hdf5::read_chunks(c, src, chunk, all); });
  constexpr int kOpens = 20;
  const double t_open = best_seconds(c, [&] {
    for (int i = 0; i < kOpens; ++i) io::hdf5::read_chunks(c, small_src, tiny, {Key{0}});
  });
  c.barrier();  // every rank has closed the file
  if (c.rank() == 0) std::remove(path.c_str());
  return {static_cast<double>(volume(shape)) * sizeof(Scalar) / t, t_open / kOpens};
}

// A Bcast's or Shuffle's start-up: the engine's broadcast of one chunk of 8
// elements per rank, 100 in a row (its counts agreed, its chunks packed and
// unpacked, MPI_Allgatherv), where one MPI_Allreduce of a double, as this
// measured before, was 0.6 us on 2 ranks and the operators took 40-180 us.
double latency(const comm::Communicator& c) {
  constexpr int kCalls = 100;
  const std::vector<Tuple> mine{{Key{Index(c.rank())}, Chunk(Shape{8})}};
  const double t = best_seconds(c, [&] {
    for (int i = 0; i < kCalls; ++i) {
      comm::Moved moved;
      comm::broadcast(c, mine, 1, Shape{8}, DType::Float64, moved);
    }
  });
  return t / kCalls;
}

// Three significant digits: the runs vary by more than that, and the file stays readable.
double round3(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2e", v);
  return std::strtod(buf, nullptr);
}

// "tra-calibrate, 2025-01-31 14:05, 2 ranks, node17", the same on every rank.
std::string describe_run(const comm::Communicator& c) {
  char text[MPI_MAX_PROCESSOR_NAME + 64] = {};
  if (c.rank() == 0) {
    char host[MPI_MAX_PROCESSOR_NAME] = {};
    int len = 0;
    TRA_MPI_CHECK(MPI_Get_processor_name(host, &len));
    char date[32] = {};
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M", std::localtime(&now));
    std::snprintf(text, sizeof text, "tra-calibrate, %s, %d rank%s, %s", date, c.size(), c.size() == 1 ? "" : "s", host);
  }
  TRA_MPI_CHECK(MPI_Bcast(text, sizeof text, MPI_CHAR, 0, c.get()));
  return text;
}

}  // namespace

physical::Rates measure_rates(const comm::Communicator& c) {
  physical::Rates r;
  // A rate of a site is the slowest site's (the plan waits for it); latency likewise.
  auto slowest = [&c](double rate) { return -c.max(-rate); };
  // A time too short for the clock would give an infinite rate: keep the default then.
  auto settle = [](double measured, double fallback) { return std::isfinite(measured) && measured > 0 ? round3(measured) : fallback; };
  // A fixed cost may measure as none (or, less the calls, below none): 0.
  auto settle_fixed = [](double measured, double fallback) { return std::isfinite(measured) ? round3(std::max(0.0, measured)) : fallback; };
  const GemmRates gemm = gemm_rates<double>(c);
  r.gemm_flops = settle(slowest(gemm.flops), r.gemm_flops);
  r.memory_bytes = settle(slowest(gemm.bytes), r.memory_bytes);
  // sgemm's flop rate; the memory rate (bytes) is the double GEMMs'.
  r.gemm_flops_float32 = settle(slowest(gemm_rates<float>(c).flops), r.gemm_flops_float32);
  r.loop_flops = settle(slowest(loop_rate(c)), r.loop_flops);
  r.sparse_bytes = settle(slowest(sparse_rate(c)), r.sparse_bytes);
  // With one rank nothing moves; the defaults stand for a network never measured.
  if (c.size() > 1) {
    r.shuffle_bytes = settle(slowest(shuffle_rate(c)), r.shuffle_bytes);
    r.bcast_bytes = settle(slowest(bcast_rate(c)), r.bcast_bytes);
  }
  r.generate_floats = settle(slowest(generate_rate(c, model::Generator::Kind::Uniform)), r.generate_floats);
  r.generate_normal_floats = settle(slowest(generate_rate(c, model::Generator::Kind::Normal)), r.generate_normal_floats);
  const Hdf5Rates hdf5 = hdf5_rates(c);
  r.hdf5_read_bytes = settle(slowest(hdf5.read_bytes), r.hdf5_read_bytes);
  r.open_seconds = settle_fixed(c.max(hdf5.open_seconds), r.open_seconds);
  r.latency = settle(c.max(latency(c)), r.latency);
  r.call_seconds = settle_fixed(c.max(call_seconds(c)), r.call_seconds);
  r.operator_seconds = settle_fixed(operator_seconds(c, r.call_seconds), r.operator_seconds);
  r.origin = describe_run(c);
  return r;
}

}  // namespace tra::app
