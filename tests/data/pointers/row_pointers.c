/* References through pointers inside the SCoP: row pointers declared in the loop body
   (into a flat buffer and into a two-dimensional array), dereferences of pointer sums,
   a subscripted pointer sum, the address of an element plus an offset, and a row
   passed to an inlined function as a pointer sum. */
#include <stdio.h>
#include <stdlib.h>

#define N 40

static void axpy(int n, double a, const double *x, double *y)
{
  for (int k = 0; k < n; k++)
    y[k] += a * x[k];
}

void rows(int n, int m, double *C, const double *A, double B[N][N], const double *x,
          double *y)
{
#pragma scop
  for (int i = 0; i < n; i++) {
    double *ci = C + i * m;
    const double *ai = &A[i * m];
    double *bi = B[i];
    for (int j = 0; j < m; j++) {
      ci[j] = 0.5 * ci[j] + ai[j] * *(x + j) + (x + 1)[j] - *(&B[j][0] + i);
      bi[j] += *ci;
    }
    *(y + i) = *(ai + m - 1);
    for (int j = 1; j < m; j++)
      *(y + i) += ci[j - 1] * *(B[j] + i);
    axpy(m, y[i] * 0.125, A + i * m, C + i * m);
  }
#pragma endscop
}

int main(void)
{
  int n = 31, m = 37;
  double *C = malloc(sizeof(double) * n * m), *A = malloc(sizeof(double) * n * m);
  double *x = malloc(sizeof(double) * (m + 1)), *y = malloc(sizeof(double) * n);
  static double B[N][N];
  for (int i = 0; i < n * m; i++) C[i] = (i % 13) - 6.5;
  for (int i = 0; i < n * m; i++) A[i] = ((i * 7) % 17) * 0.25 - 2;
  for (int i = 0; i <= m; i++) x[i] = ((i * 5) % 11) * 0.5 - 2.5;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) B[i][j] = ((i * 3 + j) % 7) - 3.0;
  for (int i = 0; i < n; i++) y[i] = -1;
  rows(n, m, C, A, B, x, y);
  for (int i = 0; i < n * m; i++) printf("%.17g\n", C[i]);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) printf("%.17g\n", B[i][j]);
  for (int i = 0; i < n; i++) printf("%.17g\n", y[i]);
  free(C); free(A); free(x); free(y);
  return 0;
}
