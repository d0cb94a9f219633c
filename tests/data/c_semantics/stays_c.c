#include <stdio.h>
#include <stdlib.h>
static void scale(int n, double A[n][n], double *restrict v)
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      A[i][j] = A[i][j] * v[j];
#pragma endscop
}
int main(void)
{
  int n = 5, new = 2;                     /* 'new' is a C++ keyword */
  double (*A)[n] = malloc(sizeof(double[n][n]));   /* void * without a cast */
  double *v = malloc(n * sizeof *v);
  for (int i = 0; i < n; i++) {
    v[i] = i + new;
    for (int j = 0; j < n; j++)
      A[i][j] = i - j;
  }
  scale(n, A, v);
  for (int i = 0; i < n; i++)
    printf("%g %g\n", A[i][0], A[i][n - 1]);
  free(A);
  free(v);
  return 0;
}
