/* Gauss-Seidel sweeps relaxed by a weight per cell, in place: each sweep takes
   every inner cell of A towards the mean of its four neighbours by the cell's
   weight in W, the rows and columns in order, so a cell sees its upper and left
   neighbours of this sweep and its lower and right ones of the last.  W is only
   read.  `polycu examples/weighted_seidel.c -o ws.cu --dump-memory` runs each
   wavefront of the sweeps in one launch, with A and W stored along the
   wavefront's diagonals (A_L0[i + j - 1][i]: a warp's cells are consecutive),
   11.4 ms of kernels on an H200.  With --no-relayout it keeps C's layout, A in a
   surface (proven: no value a launch writes is read back in it) and W, whose
   cells a warp takes along a diagonal, in a surface too, never copied back:
   15.9 ms so, 16.5 ms with W in a 2-D texture or a 1-D one, 18.1 ms through the
   read-only path (docs/memory.md). */
#include <stdio.h>

#ifndef N
#define N 2000
#endif
#ifndef SWEEPS
#define SWEEPS 100
#endif

static double A[N][N], W[N][N];

static void sweeps(int n, int sweeps)
{
  int s, i, j;
#pragma scop
  for (s = 0; s < sweeps; s++)
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        A[i][j] = (1.0 - W[i][j]) * A[i][j]
                  + W[i][j] * 0.25 * (A[i - 1][j] + A[i][j - 1] + A[i][j + 1] + A[i + 1][j]);
#pragma endscop
}

int main(void)
{
  int i, j;
  double sum = 0.0;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) {
      A[i][j] = (double) ((i * 7 + j * 3) % 101) / 101;
      W[i][j] = 0.5 + (double) ((i + 2 * j) % 17) / 34;
    }
  sweeps(N, SWEEPS);
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      sum += A[i][j] * ((i + j) % 5 + 1);
  printf("checksum %.6f\n", sum);
  return 0;
}
