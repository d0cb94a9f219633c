/* polycu-fuzz seed=2000154 options="" */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

static double A[1];

void kernel(int n, int m, double B[3][5])
{
#pragma scop
  for (int i = 0; i < m; i += 3)
    A[i] = 0.1;
  for (int i = 0; i <= n; ++i)
    A[i] = B[2][1] * B[i][i];
#pragma endscop
}

int main(void)
{
  static double B[3][5];
  for (int i0 = 0; i0 < 1; i0++) A[i0] = (double) ((-20 + 13 * i0) % 7) * 0.3333333333333333;
  for (int i0 = 0; i0 < 3; i0++) for (int i1 = 0; i1 < 5; i1++) B[i0][i1] = (double) ((-8 + 3 * i0 + 13 * i1) % 23) * 0.3333333333333333;
  kernel(0, 0, B);
  printf("@ A double\n");
  for (int i0 = 0; i0 < 1; i0++) printf("%.17g\n", (double) A[i0]);
  printf("@ B double\n");
  for (int i0 = 0; i0 < 3; i0++) for (int i1 = 0; i1 < 5; i1++) printf("%.17g\n", (double) B[i0][i1]);
  return 0;
}
/* polycu-fuzz-program {"seed":2000154,"params":[{"name":"n","type":"int","value":0},{"name":"m","type":"int","value":0}],"arrays":[{"name":"A","type":"double","ndim":1,"kind":"global","init":{"k":-20,"a":[13],"m":7,"scale":0.3333333333333333},"pad":[0]},{"name":"B","type":"double","ndim":2,"kind":"fixed","init":{"k":-8,"a":[3,13],"m":23,"scale":0.3333333333333333},"pad":[0,3]}],"scalars":[],"body":[{"k":"for","var":"i","type":"int","lb":["num","int",0],"cond":["cmp","<",["var","i"],["var","m"]],"step":3,"inc":2,"body":[{"k":"stmt","lhs":["ref","A",[["var","i"]]],"op":"=","rhs":["num","double",0.1]}]},{"k":"for","var":"i","type":"int","lb":["num","int",0],"cond":["cmp","<=",["var","i"],["var","n"]],"step":1,"inc":1,"body":[{"k":"stmt","lhs":["ref","A",[["var","i"]]],"op":"=","rhs":["bin","*",["ref","B",[["num","int",2],["num","int",1]]],["ref","B",[["var","i"],["var","i"]]]]}]}],"options":[],"decl_iters":false} */
