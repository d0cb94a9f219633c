/* polycu-fuzz seed=5602937 options="--run-on=gpu" */
/* isl's AST builder failed inside ("affine expression involves some of the domain
   dimensions") on the placed code of the kernel: a traceback; now it keeps global memory. */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
enum { K_0 = 0, K_1 = 1, K_2 = 2, K_3 = 3, K_5 = 5 };

static double E[2][3];

void kernel(int n, unsigned A[n][n + 1], int B[n + 2][n][n + 3], unsigned C[n + 1][n + 2][n + 1], double D[n][n][3], double F[n + 1])
{
  int i = (-122);
#pragma scop
  for (i = n - K_1; i >= K_0; i--)
  {
    A[i][i] = (B[i + K_2][i][i + K_3] - C[i + K_1][i + K_2][(i % K_5) + K_1]) + abs(((int) K_2));
    if ((i <= K_0) && ((i % K_2) == K_0))
      D[i][i][i + K_2] += D[i + K_1][(i - K_1) + K_2][(i + K_2) - K_1];
    if ((!(i >= (i + K_1))))
      E[i][i] = fmax(E[i][(i - K_2) + K_3], B[i][i][i]);
    F[i + K_1] /= 2.0;
  }
#pragma endscop
  printf("@ i int\n");
  printf("%lld\n", (long long) i);
}

