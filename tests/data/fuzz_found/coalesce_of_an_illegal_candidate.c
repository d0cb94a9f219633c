/* polycu-fuzz seed=3900138 options="--tile-size 4": rejected with "schedule' violates the flow
   dependence" before session 14.  isl's candidates, scheduled under the representative
   context (huge constants), are illegal at huge parameter values; the coalescing
   variant was built from them before the proof and its interchange raised.  Now an
   interchange the proof rejects is not applied, and the candidates are dropped. */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

void kernel(int n, int m, int alpha0, double A[12][23], double B[11][11][6], long C[13][21][23])
{
  unsigned i = 4294967174u;
  long j = (-123L);
#pragma scop
  for (i = 1; i <= (m - 1); i++)
  {
    A[i + 1][i + 2] += ((double) (alpha0 * (-2))) - (sqrt(i) - (-3.0));
    for (j = n - 1; j >= 0; j -= 2)
      A[j - 1][i + 1] = B[j - 1][i][(i % 5) + 1];
    A[i][(i + i) + 1] += 100000.0;
    C[i + 1][i + 1][(i + i) + 2] -= C[i + 2][2 * i][i] % 1000L;
  }
#pragma endscop
  printf("@ i unsigned\n");
  printf("%llu\n", (unsigned long long) i);
  printf("@ j long\n");
  printf("%lld\n", (long long) j);
}

int main(void)
{
  static double A[12][23];
  static double B[11][11][6];
  static long C[13][21][23];
  for (int i0 = 0; i0 < 12; i0++) for (int i1 = 0; i1 < 23; i1++) A[i0][i1] = (double) ((-19 + 3 * i0 + 13 * i1) % 7) * 15000000.0;
  for (int i0 = 0; i0 < 11; i0++) for (int i1 = 0; i1 < 11; i1++) for (int i2 = 0; i2 < 6; i2++) B[i0][i1][i2] = (double) ((-4 + 3 * i0 + 7 * i1 + 13 * i2) % 41) * 15000000.0;
  for (int i0 = 0; i0 < 13; i0++) for (int i1 = 0; i1 < 21; i1++) for (int i2 = 0; i2 < 23; i2++) C[i0][i1][i2] = (long) ((13 + 7 * i0 + -5 * i1 + 13 * i2) % 23) * 1L;
  kernel(12, 11, 2, A, B, C);
  printf("@ A double\n");
  for (int i0 = 0; i0 < 12; i0++) for (int i1 = 0; i1 < 23; i1++) printf("%.17g\n", (double) A[i0][i1]);
  printf("@ B double\n");
  for (int i0 = 0; i0 < 11; i0++) for (int i1 = 0; i1 < 11; i1++) for (int i2 = 0; i2 < 6; i2++) printf("%.17g\n", (double) B[i0][i1][i2]);
  printf("@ C long\n");
  for (int i0 = 0; i0 < 13; i0++) for (int i1 = 0; i1 < 21; i1++) for (int i2 = 0; i2 < 23; i2++) printf("%lld\n", (long long) C[i0][i1][i2]);
  return 0;
}
/* polycu-fuzz-program {"seed":3900138,"params":[{"name":"n","type":"int","value":12},{"name":"m","type":"int","value":11}],"arrays":[{"name":"A","type":"double","ndim":2,"kind":"vla","init":{"k":-19,"a":[3,13],"m":7,"scale":15000000.0},"pad":[0,1]},{"name":"B","type":"double","ndim":3,"kind":"fixed","init":{"k":-4,"a":[3,7,13],"m":41,"scale":15000000.0},"pad":[0,0,0]},{"name":"C","type":"long","ndim":3,"kind":"fixed","init":{"k":13,"a":[7,-5,13],"m":23,"scale":1},"pad":[0,0,0]}],"scalars":[{"name":"alpha0","type":"int","kind":"arg","init":2}],"body":[{"k":"for","var":"i","type":"unsigned","lb":["num","int",1],"cond":["cmp","<=",["var","i"],["bin","-",["var","m"],["num","int",1]]],"step":1,"inc":0,"body":[{"k":"stmt","lhs":["ref","A",[["bin","+",["var","i"],["num","int",1]],["bin","+",["var","i"],["num","int",2]]]],"op":"+=","rhs":["bin","-",["cast","double",["bin","*",["var","alpha0"],["num","int",-2]]],["bin","-",["call","sqrt",[["var","i"]]],["num","double",-3.0]]]},{"k":"for","var":"j","type":"long","lb":["bin","-",["var","n"],["num","int",1]],"cond":["cmp",">=",["var","j"],["num","int",0]],"step":-2,"inc":0,"body":[{"k":"stmt","lhs":["ref","A",[["bin","-",["var","j"],["num","int",1]],["bin","+",["var","i"],["num","int",1]]]],"op":"=","rhs":["ref","B",[["bin","-",["var","j"],["num","int",1]],["var","i"],["bin","+",["bin","%",["var","i"],["num","int",5]],["num","int",1]]]]}]},{"k":"stmt","lhs":["ref","A",[["var","i"],["bin","+",["bin","+",["var","i"],["var","i"]],["num","int",1]]]],"op":"+=","rhs":["num","double",100000.0]},{"k":"stmt","lhs":["ref","C",[["bin","+",["var","i"],["num","int",1]],["bin","+",["var","i"],["num","int",1]],["bin","+",["bin","+",["var","i"],["var","i"]],["num","int",2]]]],"op":"-=","rhs":["bin","%",["ref","C",[["bin","+",["var","i"],["num","int",2]],["bin","*",["num","int",2],["var","i"]],["var","i"]]],["num","long",1000]]}]}],"options":["--tile-size","4"],"decl_iters":true} */
