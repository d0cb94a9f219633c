/* polycu-fuzz seed=700234 options="--private-memory " */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

void kernel(int n, int tsteps, double alpha0, double A[3][5], double *B, int *C)
{
#pragma scop
  for (int t = 0; t < tsteps; ++t)
  {
    for (unsigned i = 0 + 2147483650u; i < (tsteps + 2147483650u); ++i)
    {
      A[(i - 2147483650u) + 1][MIN(i - 2147483650u, n - 1)] = alpha0;
      double t1 = sqrt(fabs(A[MIN(i - 2147483650u, 6 - 1)][(i - 2147483650u) + 2])) - B[i - 2147483650u];
      B[i - 2147483650u] = fmin(t1, 1.25 / (1.0 + fabs(B[i - 2147483650u])));
      C[i - 2147483650u] = 3;
    }
  }
#pragma endscop
}

int main(void)
{
  static double A[3][5];
  static double B[2];
  static int C[3];
  for (int i0 = 0; i0 < 3; i0++) for (int i1 = 0; i1 < 5; i1++) A[i0][i1] = (double) ((-12 + -5 * i0 + 3 * i1) % 23) * (-0.75);
  for (int i0 = 0; i0 < 2; i0++) B[i0] = (double) ((-18 + 1 * i0) % 41) * 2.5e-08;
  for (int i0 = 0; i0 < 3; i0++) C[i0] = (int) ((2 + -5 * i0) % 41) * 1;
  kernel(11, 2, 3.0, A, B, C);
  printf("@ A double\n");
  for (int i0 = 0; i0 < 3; i0++) for (int i1 = 0; i1 < 5; i1++) printf("%.17g\n", (double) A[i0][i1]);
  printf("@ B double\n");
  for (int i0 = 0; i0 < 2; i0++) printf("%.17g\n", (double) B[i0]);
  printf("@ C int\n");
  for (int i0 = 0; i0 < 3; i0++) printf("%lld\n", (long long) C[i0]);
  return 0;
}
/* polycu-fuzz-program {"seed":700234,"params":[{"name":"n","type":"int","value":11},{"name":"tsteps","type":"int","value":2}],"arrays":[{"name":"A","type":"double","ndim":2,"kind":"fixed","init":{"k":-12,"a":[-5,3],"m":23,"scale":-0.75},"pad":[0,1]},{"name":"B","type":"double","ndim":1,"kind":"pointer","init":{"k":-18,"a":[1],"m":41,"scale":2.5e-08},"pad":[0]},{"name":"C","type":"int","ndim":1,"kind":"pointer","init":{"k":2,"a":[-5],"m":41,"scale":1},"pad":[1]}],"scalars":[{"name":"alpha0","type":"double","kind":"arg","init":3.0}],"body":[{"k":"for","var":"t","type":"int","lb":["num","int",0],"cond":["cmp","<",["var","t"],["var","tsteps"]],"step":1,"inc":1,"body":[{"k":"for","var":"i","type":"unsigned","lb":["num","int",0],"cond":["cmp","<",["var","i"],["var","tsteps"]],"step":1,"inc":1,"body":[{"k":"stmt","lhs":["ref","A",[["bin","+",["var","i"],["num","int",1]],["min",["var","i"],["bin","-",["var","n"],["num","int",1]]]]],"op":"=","rhs":["var","alpha0"]},{"k":"let","type":"double","name":"t1","init":["bin","-",["call","sqrt",[["call","fabs",[["ref","A",[["min",["var","i"],["bin","-",["num","int",6],["num","int",1]]],["bin","+",["var","i"],["num","int",2]]]]]]]],["ref","B",[["var","i"]]]]},{"k":"stmt","lhs":["ref","B",[["var","i"]]],"op":"=","rhs":["call","fmin",[["var","t1"],["bin","/",["num","double",1.25],["bin","+",["num","double",1.0],["call","fabs",[["ref","B",[["var","i"]]]]]]]]]},{"k":"stmt","lhs":["ref","C",[["var","i"]]],"op":"=","rhs":["num","int",3]}],"offset":2147483650}]}],"options":[],"decl_iters":false} */
