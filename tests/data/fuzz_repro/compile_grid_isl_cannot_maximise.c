/* polycu-fuzz seed=3700025 options="--tile-size 3" */
/* crash (compile): a grid isl cannot maximise (isl_pw_aff_max_val: "expecting integer
   affine expression") ended the compilation with a traceback in Kernel.looped; that
   axis now loops over its blocks, which is legal for any grid. */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

void kernel(int m, double A[11])
{
  int i = (-122), j = (-123);
  float s0 = 3.0f;
#pragma scop
  for (i = 2; i < m; ++i)
    for (j = MAX(0, i - 2); j <= i; ++j)
    {
      if ((j % 3) != 0)
        A[j + 4] = A[i + 4];
    }
  for (i = m - 1; i > (-1); --i)
    for (j = 0; j < m; ++j)
      s0 += A[(1 - i) + 5] - A[j + 3];
#pragma endscop
  printf("@ i int\n");
  printf("%lld\n", (long long) i);
  printf("@ j int\n");
  printf("%lld\n", (long long) j);
}

int main(void)
{
  static double A[11];
  for (int i0 = 0; i0 < 11; i0++) A[i0] = (double) ((-14 + 1 * (i0 - 4)) % 61) * 0.001;
  kernel(7, A);
  printf("@ A double\n");
  for (int i0 = 0; i0 < 11; i0++) printf("%.17g\n", (double) A[i0]);
  return 0;
}
/* polycu-fuzz-program {"seed":3700025,"params":[{"name":"m","type":"int","value":7}],"arrays":[{"name":"A","type":"double","ndim":1,"kind":"fixed","init":{"k":-14,"a":[1],"m":61,"scale":0.001},"pad":[0]}],"scalars":[{"name":"s0","type":"float","kind":"local","init":3.0}],"body":[{"k":"for","var":"i","type":"int","lb":["num","int",2],"cond":["cmp","<",["var","i"],["var","m"]],"step":1,"inc":1,"body":[{"k":"for","var":"j","type":"int","lb":["max",["num","int",0],["bin","-",["var","i"],["num","int",2]]],"cond":["cmp","<=",["var","j"],["var","i"]],"step":1,"inc":1,"body":[{"k":"if","cond":["cmp","!=",["bin","%",["var","j"],["num","int",3]],["num","int",0]],"then":[{"k":"stmt","lhs":["ref","A",[["var","j"]]],"op":"=","rhs":["ref","A",[["var","i"]]]}],"else":null}]}]},{"k":"for","var":"i","type":"int","lb":["bin","-",["var","m"],["num","int",1]],"cond":["cmp",">",["var","i"],["num","int",-1]],"step":-1,"inc":1,"body":[{"k":"for","var":"j","type":"int","lb":["num","int",0],"cond":["cmp","<",["var","j"],["var","m"]],"step":1,"inc":1,"body":[{"k":"stmt","lhs":["var","s0"],"op":"+=","rhs":["bin","-",["ref","A",[["bin","+",["bin","-",["num","int",1],["var","i"]],["num","int",1]]]],["ref","A",[["bin","-",["var","j"],["num","int",1]]]]]}]}]}],"options":["--tile-size","3"],"decl_iters":true} */
