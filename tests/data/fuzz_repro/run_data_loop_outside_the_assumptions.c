/* polycu-fuzz seed=5632890 options="" */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

void kernel(long n, int m, unsigned *A, int B[4], long *C)
{
#pragma scop
  for (int i = 3; i > (-1); i--)
  {
    for (int q1 = 1; (q1 < n) && (A[i + 2] < ((signed char) 1)); ++q1)
      B[q1 + 1] += C[m - i] % 10007;
  }
#pragma endscop
}

int main(void)
{
  static unsigned A[7];
  static int B[4];
  static long C[1];
  for (int i0 = 0; i0 < 7; i0++) A[i0] = (unsigned) ((5 + 1 * i0) % 61) * 1u;
  for (int i0 = 0; i0 < 4; i0++) B[i0] = (int) ((19 + 3 * i0) % 7) * 1;
  for (int i0 = 0; i0 < 1; i0++) C[i0] = (long) ((-13 + 3 * i0) % 61) * 1L;
  kernel(7L, 0, A, B, C);
  printf("@ A unsigned\n");
  for (int i0 = 0; i0 < 7; i0++) printf("%llu\n", (unsigned long long) A[i0]);
  printf("@ B int\n");
  for (int i0 = 0; i0 < 4; i0++) printf("%lld\n", (long long) B[i0]);
  printf("@ C long\n");
  for (int i0 = 0; i0 < 1; i0++) printf("%lld\n", (long long) C[i0]);
  return 0;
}
/* polycu-fuzz-program {"seed":5632890,"params":[{"name":"n","type":"long","value":7},{"name":"m","type":"int","value":0}],"arrays":[{"name":"A","type":"unsigned","ndim":1,"kind":"pointer","init":{"k":5,"a":[1],"m":61,"scale":1},"pad":[1]},{"name":"B","type":"int","ndim":1,"kind":"fixed","init":{"k":19,"a":[3],"m":7,"scale":1},"pad":[3]},{"name":"C","type":"long","ndim":1,"kind":"pointer","init":{"k":-13,"a":[3],"m":61,"scale":1},"pad":[0]}],"scalars":[],"body":[{"k":"for","var":"i","type":"int","lb":["num","int",3],"cond":["cmp",">",["var","i"],["num","int",-1]],"step":-1,"inc":0,"body":[{"k":"for","var":"q1","type":"int","lb":["num","int",1],"cond":["and",["cmp","<",["var","q1"],["var","n"]],["cmp","<",["ref","A",[["bin","+",["var","i"],["num","int",2]]]],["num","signed char",1]]],"step":1,"inc":1,"body":[{"k":"stmt","lhs":["ref","B",[["bin","+",["var","q1"],["num","int",1]]]],"op":"+=","rhs":["bin","%",["ref","C",[["bin","-",["var","m"],["var","i"]]]],["num","int",10007]]}],"data":true}]}],"options":[],"decl_iters":false} */
