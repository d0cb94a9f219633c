/* Pointers defined before the SCoP into an array it also uses: modelled as two arrays
   they would give wrong results (the first loop carries a dependence through p and q,
   the second reads the half of buf that the first half's loop writes).  polycu reads
   them as elements of the array they point into. */
#include <stdio.h>
#include <stdlib.h>

void shifted(int n, double *p, double *buf)
{
  double *q = p + 1;
  const double *lo;
  double *hi;
  lo = buf;
  hi = buf + n;
#pragma scop
  for (int i = 0; i < n - 1; i++)
    q[i] = 0.5 * p[i] + q[i];
  for (int i = 0; i < n; i++)
    hi[i] = lo[i] * 2.0 + hi[i];
  for (int i = 1; i < n; i++)
    buf[i] += hi[i - 1];
#pragma endscop
}

/* A row pointer set in a loop around the SCoP: its iterator is constant inside. */
#define M 23

void by_rows(int n, int m, double *A)
{
  for (int t = 1; t < n; t++) {
    double *row = A + t * M;
    const double *above = row - M;
#pragma scop
    for (int j = 1; j < m; j++)
      row[j] += above[j - 1] * 0.25 + row[j - 1] * 0.5;
#pragma endscop
  }
}

/* A flat buffer seen as rows through a pointer to arrays, next to the buffer itself:
   each row adds half of the row before it, as updated. */
void reshaped(int n, int m, double *buf)
{
  double (*A)[m] = (double (*)[m]) buf;
#pragma scop
  for (int i = 1; i < n; i++)
    for (int j = 0; j < m; j++)
      A[i][j] += 0.5 * buf[(i - 1) * m + j];
#pragma endscop
}

int main(void)
{
  int n = 45, m = M;
  double *p = malloc(sizeof(double) * n), *buf = malloc(sizeof(double) * 2 * n);
  double *A = malloc(sizeof(double) * n * m);
  for (int i = 0; i < n; i++) p[i] = (i % 7) - 3.0;
  for (int i = 0; i < 2 * n; i++) buf[i] = (i % 5) * 0.5 - 1.0;
  for (int i = 0; i < n * m; i++) A[i] = ((i * 3) % 11) * 0.125;
  shifted(n, p, buf);
  by_rows(n, m, A);
  double *R = malloc(sizeof(double) * n * 7);
  for (int i = 0; i < n * 7; i++) R[i] = ((i * 5) % 9) - 4.0;
  reshaped(n, 7, R);
  for (int i = 0; i < n * 7; i++) printf("%.17g\n", R[i]);
  free(R);
  for (int i = 0; i < n; i++) printf("%.17g\n", p[i]);
  for (int i = 0; i < 2 * n; i++) printf("%.17g\n", buf[i]);
  for (int i = 0; i < n * m; i++) printf("%.17g\n", A[i]);
  free(p); free(buf); free(A);
  return 0;
}
