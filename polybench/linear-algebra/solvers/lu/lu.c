/*
 * lu - in-place LU decomposition without pivoting, A = L U: on exit the
 * strict lower triangle of A holds L (whose diagonal is implicitly 1) and
 * the upper triangle, diagonal included, holds U.
 */
#include <stdio.h>
#include <string.h>
#include <math.h>

#include <polybench.h>
#include "lu.h"

/* The PolyBench/C 4.2.1 input, shared with cholesky: A = L0 * L0^T for
   the unit lower-triangular L0 with L0[i][j] = 1 - j/n, which is
   symmetric positive definite, so no pivot vanishes.  Each entry of the
   product is summed in increasing t, as in the original. */
static void init_array(int n, DATA_TYPE POLYBENCH_2D(A, N, N, n, n))
{
  int i, j, r, s, t;
  POLYBENCH_2D_ARRAY_DECL(B, DATA_TYPE, N, N, n, n);

  for (i = 0; i < n; i++)
    {
      for (j = 0; j <= i; j++)
        A[i][j] = (DATA_TYPE)(-j % n) / n + 1;
      for (j = i + 1; j < n; j++)
        A[i][j] = 0;
      A[i][i] = 1;
    }
  for (r = 0; r < n; r++)
    for (s = 0; s < n; s++)
      {
        (POLYBENCH_ARRAY(B))[r][s] = 0;
        for (t = 0; t < n; t++)
          (POLYBENCH_ARRAY(B))[r][s] += A[r][t] * A[s][t];
      }
  for (r = 0; r < n; r++)
    for (s = 0; s < n; s++)
      A[r][s] = (POLYBENCH_ARRAY(B))[r][s];
  POLYBENCH_FREE_ARRAY(B);
}

/* Dumps the whole matrix (L below the diagonal, U on and above it). */
static void print_array(int n, DATA_TYPE POLYBENCH_2D(A, N, N, n, n))
{
  int i, j;

  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("A");
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      {
        if ((i * n + j) % 20 == 0)
          fprintf(POLYBENCH_DUMP_TARGET, "\n");
        fprintf(POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, A[i][j]);
      }
  POLYBENCH_DUMP_END("A");
  POLYBENCH_DUMP_FINISH;
}

/* Doolittle, row by row: row i of L (left of the diagonal, divided by
   the pivots) and then row i of U, each from the rows computed before. */
static void kernel_lu(int n, DATA_TYPE POLYBENCH_2D(A, N, N, n, n))
{
  int i, j, k;

#pragma scop
  for (i = 0; i < _PB_N; i++)
    {
      for (j = 0; j < i; j++)
        {
          for (k = 0; k < j; k++)
            A[i][j] -= A[i][k] * A[k][j];
          A[i][j] /= A[j][j];
        }
      for (j = i; j < _PB_N; j++)
        for (k = 0; k < i; k++)
          A[i][j] -= A[i][k] * A[k][j];
    }
#pragma endscop
}

int main(int argc, char **argv)
{
  int n = N;
  POLYBENCH_2D_ARRAY_DECL(A, DATA_TYPE, N, N, n, n);

  init_array(n, POLYBENCH_ARRAY(A));

  polybench_start_instruments;
  kernel_lu(n, POLYBENCH_ARRAY(A));
  polybench_stop_instruments;
  polybench_print_instruments;

  polybench_prevent_dce(print_array(n, POLYBENCH_ARRAY(A)));

  POLYBENCH_FREE_ARRAY(A);
  return 0;
}
