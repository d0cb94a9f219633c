/* polycu-fuzz seed=3100286, minimised: E, unsigned, is read through a shared tile
   (reused across t) as an operand of ?: against an int.  C converts t to unsigned;
   in the emulation the tile's element is an object, and C++ converted it to int
   instead, so values above INT_MAX came out negative (the GPU code was right). */
#include <stdio.h>

static void kernel(int n, int m, int D[40][40], unsigned E[40])
{
#pragma scop
  for (int t = 0; t < m; t++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        D[j][k] = ((E[k] > t) ? E[k] : t) % 97;
#pragma endscop
}

int main(void)
{
  static int D[40][40];
  static unsigned E[40];
  for (int k = 0; k < 40; k++)
    E[k] = (k % 3 == 0) ? 4000000000u - 7u * k : 5u * k;
  kernel(37, 5, D, E);
  for (int j = 0; j < 40; j++)
    for (int k = 0; k < 40; k++)
      printf("%d\n", D[j][k]);
  return 0;
}
