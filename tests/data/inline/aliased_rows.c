/* Aliasing and copies: one row passed as both parameters of a function that reads
   ahead of what it writes, a by-value parameter the callee overwrites, and a
   local array of the callee (a temporary of the SCoP after inlining). */
#include <stdio.h>
#define N 40
static void shift(double *dst, double *src, int n)
{
  for (int k = 0; k < n - 1; k++)
    dst[k] = src[k + 1] + dst[k];
}
static double twice_plus(double x) { x = x * 2; return x + 1; }
static void smooth(double out[N], double in[N], int n)
{
  double t[N];
  for (int k = 0; k < n; k++)
    t[k] = in[k] * 2;
  for (int k = 0; k < n; k++)
    out[k] = t[k] + t[n - 1 - k];
}
static void kernel(int n, double A[N][N], double B[N][N], double C[N][N], double y[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    shift(A[i], A[i], n);
    y[i] = twice_plus(y[i]) + twice_plus(A[i][0]);
    smooth(C[i], B[i], n);
  }
#pragma endscop
}
int main(void)
{
  static double A[N][N], B[N][N], C[N][N], y[N], A2[N][N], C2[N][N], y2[N];
  int i, j, k, n = N - 3, bad = 0;
  for (i = 0; i < N; i++) {
    y[i] = y2[i] = i % 5 - 2;
    for (j = 0; j < N; j++) {
      A[i][j] = A2[i][j] = (i * 7 + j * 3) % 11 - 5;
      B[i][j] = (i + 2 * j) % 9;
      C[i][j] = C2[i][j] = -1;
    }
  }
  kernel(n, A, B, C, y);
  for (i = 0; i < n; i++) {
    for (k = 0; k < n - 1; k++) A2[i][k] = A2[i][k + 1] + A2[i][k];
    y2[i] = (y2[i] * 2 + 1) + (A2[i][0] * 2 + 1);
    for (k = 0; k < n; k++) C2[i][k] = B[i][k] * 2 + B[i][n - 1 - k] * 2;
  }
  for (i = 0; i < N; i++) {
    bad += y[i] != y2[i];
    for (j = 0; j < N; j++) bad += A[i][j] != A2[i][j], bad += C[i][j] != C2[i][j];
  }
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return bad != 0;
}
