/* polycu-fuzz seed=30 options="" */
/* crash (build) and nvcc failure: a `long` loop counter and `MAX(0, i - 2)` give
   `max(-2, -p)` on int and long long: 'call of overloaded max(int, long long int) is ambiguous'
   (seed 30, run A); fixed in run B's tree */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

void kernel(int p, unsigned B[4])
{
  long i;
  int j;
#pragma scop
  for (i = p; i >= 0; --i)
    for (j = MAX(0, i - 2); j <= 0; j += 3)
      B[j] = j;
#pragma endscop
}

int main(void)
{
  static unsigned B[4];
  for (int i0 = 0; i0 < 4; i0++) B[i0] = (unsigned) ((-8 + 13 * i0) % 7) * 1000u;
  kernel(0, B);
  printf("@ B unsigned\n");
  for (int i0 = 0; i0 < 4; i0++) printf("%llu\n", (unsigned long long) B[i0]);
  return 0;
}
/* polycu-fuzz-program {"seed":30,"params":[{"name":"p","type":"int","value":0}],"arrays":[{"name":"B","type":"unsigned","ndim":1,"kind":"fixed","init":{"k":-8,"a":[13],"m":7,"scale":1000},"pad":[3]}],"scalars":[],"body":[{"k":"for","var":"i","type":"long","lb":["var","p"],"cond":["cmp",">=",["var","i"],["num","int",0]],"step":-1,"inc":1,"body":[{"k":"for","var":"j","type":"int","lb":["max",["num","int",0],["bin","-",["var","i"],["num","int",2]]],"cond":["cmp","<=",["var","j"],["num","int",0]],"step":3,"inc":0,"body":[{"k":"stmt","lhs":["ref","B",[["var","j"]]],"op":"=","rhs":["var","j"]}]}]}],"options":[],"decl_iters":true} */
