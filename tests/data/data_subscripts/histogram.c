/* A histogram (a read-modify-write at a computed bin: one thread runs the loop),
   a prefix sum and a data-dependent if. */
#include <stdio.h>

void hist(int n, int nb, const int idx[1000], double w[1000], double H[64], int C[64], double P[1000])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    H[idx[i] % nb] += w[i];
    C[idx[i] % nb]++;
  }
  P[0] = w[0];
  for (int i = 1; i < n; i++)
    P[i] = P[i - 1] + w[i];
  for (int i = 0; i < n; i++)
    if (w[i] > 0.5 && i * i < n)
      w[i] = -w[i];
#pragma endscop
}

int main(void)
{
  static int idx[1000], C[64];
  static double w[1000], H[64], P[1000];
  for (int i = 0; i < 1000; i++) { idx[i] = (i * 37 + 11) % 1013; w[i] = ((i * 7) % 10) / 10.0; }
  hist(1000, 64, idx, w, H, C, P);
  for (int b = 0; b < 64; b++) printf("%.17g %d\n", H[b], C[b]);
  for (int i = 0; i < 1000; i += 37) printf("%.17g %.17g\n", P[i], w[i]);
  return 0;
}
