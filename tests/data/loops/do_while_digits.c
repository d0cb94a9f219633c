/* A do ... while loop: the number of decimal digits of each value (at least one,
   the body runs once even for 0) and their sum, negative values included (C's
   division truncates toward zero, so the digits of -407 are -4, 0, -7). */
#include <stdio.h>
#define N 400

static void kernel(int n, int V[N], int D[N], int S[N])
{
  int i, v, d, s;
#pragma scop
  for (i = 0; i < n; i++) {
    v = V[i];
    d = 0;
    s = 0;
    do {
      s += v % 10;
      v = v / 10;
      d++;
    } while (v != 0);
    D[i] = d;
    S[i] = s;
  }
#pragma endscop
}

static void plain(int n, int V[N], int D[N], int S[N])
{
  int i, v, d, s;
  for (i = 0; i < n; i++) {
    v = V[i];
    d = 0;
    s = 0;
    do {
      s += v % 10;
      v = v / 10;
      d++;
    } while (v != 0);
    D[i] = d;
    S[i] = s;
  }
}

int main(void)
{
  static int V[N], D[N], S[N], D2[N], S2[N];
  int i, bad = 0, n = N - 3;
  for (i = 0; i < N; i++) {
    V[i] = (i % 3 == 0 ? -1 : 1) * (int) (((long) i * 2654435761u) % 2000000011u);
    if (i % 17 == 0)
      V[i] = 0;
    D[i] = D2[i] = S[i] = S2[i] = 99;
  }
  kernel(n, V, D, S);
  plain(n, V, D2, S2);
  for (i = 0; i < N; i++)
    bad += (D[i] != D2[i]) + (S[i] != S2[i]);
  printf(bad ? "MISMATCH %d\n" : "OK\n", bad);
  return bad != 0;
}
