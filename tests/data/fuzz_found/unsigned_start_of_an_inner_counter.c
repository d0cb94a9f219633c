/* polycu-fuzz seed=3400180 options="--tile-size 5": compilation took minutes.  The
   unsigned j starts at 2 * i (long i, 2 <= i <= m, int m): the conversion was
   modelled modulo 2^32, as m's int range was not used to prove that 2 * i never
   wraps, and the divisions by 2^31 and 3 * 2^31 it put in j's domain made isl
   take 2 x 88 s for j's final value (a lexmax over the exit values' pieces) and
   minutes more in the GPU mapping (dim_max of the band).  The conversion is now
   exact for every parameter in its type's range, and the final value takes the
   lexmax over the loop's times alone, pulling the exit value back to it. */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

static float A[2][3];

void kernel(int n, int m, int p)
{
  long i = (-122L);
  unsigned j = 4294967173u;
#pragma scop
  for (i = 2; (m + 1) > i; i += 2)
  {
    for (j = 2 * i; j < (n - 1); j += 3)
      A[i - 1][j] += ((float) p) / 2.0f;
    A[i - i][2] = i;
  }
#pragma endscop
  printf("@ i long\n");
  printf("%lld\n", (long long) i);
  printf("@ j unsigned\n");
  printf("%llu\n", (unsigned long long) j);
}

int main(void)
{
  for (int i0 = 0; i0 < 2; i0++) for (int i1 = 0; i1 < 3; i1++) A[i0][i1] = (float) ((-10 + 7 * i0 + 1 * i1) % 7) * 15000000.0f;
  kernel(4, 11, 31);
  printf("@ A float\n");
  for (int i0 = 0; i0 < 2; i0++) for (int i1 = 0; i1 < 3; i1++) printf("%.9g\n", (double) A[i0][i1]);
  return 0;
}
/* polycu-fuzz-program {"seed":3400180,"params":[{"name":"n","type":"int","value":4},{"name":"m","type":"int","value":11},{"name":"p","type":"int","value":31}],"arrays":[{"name":"A","type":"float","ndim":2,"kind":"global","init":{"k":-10,"a":[7,1],"m":7,"scale":15000000.0},"pad":[1,0]}],"scalars":[],"body":[{"k":"for","var":"i","type":"long","lb":["num","int",2],"cond":["cmp",">",["bin","+",["var","m"],["num","int",1]],["var","i"]],"step":2,"inc":2,"body":[{"k":"for","var":"j","type":"unsigned","lb":["bin","*",["num","int",2],["var","i"]],"cond":["cmp","<",["var","j"],["bin","-",["var","n"],["num","int",1]]],"step":3,"inc":2,"body":[{"k":"stmt","lhs":["ref","A",[["bin","-",["var","i"],["num","int",1]],["var","j"]]],"op":"+=","rhs":["bin","/",["cast","float",["var","p"]],["num","float",2.0]]}]},{"k":"stmt","lhs":["ref","A",[["bin","-",["var","i"],["var","i"]],["num","int",2]]],"op":"=","rhs":["var","i"]}]}],"options":["--tile-size","5"],"decl_iters":true} */
