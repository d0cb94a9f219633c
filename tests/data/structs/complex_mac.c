/* Complex numbers as an array of {re, im} structs: y = A x (a complex matrix-vector
   product, multiply-accumulate into y), then z[i] = y[i] * conj(y[i]) in place of
   z's real part only (z's imaginary parts keep the host's values: the structs are
   copied in before they are copied out). */
#include <stdio.h>
#define N 120

struct cplx { double re; double im; };

static void kernel(int n, struct cplx A[N][N], struct cplx x[N], struct cplx y[N],
                   struct cplx z[N])
{
  int i, k;
#pragma scop
  for (i = 0; i < n; i++) {
    y[i].re = 0.0;
    y[i].im = 0.0;
    for (k = 0; k < n; k++) {
      y[i].re += A[i][k].re * x[k].re - A[i][k].im * x[k].im;
      y[i].im += A[i][k].re * x[k].im + A[i][k].im * x[k].re;
    }
  }
  for (i = 0; i < n; i++)
    z[i].re = y[i].re * y[i].re + y[i].im * y[i].im;
#pragma endscop
}

static void plain(int n, struct cplx A[N][N], struct cplx x[N], struct cplx y[N],
                  struct cplx z[N])
{
  int i, k;
  for (i = 0; i < n; i++) {
    y[i].re = 0.0;
    y[i].im = 0.0;
    for (k = 0; k < n; k++) {
      y[i].re += A[i][k].re * x[k].re - A[i][k].im * x[k].im;
      y[i].im += A[i][k].re * x[k].im + A[i][k].im * x[k].re;
    }
  }
  for (i = 0; i < n; i++)
    z[i].re = y[i].re * y[i].re + y[i].im * y[i].im;
}

int main(void)
{
  static struct cplx A[N][N], x[N], y[N], z[N], y2[N], z2[N];
  int i, k, bad = 0, n = N - 7;
  for (i = 0; i < N; i++) {
    for (k = 0; k < N; k++) {
      A[i][k].re = ((i * 31 + k * 17) % 23 - 11) * 0.125;
      A[i][k].im = ((i * 13 + k * 7) % 19 - 9) * 0.25;
    }
    x[i].re = (i % 5) - 2.5;
    x[i].im = (i % 3) * 0.5;
    y[i].re = y2[i].re = -7.0 - i;
    y[i].im = y2[i].im = 9.0 + i;
    z[i].re = z2[i].re = 1.0e9 + i;
    z[i].im = z2[i].im = -3.0e7 - i;
  }
  kernel(n, A, x, y, z);
  plain(n, A, x, y2, z2);
  for (i = 0; i < N; i++)
    bad += (y[i].re != y2[i].re) + (y[i].im != y2[i].im) + (z[i].re != z2[i].re)
           + (z[i].im != z2[i].im);
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return bad != 0;
}
