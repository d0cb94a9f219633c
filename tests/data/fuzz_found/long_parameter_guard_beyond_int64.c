/* fuzz seed 5620517 (session 38), minimised: i = p - 1 converts a long to int, which
   the model assumes in range; the assumption's pieces for p beyond long's range
   (p >= 2^63) reached the code as `p >= 9223372036854775808LL`, which nvcc reads as
   unsigned (g++ as __int128): on the GPU a copy's extent was 0 bytes for p = 1 and
   the kernel wrote past it ("illegal memory access"); the emulation was right. */
#include <stdio.h>

static double A[48];

void kernel(long p, int D[48])
{
  int i;
  unsigned j;
#pragma scop
  for (i = p - 1; i > -1; --i)
    for (j = 0; j <= i; ++j)
      A[i] = D[i] + j;
#pragma endscop
}

int main(void)
{
  static int D[48];
  for (int k = 0; k < 48; k++)
    D[k] = 7 * k - 100;
  long ps[] = {1, 0, -3, 40};
  for (int t = 0; t < 4; t++) {
    kernel(ps[t], D);
    for (int k = 0; k < 48; k++)
      printf("%.17g\n", A[k]);
  }
  return 0;
}
