/* polycu-fuzz seed=5607087 options="" */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
typedef double real;
typedef float real32;
typedef unsigned u32;
typedef long i64;

void kernel(int n, real alpha0, real alpha1, real A[5][5], real B[11][5], real C[10][5])
{
#pragma scop
  for (int i = 2; i < (3 + 1); ++i)
  {
    for (i64 j = 0; j < 5; j += 1)
    {
      A[i][j] *= alpha1;
      for (u32 k = 0; k < (n - 1); k += 1)
        A[i][j] += (alpha0 * B[k][i + 1]) * C[k][j];
    }
  }
#pragma endscop
}

int main(void)
{
  static real A[5][5];
  static real B[11][5];
  static real C[10][5];
  for (int i0 = 0; i0 < 5; i0++) for (int i1 = 0; i1 < 5; i1++) A[i0][i1] = (real) ((5 + 1 * i0 + -5 * i1) % 61) * 1000.0;
  for (int i0 = 0; i0 < 11; i0++) for (int i1 = 0; i1 < 5; i1++) B[i0][i1] = (real) ((-18 + 3 * i0 + -5 * i1) % 41) * 2.5e-08;
  for (int i0 = 0; i0 < 10; i0++) for (int i1 = 0; i1 < 5; i1++) C[i0][i1] = (real) ((-14 + 1 * i0 + 7 * i1) % 7) * 1000.0;
  kernel(11, 0.1, (-2.25), A, B, C);
  printf("@ A double\n");
  for (int i0 = 0; i0 < 5; i0++) for (int i1 = 0; i1 < 5; i1++) printf("%.17g\n", (real) A[i0][i1]);
  printf("@ B double\n");
  for (int i0 = 0; i0 < 11; i0++) for (int i1 = 0; i1 < 5; i1++) printf("%.17g\n", (real) B[i0][i1]);
  printf("@ C double\n");
  for (int i0 = 0; i0 < 10; i0++) for (int i1 = 0; i1 < 5; i1++) printf("%.17g\n", (real) C[i0][i1]);
  return 0;
}
/* polycu-fuzz-program {"seed":5607087,"params":[{"name":"n","type":"int","value":11}],"arrays":[{"name":"A","type":"double","ndim":2,"kind":"fixed","init":{"k":5,"a":[1,-5],"m":61,"scale":1000.0},"pad":[1,0]},{"name":"B","type":"double","ndim":2,"kind":"vla","init":{"k":-18,"a":[3,-5],"m":41,"scale":2.5e-08},"pad":[1,0]},{"name":"C","type":"double","ndim":2,"kind":"fixed","init":{"k":-14,"a":[1,7],"m":7,"scale":1000.0},"pad":[0,0]}],"scalars":[{"name":"alpha0","type":"double","kind":"arg","init":0.1},{"name":"alpha1","type":"double","kind":"arg","init":-2.25}],"body":[{"k":"for","var":"i","type":"int","lb":["num","int",2],"cond":["cmp","<",["var","i"],["bin","+",["num","int",3],["num","int",1]]],"step":1,"inc":1,"body":[{"k":"for","var":"j","type":"long","lb":["num","int",0],"cond":["cmp","<",["var","j"],["num","int",5]],"step":1,"inc":2,"body":[{"k":"stmt","lhs":["ref","A",[["var","i"],["var","j"]]],"op":"*=","rhs":["var","alpha1"]},{"k":"for","var":"k","type":"unsigned","lb":["num","int",0],"cond":["cmp","<",["var","k"],["bin","-",["var","n"],["num","int",1]]],"step":1,"inc":2,"body":[{"k":"stmt","lhs":["ref","A",[["var","i"],["var","j"]]],"op":"+=","rhs":["bin","*",["bin","*",["var","alpha0"],["ref","B",[["var","k"],["bin","+",["var","i"],["num","int",1]]]]],["ref","C",[["var","k"],["var","j"]]]]}]}]}]}],"options":[],"decl_iters":false} */
