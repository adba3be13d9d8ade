/* Baseline: single-process OpenBLAS dgemm, C = A*B on N x N doubles; built
 * with -DGEMM_FLOAT32, sgemm on floats (openblas_sgemm).
 *
 * usage: openblas_dgemm N [reps]
 * Threads come from OPENBLAS_NUM_THREADS. Prints one line:
 *   openblas_dgemm N=<N> threads=<t> seconds=<s> gflops=<g>   (openblas_sgemm ...)
 * where seconds is the best of <reps> timed calls (default 2 for N <= 4000,
 * 1 above, where one call already takes seconds) and gflops = 2N^3/s/1e9. */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifdef GEMM_FLOAT32
typedef float real;
#define GEMM cblas_sgemm
#define NAME "openblas_sgemm"
#else
typedef double real;
#define GEMM cblas_dgemm
#define NAME "openblas_dgemm"
#endif

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Deterministic values in [-1, 1), cheap to generate (no libm). */
static void fill(real* m, size_t n, unsigned seed) {
  unsigned x = seed * 2654435761u + 1u;
  for (size_t i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u; /* LCG */
    m[i] = (real)((double)(x >> 8) / (double)(1u << 23) - 1.0);
  }
}

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: %s N [reps]\n", argv[0]);
    return 2;
  }
  long n = atol(argv[1]);
  int reps = argc == 3 ? atoi(argv[2]) : (n <= 4000 ? 2 : 1);
  if (n <= 0 || reps <= 0) {
    fprintf(stderr, NAME ": bad N or reps\n");
    return 2;
  }
  size_t nn = (size_t)n * (size_t)n;
  real *a = malloc(nn * sizeof *a), *b = malloc(nn * sizeof *b), *c = malloc(nn * sizeof *c);
  if (!a || !b || !c) {
    fprintf(stderr, NAME ": out of memory for N=%ld\n", n);
    return 1;
  }
  fill(a, nn, 1);
  fill(b, nn, 2);
  fill(c, nn, 3); /* touch C so page faults are not timed */

  /* Warm-up at a smaller size: starts OpenBLAS's thread pool and allocates
   * its buffers, without costing a full-size multiply. */
  int w = n < 1000 ? (int)n : 1000;
  GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans, w, w, w, 1.0, a, w, b, w, 0.0, c, w);

  double best = 1e300;
  for (int r = 0; r < reps; ++r) {
    double t0 = now();
    GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1.0, a, (int)n, b, (int)n, 0.0, c, (int)n);
    double t = now() - t0;
    if (t < best) best = t;
  }
  double gflops = 2.0 * (double)n * (double)n * (double)n / best / 1e9;
  printf(NAME " N=%ld threads=%d seconds=%.6f gflops=%.3f\n", n, openblas_get_num_threads(), best, gflops);
  free(a);
  free(b);
  free(c);
  return 0;
}
