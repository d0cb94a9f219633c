/* Data subscripts under a data-dependent if (the whole if one over-approximated
   statement) and in a 2-D update whose k stays parallel. */
#include <stdio.h>
void f(int n, int idx[200], double w[200], double H[16], double G[16][4])
{
#pragma scop
  for (int i = 0; i < n; i++)
    if (w[i] > 0.25)
      H[idx[i] & 15] += w[i];
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 4; k++)
      G[(idx[i] >> 2) % 16][k] = G[(idx[i] >> 2) % 16][k] * 0.5 + k;
#pragma endscop
}
int main(void)
{
  static int idx[200]; static double w[200], H[16], G[16][4];
  for (int i = 0; i < 200; i++) { idx[i] = (i * 29 + 7) % 97; w[i] = (i % 10) * 0.1; }
  for (int b = 0; b < 16; b++) for (int k = 0; k < 4; k++) G[b][k] = b - k;
  f(200, idx, w, H, G);
  for (int b = 0; b < 16; b++) { printf("%.17g\n", H[b]); for (int k = 0; k < 4; k++) printf("%.17g\n", G[b][k]); }
  return 0;
}
