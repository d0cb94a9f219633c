/* A 50000 x 50000 float array (issue 10, point 1): its linearised subscripts
   exceed 2^31, so an int index overflows (an illegal memory access on a GPU). */
#include <stdio.h>
#include <stdlib.h>
#define N 50000
void scale(float A[N][N])
{
#pragma scop
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = 2 * A[i][j] + (i % 7) - j % 5;
#pragma endscop
}
int main(void)
{
  float (*A)[N] = calloc((size_t)N * N, sizeof(float));
  if (!A)
    return 2;
  A[N - 1][N - 1] = 1.5f;
  A[43000][12345] = -2.25f;
  scale(A);
  double sum = 0;
  for (int i = 0; i < N; i += 97)
    for (int j = 0; j < N; j += 89)
      sum += A[i][j];
  printf("%.9g %.9g %.17g\n", A[N - 1][N - 1], A[43000][12345], sum);
  free(A);
  return 0;
}
