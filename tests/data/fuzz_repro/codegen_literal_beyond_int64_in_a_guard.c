/* polycu-fuzz seed=5631513 options="" */
/* match (was a crash): 'long j' counting to a long m by 3 gives a kernel guard whose
   constant, 2^64 - 4, no 64-bit C type holds: OverflowError in codegen/cuda.py:literal
   (seed 5631513, session 42); the comparison is now computed in polycu_i128 */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

void kernel(int n, long m)
{
  int i = (-122);
  long j = (-123L);
#pragma scop
  for (i = n; i > (-1); i -= 2)
    for (j = MAX(0, i - 1); j < m; j += 3)
    {
    }
#pragma endscop
  printf("@ i int\n");
  printf("%lld\n", (long long) i);
  printf("@ j long\n");
  printf("%lld\n", (long long) j);
}

int main(void)
{
  kernel(2, 0L);
  return 0;
}
/* polycu-fuzz-program {"seed":5631513,"params":[{"name":"n","type":"int","value":2},{"name":"m","type":"long","value":0}],"arrays":[],"scalars":[],"body":[{"k":"for","var":"i","type":"int","lb":["var","n"],"cond":["cmp",">",["var","i"],["num","int",-1]],"step":-2,"inc":2,"body":[{"k":"for","var":"j","type":"long","lb":["max",["num","int",0],["bin","-",["var","i"],["num","int",1]]],"cond":["cmp","<",["var","j"],["var","m"]],"step":3,"inc":2,"body":[]}]}],"options":[],"decl_iters":true} */
