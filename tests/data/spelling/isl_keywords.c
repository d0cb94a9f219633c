/* identifiers that isl's parser reads as keywords, in any case: the model's isl
   text did not parse (a traceback). */
#include <stdio.h>
#define N 40
static double Floor[N], mod[N], rat[N];
void kernel(int MIN, int Max, int exists, int infty, int domain)
{
  int range, ceild;
#pragma scop
  for (range = MIN; range < Max; range++)
    for (ceild = exists; ceild < range + infty; ceild++)
      Floor[range] += mod[ceild] * rat[ceild % 5] + domain;
#pragma endscop
}
int main(void)
{
  for (int i = 0; i < N; i++) { Floor[i] = i; mod[i] = 0.5 * i; rat[i] = 0.25 * (i % 4) - 0.5; }
  kernel(2, 30, 1, 5, 3);
  printf("@ Floor hex\n"); for (int i = 0; i < N; i++) printf("%a\n", Floor[i]);
  return 0;
}
