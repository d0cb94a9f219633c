/*
 * floyd-warshall - all-pairs shortest paths: after step k, path[i][j] is
 * the length of the shortest path from i to j whose intermediate nodes
 * are all below k + 1.
 */
#include <stdio.h>
#include <string.h>
#include <math.h>

/* PolyBench/C 4.2.1 computes floyd-warshall on int unless told otherwise;
   keeping that default keeps the dumps comparable. */
#if !defined(DATA_TYPE_IS_INT) && !defined(DATA_TYPE_IS_FLOAT) &&     \
    !defined(DATA_TYPE_IS_DOUBLE)
# define DATA_TYPE_IS_INT
#endif

#include <polybench.h>
#include "floyd-warshall.h"

/* The PolyBench/C 4.2.1 input: edge weights (i * j) mod 7 + 1, except
   that pairs whose index sum is a multiple of 7, 11 or 13 get the weight
   999, which stands for "no edge". */
static void init_array(int n, DATA_TYPE POLYBENCH_2D(path, N, N, n, n))
{
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      {
        path[i][j] = i * j % 7 + 1;
        if ((i + j) % 13 == 0 || (i + j) % 7 == 0 || (i + j) % 11 == 0)
          path[i][j] = 999;
      }
}

/* Dumps the distance matrix. */
static void print_array(int n, DATA_TYPE POLYBENCH_2D(path, N, N, n, n))
{
  int i, j;

  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("path");
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      {
        if ((i * n + j) % 20 == 0)
          fprintf(POLYBENCH_DUMP_TARGET, "\n");
        fprintf(POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, path[i][j]);
      }
  POLYBENCH_DUMP_END("path");
  POLYBENCH_DUMP_FINISH;
}

/* Relaxation through node k, written (as in the original) as a
   conditional expression rather than a min() call so that it stays one
   affine statement. */
static void kernel_floyd_warshall(int n,
                                  DATA_TYPE POLYBENCH_2D(path, N, N, n, n))
{
  int i, j, k;

#pragma scop
  for (k = 0; k < _PB_N; k++)
    for (i = 0; i < _PB_N; i++)
      for (j = 0; j < _PB_N; j++)
        path[i][j] = path[i][j] < path[i][k] + path[k][j]
                       ? path[i][j]
                       : path[i][k] + path[k][j];
#pragma endscop
}

int main(int argc, char **argv)
{
  int n = N;
  POLYBENCH_2D_ARRAY_DECL(path, DATA_TYPE, N, N, n, n);

  init_array(n, POLYBENCH_ARRAY(path));

  polybench_start_instruments;
  kernel_floyd_warshall(n, POLYBENCH_ARRAY(path));
  polybench_stop_instruments;
  polybench_print_instruments;

  polybench_prevent_dce(print_array(n, POLYBENCH_ARRAY(path)));

  POLYBENCH_FREE_ARRAY(path);
  return 0;
}
