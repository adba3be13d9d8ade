#pragma once
// Machine rates for the cost model's time estimate (TRA paper §5.3 counts
// floats moved; the time estimate adds flops and reads at measured rates).
//
// A user measures them once with `tra-calibrate` (under mpirun, with the rank
// count they will run at) and keeps the YAML file; `tra-run --calibration FILE`
// or `run: optimizer: calibration: FILE` in a deck uses it. Without a file the
// built-in defaults below are used: rates measured on the development VM.
#include <Kokkos_Macros.hpp>  // KOKKOS_ENABLE_CUDA: a GPU build, whose built-in rates are a GPU's

#include <string>

#include "tra/common/dtype.hpp"

namespace tra::physical {

// The rates a build assumes without a calibration file: the development
// VM's for a host build; for a CUDA build, what tra-calibrate measured on one
// H200 machine (issue 26: GEMM, device memory, the loop kernels, the
// generators, HDF5 reads into device memory, host-staged collectives), the
// rest kept from the VM. A CPU's rates on a GPU predicted a 0.7 ms GEMM at
// 0.52 s, and a CPU's generator rate made 2 ranks broadcast a 512 MB
// operand (0.26 s) rather than generate it on both (1 ms): plan choices on
// a GPU need a GPU's rates.
// loop_flops is the rate the SGD steps' large element loops reached there
// (W1's update 2.2e11, the hidden layer 1e11 and more), not tra-calibrate's
// 4.2e10 of then, whose loop paid a cudaMalloc and a cudaFree each time
// (before the chunk pool): predictions of those loops were 3.5x too high.
// float32 GEMMs (sgemm) have a rate of their own: twice float64's on the
// VM's AVX-512 cores (1 thread: 128 GFLOP/s against 65); on the H200 its
// float32 and float64 peaks are equal (67 TFLOP/s), and tra-calibrate
// measured sgemm at 3.1e13 against dgemm's 4.2e13 (2026-11-28; perf/gpu/run's
// 8000^3 and 16000^3 GEMMs ran at 0.98x PyTorch's in both types). The
// generators' and HDF5's CUDA rates are that run's too (8e9, 8e9 and 3.2e9
// before the chunk pool).
// A sparse product reads one row of its dense operand per stored entry, at
// random places, and is bound by that traffic (sparse_bytes): on the VM,
// KokkosSparse::spmv by an ogbn-arxiv-sized Â (2.5 M entries) times 128
// columns ran at 5.0e9 B/s per rank on two ranks (0.51 s; 256 columns on one
// rank: 3.8e9), where the loop rate charged it 4 times its time;
// tra-calibrate measures 3.9-5.0e9. The CUDA figure is tra-calibrate's on
// an H200 (2026-11-28, commit ca44e3c; a fifth of the device's memory rate
// had been assumed).
#if defined(KOKKOS_ENABLE_CUDA)
inline constexpr double kBuiltInSparseBytes = 1.1e12;
#else
inline constexpr double kBuiltInSparseBytes = 4.5e9;
#endif
// The fixed costs. A CUDA build's are what tra-calibrate measured on an
// H200 (2026-11-28, commit ca44e3c: a call 16 us, an operator nothing
// beside its calls, a file's opening 164 us; they had been guessed from the
// LLaMA block's --explain=analyze at 10 us, 20 us and 200 us). A host
// build's are the VM's (tra-calibrate: a call 0.22-0.48 us, an operator
// 0.36-1.4 us, a file's opening 84-290 us); with them perf/predict's
// operators within 2x went from 53-55% to 64% (1 rank 73%). They were 0
// until R2-5 could merge a two-phase aggregation back: a first phase that
// reduces nothing then cost an operator no rule took out.
#if defined(KOKKOS_ENABLE_CUDA)
inline constexpr double kBuiltInCallSeconds = 1.6e-5, kBuiltInOperatorSeconds = 0, kBuiltInOpenSeconds = 1.6e-4;
#else
inline constexpr double kBuiltInCallSeconds = 3e-7, kBuiltInOperatorSeconds = 6e-7, kBuiltInOpenSeconds = 1.2e-4;
#endif
#if defined(KOKKOS_ENABLE_CUDA)
inline constexpr double kBuiltInGemmFlops = 4.2e13, kBuiltInGemmFlopsFloat32 = 3.1e13, kBuiltInLoopFlops = 1.5e11, kBuiltInMemoryBytes = 3.2e12;
inline constexpr double kBuiltInGenerateFloats = 4.1e10, kBuiltInGenerateNormalFloats = 3.1e10, kBuiltInHdf5ReadBytes = 4.1e9;
#else
inline constexpr double kBuiltInGemmFlops = 65e9, kBuiltInGemmFlopsFloat32 = 130e9, kBuiltInLoopFlops = 3.5e8, kBuiltInMemoryBytes = 1.3e10;
inline constexpr double kBuiltInGenerateFloats = 6.0e7, kBuiltInGenerateNormalFloats = 2.2e7, kBuiltInHdf5ReadBytes = 1.0e9;
#endif

struct Rates {
  double gemm_flops = kBuiltInGemmFlops;  // per site: KokkosBlas::gemm on double chunks
  double gemm_flops_float32 = kBuiltInGemmFlopsFloat32;  // per site: on float chunks (sgemm)
  double loop_flops = kBuiltInLoopFlops;  // per site: the Kokkos loop kernels (elementwise, non-GEMM EinSums, folds)
  // Per site: bytes per second of what a GEMM call reads and writes (its two
  // chunks and its result, once each), paid besides its flops. A large
  // square GEMM pays little of it next to its flops; a labeling cut finer,
  // into many thin GEMMs, pays it many times (the skewed chain's 64-row
  // blocks on 2 ranks run at 98 GFLOP/s where 128-row ones reach 120).
  double memory_bytes = kBuiltInMemoryBytes;
  // Per site: bytes per second a sparse product reads of its dense operand
  // (a row of it per stored entry: stored x columns x element bytes).
  double sparse_bytes = kBuiltInSparseBytes;
  // The network rates are those of 100 MB-sized collectives (perf/plans), which
  // reach a third of what tra-calibrate's small ones measure on this VM.
  double shuffle_bytes = 1.3e9;  // per site: bytes a site sends per second in MPI_Alltoallv
  double bcast_bytes = 1.8e9;  // per site: bytes a site receives per second in MPI_Allgatherv
  // Per site: floats per second from the deck's generators: uniform() and
  // the cheaper ones (arange, ones, ...), and normal(), whose Box-Muller
  // transform (a log, a root and a cosine per pair) makes it 5-8x dearer
  // (VM: uniform() ~1.1e8, normal() ~2.2e7). One rate for both, measured on
  // normal(), charged uniform() reads 5x their time: the skewed chain's
  // labelings were estimated at 0.53 s where they ran in 0.2 s.
  double generate_floats = kBuiltInGenerateFloats;
  double generate_normal_floats = kBuiltInGenerateNormalFloats;
  double hdf5_read_bytes = kBuiltInHdf5ReadBytes;  // per site: bytes per second read from an HDF5 source
  double latency = 20e-6;  // seconds per collective call (start-up cost)
  // Fixed costs, paid whatever the data's size (per site): a kernel call on
  // one chunk (a GEMM, a loop, a fold, a generator's chunk, an HDF5 chunk
  // read), its launch and the host's work around it; and the opening of an
  // HDF5 file by a Scan (collective, through MPI-IO). Small operators are
  // nearly all of these: a block of a LLaMA layer (every tensor a chunk or
  // two) was predicted at 0.6 ms and ran in 11.5 ms on an H200, 7.5 ms of
  // it opening files (issue 26).
  double call_seconds = kBuiltInCallSeconds;
  double operator_seconds = kBuiltInOperatorSeconds;  // per operator that calls kernels, beside its calls
  double open_seconds = kBuiltInOpenSeconds;
  // Or the file it came from, or after measure_rates "tra-calibrate, <date>,
  // <n> ranks, <host>", which save_rates writes as the file's first line.
  std::string origin = "built-in defaults";
};

// Reads a calibration file (format: docs/calibration.md); rates it leaves out
// keep the defaults. Bad content is a UserError naming file:line:column.
Rates load_rates(const std::string& path);
// Writes it under a temporary name and renames it into place. Values read back
// exactly.
void save_rates(const Rates& r, const std::string& path);
// Whether every rate of a equals b's (the origin aside).
bool same_rates(const Rates& a, const Rates& b);
// The GEMM rate of chunks of `dtype`.
inline double gemm_flops(const Rates& r, DType dtype) { return dtype == DType::Float32 ? r.gemm_flops_float32 : r.gemm_flops; }
// (tra-calibrate measures them: app/measure_rates.hpp.)

}  // namespace tra::physical
