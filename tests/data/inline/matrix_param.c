/* A 2-D array parameter (M[r][c] is A[r][c]) whose body has nested loops and an
   if, and a scalar argument passed by value (f is substituted by C[0]). */
#include <stdio.h>
#define N 30

static void scale_off_diagonal(int n, double M[N][N], double f)
{
  for (int r = 0; r < n; r++)
    for (int c = 0; c < n; c++)
      if (r != c)
        M[r][c] *= f;
}

static void kernel(int n, double A[N][N], double C[N])
{
#pragma scop
  scale_off_diagonal(n, A, C[0]);
  scale_off_diagonal(n - 2, A, C[1] + 1);
#pragma endscop
}

int main(void)
{
  static double A[N][N], R[N][N], C[N];
  int r, c, n = N - 1, bad = 0;
  for (r = 0; r < N; r++) {
    C[r] = r + 2;
    for (c = 0; c < N; c++)
      A[r][c] = R[r][c] = (r * 5 + c) % 9 - 4;
  }
  kernel(n, A, C);
  for (r = 0; r < N; r++)
    for (c = 0; c < N; c++) {
      if (r < n && c < n && r != c)
        R[r][c] *= 2;
      if (r < n - 2 && c < n - 2 && r != c)
        R[r][c] *= 4;
      bad += A[r][c] != R[r][c];
    }
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return bad != 0;
}
