#include <stdio.h>
void f(unsigned lo, long long A[16])
{
#pragma scop
  for (unsigned i = lo; i < lo + 16u; i++)
    A[i - lo] = i;
#pragma endscop
}
int main(void)
{
  long long A[16];
  f(2147483640u, A);
  for (int k = 0; k < 16; k++)
    printf("%lld\n", A[k]);
  return 0;
}
