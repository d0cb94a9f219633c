/*
 * cholesky - in-place Cholesky factorisation A = L * L^T of a symmetric
 * positive definite N x N matrix.  On exit the lower triangle of A
 * (diagonal included) holds L; the strict upper triangle is left as is.
 */
#include <stdio.h>
#include <string.h>
#include <math.h>

#include <polybench.h>
#include "cholesky.h"

/* The PolyBench/C 4.2.1 input: L0 is lower triangular with a unit
   diagonal and L0[i][j] = 1 - j/n below it; A = L0 * L0^T is then
   symmetric positive definite, so the factorisation never takes the
   square root of a negative number.  Each entry of the product is summed
   in increasing t, as in the original, so the inputs agree bit for bit. */
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

/* Dumps the factor L, i.e. the lower triangle of A row by row.  The line
   breaks follow the position in the full matrix (i * n + j), as in the
   original. */
static void print_array(int n, DATA_TYPE POLYBENCH_2D(A, N, N, n, n))
{
  int i, j;

  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("A");
  for (i = 0; i < n; i++)
    for (j = 0; j <= i; j++)
      {
        if ((i * n + j) % 20 == 0)
          fprintf(POLYBENCH_DUMP_TARGET, "\n");
        fprintf(POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, A[i][j]);
      }
  POLYBENCH_DUMP_END("A");
  POLYBENCH_DUMP_FINISH;
}

/* Row-oriented (left-looking) variant: row i of L is computed from the
   rows above it; the off-diagonal entries first, then the diagonal. */
static void kernel_cholesky(int n, DATA_TYPE POLYBENCH_2D(A, N, N, n, n))
{
  int i, j, k;

#pragma scop
  for (i = 0; i < _PB_N; i++)
    {
      for (j = 0; j < i; j++)
        {
          for (k = 0; k < j; k++)
            A[i][j] -= A[i][k] * A[j][k];
          A[i][j] /= A[j][j];
        }
      for (k = 0; k < i; k++)
        A[i][i] -= A[i][k] * A[i][k];
      A[i][i] = SQRT_FUN(A[i][i]);
    }
#pragma endscop
}

int main(int argc, char **argv)
{
  int n = N;
  POLYBENCH_2D_ARRAY_DECL(A, DATA_TYPE, N, N, n, n);

  init_array(n, POLYBENCH_ARRAY(A));

  polybench_start_instruments;
  kernel_cholesky(n, POLYBENCH_ARRAY(A));
  polybench_stop_instruments;
  polybench_print_instruments;

  polybench_prevent_dce(print_array(n, POLYBENCH_ARRAY(A)));

  POLYBENCH_FREE_ARRAY(A);
  return 0;
}
