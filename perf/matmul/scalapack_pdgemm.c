/* Baseline: ScaLAPACK pdgemm, C = A*B on N x N doubles over all MPI ranks;
 * built with -DGEMM_FLOAT32, psgemm on floats (scalapack_psgemm).
 *
 * usage: mpirun -n P scalapack_pdgemm N [NB [reps]]   (NB default 256)
 * The P ranks form a pr x pc grid with pr <= pc as square as possible
 * (1x2 for 2 ranks, 2x2 for 4). A, B, C are NB x NB block-cyclic. Rank 0
 * prints one line:
 *   scalapack_pdgemm N=<N> ranks=<p> seconds=<s> gflops=<g>
 * where seconds is the slowest rank's time for one full-size pdgemm, best of
 * <reps> calls after a small warm-up (reps default: 2 for N <= 4000, else 1,
 * as openblas_dgemm), and gflops = 2N^3/s/1e9.
 * Run with OPENBLAS_NUM_THREADS=1 so each rank uses one core. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* BLACS C interface and Fortran ScaLAPACK routines (no header ships them). */
void Cblacs_get(int context, int what, int* val);
void Cblacs_gridinit(int* context, const char* order, int nprow, int npcol);
void Cblacs_gridinfo(int context, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int context);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb, const int* irsrc, const int* icsrc, const int* ictxt,
               const int* lld, int* info);
#ifdef GEMM_FLOAT32
typedef float real;
#define PGEMM psgemm_
#define NAME "scalapack_psgemm"
#else
typedef double real;
#define PGEMM pdgemm_
#define NAME "scalapack_pdgemm"
#endif
void PGEMM(const char* transa, const char* transb, const int* m, const int* n, const int* k, const real* alpha, const real* a, const int* ia,
           const int* ja, const int* desca, const real* b, const int* ib, const int* jb, const int* descb, const real* beta, real* c, const int* ic,
           const int* jc, const int* descc);

static void die(int rank, const char* msg, int code) {
  fprintf(stderr, NAME " (rank %d): %s (code %d)\n", rank, msg, code);
  MPI_Abort(MPI_COMM_WORLD, 1);
  exit(1);
}

/* Deterministic local fill in [-1, 1); the values depend on the rank, which
 * is fine: only the timing matters here. */
static void fill(real* m, size_t n, unsigned seed) {
  unsigned x = seed * 2654435761u + 1u;
  for (size_t i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    m[i] = (real)((double)(x >> 8) / (double)(1u << 23) - 1.0);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (argc < 2 || argc > 4) {
    if (rank == 0) fprintf(stderr, "usage: %s N [NB [reps]]\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  int n = atoi(argv[1]);
  int nb = argc >= 3 ? atoi(argv[2]) : 256;
  int reps = argc == 4 ? atoi(argv[3]) : (n <= 4000 ? 2 : 1);
  if (n <= 0 || nb <= 0 || reps <= 0) die(rank, "bad N, NB or reps", 0);

  /* Grid: largest pr <= sqrt(P) dividing P, pc = P / pr. */
  int pr = 1;
  for (int d = 1; d * d <= nprocs; ++d)
    if (nprocs % d == 0) pr = d;
  int pc = nprocs / pr;

  int ctxt, myrow, mycol, gr, gc;
  Cblacs_get(-1, 0, &ctxt); /* default system context */
  Cblacs_gridinit(&ctxt, "Row", pr, pc);
  Cblacs_gridinfo(ctxt, &gr, &gc, &myrow, &mycol);
  if (gr != pr || gc != pc || myrow < 0) die(rank, "BLACS grid setup failed", gr);

  int izero = 0, ione = 1, info = 0;
  int mloc = numroc_(&n, &nb, &myrow, &izero, &pr);
  int nloc = numroc_(&n, &nb, &mycol, &izero, &pc);
  int lld = mloc > 1 ? mloc : 1; /* column-major local leading dimension */
  int desca[9], descb[9], descc[9];
  descinit_(desca, &n, &n, &nb, &nb, &izero, &izero, &ctxt, &lld, &info);
  if (info != 0) die(rank, "descinit_ A failed", info);
  descinit_(descb, &n, &n, &nb, &nb, &izero, &izero, &ctxt, &lld, &info);
  if (info != 0) die(rank, "descinit_ B failed", info);
  descinit_(descc, &n, &n, &nb, &nb, &izero, &izero, &ctxt, &lld, &info);
  if (info != 0) die(rank, "descinit_ C failed", info);

  size_t loc = (size_t)mloc * (size_t)nloc;
  size_t alloc = loc > 0 ? loc : 1;
  real *a = malloc(alloc * sizeof *a), *b = malloc(alloc * sizeof *b), *c = malloc(alloc * sizeof *c);
  if (!a || !b || !c) die(rank, "out of memory", (int)n);
  fill(a, loc, 1u + 2u * (unsigned)rank);
  fill(b, loc, 2u + 2u * (unsigned)rank);
  fill(c, loc, 7u); /* touch C so page faults are not timed */

  real alpha = 1.0, beta = 0.0;
  /* Warm-up on the leading w x w submatrix: sets up BLACS communicators and
   * OpenBLAS buffers (as openblas_dgemm's warm-up does) at little cost. */
  int w = n < 2 * nb * pc ? n : 2 * nb * pc;
  PGEMM("N", "N", &w, &w, &w, &alpha, a, &ione, &ione, desca, b, &ione, &ione, descb, &beta, c, &ione, &ione, descc);
  double best = 1e300;
  for (int r = 0; r < reps; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    /* pdgemm_ has no info argument: argument errors go through pxerbla and
     * abort the run, which mpirun reports as a non-zero exit. */
    PGEMM("N", "N", &n, &n, &n, &alpha, a, &ione, &ione, desca, b, &ione, &ione, descb, &beta, c, &ione, &ione, descc);
    double t = MPI_Wtime() - t0, tmax = 0.0;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (tmax < best) best = tmax; /* a call lasts as long as its slowest rank */
  }

  if (rank == 0) {
    double gflops = 2.0 * (double)n * (double)n * (double)n / best / 1e9;
    printf(NAME " N=%d ranks=%d seconds=%.6f gflops=%.3f\n", n, nprocs, best, gflops);
  }
  free(a);
  free(b);
  free(c);
  Cblacs_gridexit(ctxt);
  MPI_Finalize();
  return 0;
}
