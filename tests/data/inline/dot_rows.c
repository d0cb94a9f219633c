/* A call inside an expression of a function whose body declares a local, runs a
   loop and returns: its statements go before the statement of the call, with fresh
   names, once per call. */
#include <stdio.h>
#define N 36

static double dot(double a[N], double b[], int n)
{
  double s = 0;
  for (int k = 0; k < n; k++)
    s += a[k] * b[k];
  return s;
}

static void kernel(int n, double A[N][N], double B[N][N], double C[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    C[i] = dot(A[i], B[i], n) - dot(B[i], B[i], n - 1);
#pragma endscop
}

int main(void)
{
  static double A[N][N], B[N][N], C[N];
  int i, k, n = N - 1, bad = 0;
  for (i = 0; i < N; i++) {
    C[i] = 7;
    for (k = 0; k < N; k++)
      A[i][k] = (i + 2 * k) % 5 - 2, B[i][k] = (3 * i + k) % 4;
  }
  kernel(n, A, B, C);
  for (i = 0; i < N; i++) {
    double s = 0, t = 0;
    for (k = 0; k < n; k++)
      s += A[i][k] * B[i][k];
    for (k = 0; k < n - 1; k++)
      t += B[i][k] * B[i][k];
    bad += C[i] != (i < n ? s - t : 7);
  }
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return bad != 0;
}
