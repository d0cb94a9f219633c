/* polycu-fuzz seed=100007 options="" */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

void kernel(int n, double A[13][12][12], int B[n + 4][n + 6], double C[n - 2][7], int D[3][9])
{
  unsigned i;
#pragma scop
  for (i = 0; i < (n + 2); i += 2)
    A[i + 1][i + 1][i + 1] = B[i + 1][MIN(i, n - 1)];
  for (i = 0 + 2147483650u; i <= (6 + 2147483650u); i += 2)
  {
    A[(i - 2147483650u) + 1][(i - 2147483650u) + 2][1] = B[i - 2147483650u][(i - 2147483650u) + 1];
    C[(i - 2147483650u) + 1][i - 2147483650u] = (D[((i - 2147483650u) + 1) / 3][(i - 2147483650u) + 1] * B[(2 * (i - 2147483650u)) + 1][((i - 2147483650u) + (i - 2147483650u)) + 2]) * ((i - 2147483650u) * 0.1);
  }
#pragma endscop
}

int main(void)
{
  static double A[13][12][12];
  static int B[14][16];
  static double C[8][7];
  static int D[3][9];
  for (int i0 = 0; i0 < 13; i0++) for (int i1 = 0; i1 < 12; i1++) for (int i2 = 0; i2 < 12; i2++) A[i0][i1][i2] = (double) ((11 + -5 * i0 + 13 * i1 + 7 * i2) % 7) * 1000.0;
  for (int i0 = 0; i0 < 14; i0++) for (int i1 = 0; i1 < 16; i1++) B[i0][i1] = (int) ((-2 + 13 * i0 + 1 * i1) % 61) * 1;
  for (int i0 = 0; i0 < 8; i0++) for (int i1 = 0; i1 < 7; i1++) C[i0][i1] = (double) ((1 + 1 * i0 + -5 * i1) % 61) * 2.5e-08;
  for (int i0 = 0; i0 < 3; i0++) for (int i1 = 0; i1 < 9; i1++) D[i0][i1] = (int) ((-14 + 7 * i0 + 1 * i1) % 23) * 1000;
  kernel(10, A, B, C, D);
  printf("@ A double\n");
  for (int i0 = 0; i0 < 13; i0++) for (int i1 = 0; i1 < 12; i1++) for (int i2 = 0; i2 < 12; i2++) printf("%.17g\n", (double) A[i0][i1][i2]);
  printf("@ B int\n");
  for (int i0 = 0; i0 < 14; i0++) for (int i1 = 0; i1 < 16; i1++) printf("%lld\n", (long long) B[i0][i1]);
  printf("@ C double\n");
  for (int i0 = 0; i0 < 8; i0++) for (int i1 = 0; i1 < 7; i1++) printf("%.17g\n", (double) C[i0][i1]);
  printf("@ D int\n");
  for (int i0 = 0; i0 < 3; i0++) for (int i1 = 0; i1 < 9; i1++) printf("%lld\n", (long long) D[i0][i1]);
  return 0;
}
/* polycu-fuzz-program {"seed":100007,"params":[{"name":"n","type":"int","value":10}],"arrays":[{"name":"A","type":"double","ndim":3,"kind":"fixed","init":{"k":11,"a":[-5,13,7],"m":7,"scale":1000.0},"pad":[1,0,0]},{"name":"B","type":"int","ndim":2,"kind":"vla","init":{"k":-2,"a":[13,1],"m":61,"scale":1},"pad":[0,1]},{"name":"C","type":"double","ndim":2,"kind":"vla","init":{"k":1,"a":[1,-5],"m":61,"scale":2.5e-08},"pad":[0,0]},{"name":"D","type":"int","ndim":2,"kind":"fixed","init":{"k":-14,"a":[7,1],"m":23,"scale":1000},"pad":[0,1]}],"scalars":[],"body":[{"k":"for","var":"i","type":"unsigned","lb":["num","int",0],"cond":["cmp","<",["var","i"],["bin","+",["var","n"],["num","int",2]]],"step":2,"inc":2,"body":[{"k":"stmt","lhs":["ref","A",[["bin","+",["var","i"],["num","int",1]],["bin","+",["var","i"],["num","int",1]],["bin","+",["var","i"],["num","int",1]]]],"op":"=","rhs":["ref","B",[["bin","+",["var","i"],["num","int",1]],["min",["var","i"],["bin","-",["var","n"],["num","int",1]]]]]}]},{"k":"for","var":"i","type":"unsigned","lb":["num","int",0],"cond":["cmp","<=",["var","i"],["num","int",6]],"step":2,"inc":0,"body":[{"k":"stmt","lhs":["ref","A",[["bin","+",["var","i"],["num","int",1]],["bin","+",["var","i"],["num","int",2]],["num","int",1]]],"op":"=","rhs":["ref","B",[["var","i"],["bin","+",["var","i"],["num","int",1]]]]},{"k":"stmt","lhs":["ref","C",[["bin","+",["var","i"],["num","int",1]],["var","i"]]],"op":"=","rhs":["bin","*",["bin","*",["ref","D",[["bin","/",["bin","+",["var","i"],["num","int",1]],["num","int",3]],["bin","+",["var","i"],["num","int",1]]]],["ref","B",[["bin","+",["bin","*",["num","int",2],["var","i"]],["num","int",1]],["bin","+",["bin","+",["var","i"],["var","i"]],["num","int",2]]]]],["bin","*",["var","i"],["num","double",0.1]]]}],"offset":2147483650}],"options":[],"decl_iters":true} */
