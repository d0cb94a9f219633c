/* A condition on a 2-D array in a 2-D nest whose loops are both parallel, with a
   scalar threshold, and a per-row count that carries a dependence along j only. */
#include <stdio.h>
#define N 120
#define M 90

static void kernel(int n, int m, double thr, double G[N][M], double T[N], double R[N][M],
                   int K[N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      if (G[i][j] > T[i] && G[i][j] < thr * (j + 1))
        R[i][j] = G[i][j] - T[i];
      else
        R[i][j] = 0;
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      if (G[i][j] < 0)
        K[i] += 1;
#pragma endscop
}

static void plain(int n, int m, double thr, double G[N][M], double T[N], double R[N][M],
                  int K[N])
{
  int i, j;
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      if (G[i][j] > T[i] && G[i][j] < thr * (j + 1))
        R[i][j] = G[i][j] - T[i];
      else
        R[i][j] = 0;
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      if (G[i][j] < 0)
        K[i] += 1;
}

int main(void)
{
  static double G[N][M], T[N], R[N][M], R2[N][M];
  static int K[N], K2[N];
  int i, j, bad = 0, n = N - 7, m = M - 3;
  for (i = 0; i < N; i++) {
    T[i] = ((i * 37) % 41 - 20) * 1.0e7;
    K[i] = K2[i] = -i;
    for (j = 0; j < M; j++) {
      G[i][j] = ((i * 131 + j * 7919) % 2003 - 1001) * 1.0e6 + 0.5;
      R[i][j] = R2[i][j] = 42;
    }
  }
  kernel(n, m, 1.0e7, G, T, R, K);
  plain(n, m, 1.0e7, G, T, R2, K2);
  for (i = 0; i < N; i++) {
    bad += K[i] != K2[i];
    for (j = 0; j < M; j++)
      bad += R[i][j] != R2[i][j];
  }
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return bad != 0;
}
