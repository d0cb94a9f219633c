/* A for loop whose bound is not affine (a product of the iterator with itself):
   row i sums the first i * i elements of A, and a parameter-times-parameter
   bound fills a prefix of a row.  The counter is declared in the loop. */
#include <stdio.h>
#define N 40

static void kernel(int n, int m, double A[N * N], double S[N], double B[N][N * N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    S[i] = 0.0;
    for (int j = 0; j < i * i; j++)
      S[i] += A[j];
  }
  for (i = 0; i < n; i++)
    for (int j = 0; j < n * m; j++)
      B[i][j] = A[j] + i;
#pragma endscop
}

static void plain(int n, int m, double A[N * N], double S[N], double B[N][N * N])
{
  int i;
  for (i = 0; i < n; i++) {
    S[i] = 0.0;
    for (int j = 0; j < i * i; j++)
      S[i] += A[j];
  }
  for (i = 0; i < n; i++)
    for (int j = 0; j < n * m; j++)
      B[i][j] = A[j] + i;
}

int main(void)
{
  static double A[N * N], S[N], S2[N], B[N][N * N], B2[N][N * N];
  int i, j, bad = 0, n = N - 2, m = 23;
  for (i = 0; i < N * N; i++)
    A[i] = (i % 13) * 0.5 - 2.0;
  for (i = 0; i < N; i++) {
    S[i] = S2[i] = 7.0;
    for (j = 0; j < N * N; j++)
      B[i][j] = B2[i][j] = -1.0;
  }
  kernel(n, m, A, S, B);
  plain(n, m, A, S2, B2);
  for (i = 0; i < N; i++) {
    bad += S[i] != S2[i];
    for (j = 0; j < N * N; j++)
      bad += B[i][j] != B2[i][j];
  }
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return bad != 0;
}
