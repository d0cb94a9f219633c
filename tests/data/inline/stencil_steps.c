/* A time loop around two calls per step: a 3-point average of a row written into
   another row, then copied back; the callees' loops become loops of the SCoP and
   the scheduler sees through them. */
#include <stdio.h>
#define N 60
#define T 4

static double avg3(double v[N], int j)
{
  return (v[j - 1] + v[j] + v[j + 1]) / 3;
}

static void smooth(double out[N], double in[N], int n)
{
  for (int j = 1; j < n - 1; j++)
    out[j] = avg3(in, j);
}

static void copy_back(double dst[N], double src[N], int n)
{
  for (int j = 1; j < n - 1; j++)
    dst[j] = src[j];
}

static void kernel(int n, double G[2][N])
{
  int t;
#pragma scop
  for (t = 0; t < T; t++) {
    smooth(G[1], G[0], n);
    copy_back(G[0], G[1], n);
  }
#pragma endscop
}

int main(void)
{
  static double G[2][N], a[N], b[N];
  int t, j, n = N - 1, bad = 0;
  for (j = 0; j < N; j++)
    G[0][j] = a[j] = (j * 7) % 5 * 3, G[1][j] = b[j] = 0;
  kernel(n, G);
  for (t = 0; t < T; t++) {
    for (j = 1; j < n - 1; j++)
      b[j] = (a[j - 1] + a[j] + a[j + 1]) / 3;
    for (j = 1; j < n - 1; j++)
      a[j] = b[j];
  }
  for (j = 0; j < N; j++)
    bad += G[0][j] != a[j] || G[1][j] != b[j];
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return bad != 0;
}
