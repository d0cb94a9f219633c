/* polycu-fuzz seed=5634310 options="" */
/* match: a first version of session 42's no-overflow assumption took (m - i) + 1 over the
   iterators, put m >= p - 9223372036854775809 in the context and crashed in
   frontend/final_values.py:_c_text on that literal; only values of the parameters alone
   are assumed not to overflow now */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

void kernel(int n, long m, int p, float A[p], unsigned long B[14][12], unsigned long C[p + 4])
{
  int i = (-122);
  unsigned j = 4294967173u;
#pragma scop
  for (i = 0; i < p; ++i)
    for (j = 0 + 2147483650u; j <= (n + 2147483650u); j += 2)
    {
      A[j - 2147483650u] += B[(m - i) + 1][(((j - 2147483650u) + 2) - 3u) + 3u];
      C[(j - 2147483650u) + 1] %= (-3);
    }
#pragma endscop
  printf("@ i int\n");
  printf("%lld\n", (long long) i);
  printf("@ j unsigned\n");
  printf("%llu\n", (unsigned long long) j);
}

int main(void)
{
  static float A[9];
  static unsigned long B[14][12];
  static unsigned long C[13];
  for (int i0 = 0; i0 < 9; i0++) A[i0] = (float) ((-9 + -5 * i0) % 61) * (-0.75f);
  for (int i0 = 0; i0 < 14; i0++) for (int i1 = 0; i1 < 12; i1++) B[i0][i1] = (unsigned long) ((unsigned long long) ((-10 + 7 * i0 + 7 * i1) % 41) * 1ULL + 18446744073709551575ULL);
  for (int i0 = 0; i0 < 13; i0++) C[i0] = (unsigned long) ((unsigned long long) ((7 + 7 * i0) % 7) * 1ULL + 18446744073709551615ULL);
  kernel(8, 12L, 9, A, B, C);
  printf("@ A float\n");
  for (int i0 = 0; i0 < 9; i0++) printf("%.9g\n", (double) A[i0]);
  printf("@ B unsigned long\n");
  for (int i0 = 0; i0 < 14; i0++) for (int i1 = 0; i1 < 12; i1++) printf("%llu\n", (unsigned long long) B[i0][i1]);
  printf("@ C unsigned long\n");
  for (int i0 = 0; i0 < 13; i0++) printf("%llu\n", (unsigned long long) C[i0]);
  return 0;
}
/* polycu-fuzz-program {"seed":5634310,"params":[{"name":"n","type":"int","value":8},{"name":"m","type":"long","value":12},{"name":"p","type":"int","value":9}],"arrays":[{"name":"A","type":"float","ndim":1,"kind":"vla","init":{"k":-9,"a":[-5],"m":61,"scale":-0.75},"pad":[0]},{"name":"B","type":"unsigned long","ndim":2,"kind":"fixed","init":{"k":-10,"a":[7,7],"m":41,"scale":1,"base":18446744073709551575},"pad":[0,1]},{"name":"C","type":"unsigned long","ndim":1,"kind":"vla","init":{"k":7,"a":[7],"m":7,"scale":1,"base":18446744073709551615},"pad":[3]}],"scalars":[],"body":[{"k":"for","var":"i","type":"int","lb":["num","int",0],"cond":["cmp","<",["var","i"],["var","p"]],"step":1,"inc":1,"body":[{"k":"for","var":"j","type":"unsigned","lb":["num","int",0],"cond":["cmp","<=",["var","j"],["var","n"]],"step":2,"inc":0,"body":[{"k":"stmt","lhs":["ref","A",[["var","j"]]],"op":"+=","rhs":["ref","B",[["bin","+",["bin","-",["var","m"],["var","i"]],["num","int",1]],["bin","+",["var","j"],["num","int",2]]]]},{"k":"stmt","lhs":["ref","C",[["bin","+",["var","j"],["num","int",1]]]],"op":"%=","rhs":["num","int",-3]}],"offset":2147483650}]}],"options":["--fusion","smart"],"decl_iters":true} */
