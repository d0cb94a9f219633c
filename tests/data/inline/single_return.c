/* Functions whose body is 'return EXPR;': substituted where they are called, in
   statements, in subscripts and loop bounds (affine there), inside '?:', and with
   the argument converted to the parameter's type ('half(int v)' called with a
   double truncates it, as C does). */
#include <stdio.h>
#define N 64

static double sq(double x) { return x * x; }
static double get(double M[N][N], int i, int j) { return M[i][j]; }
static int last(int n) { return n - 1; }
static int mirror(int n, int i) { return n - 1 - i; }
static int half(int v) { return v / 2; }

static void kernel(int n, double A[N][N], double B[N], int D[N])
{
  int i;
#pragma scop
  for (i = 0; i < last(n); i++)
    B[i] = sq(get(A, i, mirror(n, i))) + 1;
  for (i = 0; i < n; i++)
    D[mirror(n, i)] = i > 2 ? half(A[i][0]) : last(i);
#pragma endscop
}

int main(void)
{
  static double A[N][N], B[N];
  static int D[N];
  int i, j, n = N - 5, bad = 0;
  for (i = 0; i < N; i++) {
    B[i] = -3, D[i] = -3;
    for (j = 0; j < N; j++)
      A[i][j] = (i * 7 + j) % 11 - 5 + 0.5;
  }
  kernel(n, A, B, D);
  for (i = 0; i < N; i++) {
    double a = A[i][n - 1 - i];
    bad += B[i] != (i < n - 1 ? a * a + 1 : -3);
    j = n - 1 - i;            /* D[j] was written at iteration i */
    if (i < n)
      bad += D[j] != (i > 2 ? (int) A[i][0] / 2 : i - 1);
  }
  for (j = n; j < N; j++)
    bad += D[j] != -3;
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return bad != 0;
}
