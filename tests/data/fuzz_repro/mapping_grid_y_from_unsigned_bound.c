/* polycu-fuzz seed=2100325 options="" */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

void kernel(unsigned n, int m, long A[3][5][1], long B[2][7], unsigned C[3], long D[1][1])
{
#pragma scop
  for (int i = n - 1; i > (-1); i--)
  {
    if (m >= (i + 1))
      for (int j = i; j < (m - i); ++j)
      {
        A[i][(m - j) + 1][i / 2] = ((long) i) % (-7);
        B[i][3 * j] += C[j] % 10007L;
      }
  }
  for (int i = 0; (n + 2) > i; ++i)
  {
    for (int j = i; j < i; j += 1)
      D[j + 1][i] = 2L % 10007L;
  }
#pragma endscop
}

int main(void)
{
  static long A[3][5][1];
  static long B[2][7];
  static unsigned C[3];
  static long D[1][1];
  for (int i0 = 0; i0 < 3; i0++) for (int i1 = 0; i1 < 5; i1++) for (int i2 = 0; i2 < 1; i2++) A[i0][i1][i2] = (long) ((14 + -5 * (i0 - 1) + 1 * i1 + 7 * i2) % 61) * 1000L;
  for (int i0 = 0; i0 < 2; i0++) for (int i1 = 0; i1 < 7; i1++) B[i0][i1] = (long) ((-6 + 13 * i0 + -5 * i1) % 61) * 1L;
  for (int i0 = 0; i0 < 3; i0++) C[i0] = (unsigned) ((-15 + 1 * (i0 - 2)) % 23) * 1u;
  for (int i0 = 0; i0 < 1; i0++) for (int i1 = 0; i1 < 1; i1++) D[i0][i1] = (long) ((17 + 13 * i0 + 13 * i1) % 41) * 1000L;
  kernel(12u, 3, A, B, C, D);
  printf("@ A long\n");
  for (int i0 = 0; i0 < 3; i0++) for (int i1 = 0; i1 < 5; i1++) for (int i2 = 0; i2 < 1; i2++) printf("%lld\n", (long long) A[i0][i1][i2]);
  printf("@ B long\n");
  for (int i0 = 0; i0 < 2; i0++) for (int i1 = 0; i1 < 7; i1++) printf("%lld\n", (long long) B[i0][i1]);
  printf("@ C unsigned\n");
  for (int i0 = 0; i0 < 3; i0++) printf("%llu\n", (unsigned long long) C[i0]);
  printf("@ D long\n");
  for (int i0 = 0; i0 < 1; i0++) for (int i1 = 0; i1 < 1; i1++) printf("%lld\n", (long long) D[i0][i1]);
  return 0;
}
/* polycu-fuzz-program {"seed":2100325,"params":[{"name":"n","type":"unsigned","value":12},{"name":"m","type":"int","value":3}],"arrays":[{"name":"A","type":"long","ndim":3,"kind":"fixed","init":{"k":14,"a":[-5,1,7],"m":61,"scale":1000},"pad":[1,0,0]},{"name":"B","type":"long","ndim":2,"kind":"fixed","init":{"k":-6,"a":[13,-5],"m":61,"scale":1},"pad":[0,0]},{"name":"C","type":"unsigned","ndim":1,"kind":"fixed","init":{"k":-15,"a":[1],"m":23,"scale":1},"pad":[0]},{"name":"D","type":"long","ndim":2,"kind":"fixed","init":{"k":17,"a":[13,13],"m":41,"scale":1000},"pad":[0,0]}],"scalars":[],"body":[{"k":"for","var":"i","type":"int","lb":["bin","-",["var","n"],["num","int",1]],"cond":["cmp",">",["var","i"],["num","int",-1]],"step":-1,"inc":0,"body":[{"k":"if","cond":["cmp",">=",["var","m"],["bin","+",["var","i"],["num","int",1]]],"then":[{"k":"for","var":"j","type":"int","lb":["var","i"],"cond":["cmp","<",["var","j"],["bin","-",["var","m"],["var","i"]]],"step":1,"inc":1,"body":[{"k":"stmt","lhs":["ref","A",[["bin","-",["var","i"],["num","int",1]],["bin","+",["bin","-",["var","m"],["var","j"]],["num","int",1]],["bin","/",["var","i"],["num","int",2]]]],"op":"=","rhs":["bin","%",["cast","long",["var","i"]],["num","int",-7]]},{"k":"stmt","lhs":["ref","B",[["var","i"],["bin","*",["num","int",3],["var","j"]]]],"op":"+=","rhs":["bin","%",["ref","C",[["bin","-",["var","j"],["num","int",2]]]],["num","long",10007]]}]}],"else":null}]},{"k":"for","var":"i","type":"int","lb":["num","int",0],"cond":["cmp",">",["bin","+",["var","n"],["num","int",2]],["var","i"]],"step":1,"inc":1,"body":[{"k":"for","var":"j","type":"int","lb":["var","i"],"cond":["cmp","<",["var","j"],["var","i"]],"step":1,"inc":2,"body":[{"k":"stmt","lhs":["ref","D",[["bin","+",["var","j"],["num","int",1]],["var","i"]]],"op":"=","rhs":["bin","%",["num","long",2],["num","long",10007]]}]}]}],"options":[],"decl_iters":false} */