int main(void)
{
  static unsigned A[2][3];
  static int B[4][2][5];
  static unsigned C[3][4][3];
  static double D[2][2][3];
  static double F[3];
  for (int i0 = 0; i0 < 2; i0++) for (int i1 = 0; i1 < 3; i1++) A[i0][i1] = (unsigned) ((10 + -5 * (i0 - 1) + 13 * i1) % 61) * 1u;
  for (int i0 = 0; i0 < 4; i0++) for (int i1 = 0; i1 < 2; i1++) for (int i2 = 0; i2 < 5; i2++) B[i0][i1][i2] = (int) ((19 + 1 * (i0 - 1) + 7 * (i1 - 1) + 3 * (i2 - 2)) % 61) * 1000;
  for (int i0 = 0; i0 < 3; i0++) for (int i1 = 0; i1 < 4; i1++) for (int i2 = 0; i2 < 3; i2++) C[i0][i1][i2] = (unsigned) ((-15 + -5 * i0 + 13 * i1 + 1 * i2) % 41) * 1u;
  for (int i0 = 0; i0 < 2; i0++) for (int i1 = 0; i1 < 2; i1++) for (int i2 = 0; i2 < 3; i2++) D[i0][i1][i2] = (double) ((14 + 7 * i0 + 7 * (i1 - 1) + 13 * i2) % 23) * 0.3333333333333333;
  for (int i0 = 0; i0 < 2; i0++) for (int i1 = 0; i1 < 3; i1++) E[i0][i1] = (double) ((-8 + 1 * i0 + 1 * (i1 - 2)) % 41) * 2.5e-08;
  for (int i0 = 0; i0 < 3; i0++) F[i0] = (double) ((17 + 1 * i0) % 41) * 0.001;
  kernel(2, A, B, C, D, F);
  printf("@ A unsigned\n");
  for (int i0 = 0; i0 < 2; i0++) for (int i1 = 0; i1 < 3; i1++) printf("%llu\n", (unsigned long long) A[i0][i1]);
  printf("@ B int\n");
  for (int i0 = 0; i0 < 4; i0++) for (int i1 = 0; i1 < 2; i1++) for (int i2 = 0; i2 < 5; i2++) printf("%lld\n", (long long) B[i0][i1][i2]);
  printf("@ C unsigned\n");
  for (int i0 = 0; i0 < 3; i0++) for (int i1 = 0; i1 < 4; i1++) for (int i2 = 0; i2 < 3; i2++) printf("%llu\n", (unsigned long long) C[i0][i1][i2]);
  printf("@ D double\n");
  for (int i0 = 0; i0 < 2; i0++) for (int i1 = 0; i1 < 2; i1++) for (int i2 = 0; i2 < 3; i2++) printf("%.17g\n", (double) D[i0][i1][i2]);
  printf("@ E double\n");
  for (int i0 = 0; i0 < 2; i0++) for (int i1 = 0; i1 < 3; i1++) printf("%.17g\n", (double) E[i0][i1]);
  printf("@ F double\n");
  for (int i0 = 0; i0 < 3; i0++) printf("%.17g\n", (double) F[i0]);
  return 0;
}
/* polycu-fuzz-program {"seed":5602937,"params":[{"name":"n","type":"int","value":2}],"arrays":[{"name":"A","type":"unsigned","ndim":2,"kind":"vla","init":{"k":10,"a":[-5,13],"m":61,"scale":1},"pad":[0,1]},{"name":"B","type":"int","ndim":3,"kind":"vla","init":{"k":19,"a":[1,7,3],"m":61,"scale":1000},"pad":[0,0,0]},{"name":"C","type":"unsigned","ndim":3,"kind":"vla","init":{"k":-15,"a":[-5,13,1],"m":41,"scale":1},"pad":[0,0,0]},{"name":"D","type":"double","ndim":3,"kind":"vla","init":{"k":14,"a":[7,7,13],"m":23,"scale":0.3333333333333333},"pad":[0,0,0]},{"name":"E","type":"double","ndim":2,"kind":"global","init":{"k":-8,"a":[1,1],"m":41,"scale":2.5e-08},"pad":[0,0]},{"name":"F","type":"double","ndim":1,"kind":"vla","init":{"k":17,"a":[1],"m":41,"scale":0.001},"pad":[0]}],"scalars":[],"body":[{"k":"for","var":"i","type":"int","lb":["bin","-",["var","n"],["num","int",1]],"cond":["cmp",">=",["var","i"],["num","int",0]],"step":-1,"inc":0,"body":[{"k":"stmt","lhs":["ref","A",[["bin","-",["var","i"],["num","int",1]],["var","i"]]],"op":"=","rhs":["bin","+",["bin","-",["ref","B",[["bin","+",["var","i"],["num","int",1]],["bin","-",["var","i"],["num","int",1]],["bin","+",["var","i"],["num","int",1]]]],["ref","C",[["bin","+",["var","i"],["num","int",1]],["bin","+",["var","i"],["num","int",2]],["bin","+",["bin","%",["var","i"],["num","int",5]],["num","int",1]]]]],["call","abs",[["cast","int",["num","int",2]]]]]},{"k":"if","cond":["and",["cmp","<=",["var","i"],["num","int",0]],["cmp","==",["bin","%",["var","i"],["num","int",2]],["num","int",0]]],"then":[{"k":"stmt","lhs":["ref","D",[["var","i"],["bin","-",["var","i"],["num","int",1]],["bin","+",["var","i"],["num","int",2]]]],"op":"+=","rhs":["ref","D",[["bin","+",["var","i"],["num","int",1]],["bin","+",["bin","-",["var","i"],["num","int",1]],["num","int",1]],["bin","-",["bin","+",["var","i"],["num","int",2]],["num","int",1]]]]}],"else":null},{"k":"if","cond":["not",["cmp",">=",["var","i"],["bin","+",["var","i"],["num","int",1]]]],"then":[{"k":"stmt","lhs":["ref","E",[["var","i"],["bin","-",["var","i"],["num","int",2]]]],"op":"=","rhs":["call","fmax",[["ref","E",[["var","i"],["bin","+",["bin","-",["var","i"],["num","int",2]],["num","int",1]]]],["ref","B",[["bin","-",["var","i"],["num","int",1]],["bin","-",["var","i"],["num","int",1]],["bin","-",["var","i"],["num","int",2]]]]]]}],"else":null},{"k":"stmt","lhs":["ref","F",[["bin","+",["var","i"],["num","int",1]]]],"op":"/=","rhs":["num","double",2.0]}]}],"options":[],"decl_iters":true} */
