/* Subscripts isl cannot describe, each in a statement over-approximated like a
   data-dependent loop's (docs/supported-c.md): a division and a remainder by a
   variable, a product of iterators, a scalar the SCoP writes, a structure field,
   and a product inside an inlined function.  Each was a located error before. */
#include <stdio.h>

struct P { int n; double a[100]; };

static void strided(double *row, int n, int s)
{
  for (int k = 0; k < n; k++)
    row[k * s] = row[k * s] + 1.0;
}

void kernel(int n, int m, int w, double A[100][100], double x[100], double y[100],
            struct P s)
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    x[i / m] += 1.0;
  for (i = 0; i < n; i++)
    y[i % m] = y[i % m] * 0.5 + i;
  for (i = 0; i < 9; i++)
    for (j = 0; j < 9; j++)
      A[i * j][j] = A[i][j] + i - j;
  for (i = 0; i < 10; i++)
    x[i + w] = x[i + w] - 3.0;
  w = 3;
  for (i = 0; i < 10; i++)
    y[i + s.n] = s.a[i] + y[i];
  for (i = 0; i < 5; i++)
    strided(A[i + 50], 20, m);
#pragma endscop
  printf("w %d\n", w);
}

int main(void)
{
  static double A[100][100], x[100], y[100];
  static struct P s;
  for (int i = 0; i < 100; i++) {
    x[i] = i * 0.5 - 7;
    y[i] = 3 - i * 0.25;
    s.a[i] = i % 7;
    for (int j = 0; j < 100; j++)
      A[i][j] = (i * 31 + j * 17) % 13 - 6.5;
  }
  s.n = 40;
  kernel(90, 4, 60, A, x, y, s);
  for (int i = 0; i < 100; i++) {
    printf("%.17g %.17g\n", x[i], y[i]);
    for (int j = 0; j < 100; j += 3)
      printf("%.17g\n", A[i][j]);
  }
  return 0;
}
