/* polycu-fuzz seed=200096 options="--tile-size 5" */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

static double A[21][5][17];
static float acc0;

void kernel(int n, int m, double B[5], double C[8][3], double D[3])
{
  unsigned i;
  int j;
#pragma scop
  for (i = 1 + 3000000000u; m > (i - 3000000000u); i++)
  {
    for (j = MAX(0, (i - 3000000000u) - 2); j < 1; j += 1)
      acc0 -= A[j + 1][(i - 3000000000u) + 1][1];
    for (j = n - 1; j > (-1); j -= 1)
    {
      B[j] = (-fmax(C[((i - 3000000000u) % 5) + 2][((i - 3000000000u) % 2) + 1], A[((i - 3000000000u) + (i - 3000000000u)) + 3][j + 2][(i - 3000000000u) + (i - 3000000000u)]));
      D[j] += (D[j] / (1.0 + fabs(i - 3000000000u))) + ((double) 3000000000L);
    }
  }
#pragma endscop
}

int main(void)
{
  static double B[5];
  static double C[8][3];
  static double D[3];
  for (int i0 = 0; i0 < 21; i0++) for (int i1 = 0; i1 < 5; i1++) for (int i2 = 0; i2 < 17; i2++) A[i0][i1][i2] = (double) ((-1 + 13 * (i0 - 3) + 7 * i1 + -5 * i2) % 61) * (-0.75);
  for (int i0 = 0; i0 < 5; i0++) B[i0] = (double) ((-11 + -5 * i0) % 7) * (-0.75);
  for (int i0 = 0; i0 < 8; i0++) for (int i1 = 0; i1 < 3; i1++) C[i0][i1] = (double) ((-9 + -5 * i0 + 3 * i1) % 23) * 2.5e-08;
  for (int i0 = 0; i0 < 3; i0++) D[i0] = (double) ((5 + 13 * (i0 - 1)) % 23) * 0.3333333333333333;
  acc0 = 0.001f;
  kernel(2, 9, B, C, D);
  printf("@ A double\n");
  for (int i0 = 0; i0 < 21; i0++) for (int i1 = 0; i1 < 5; i1++) for (int i2 = 0; i2 < 17; i2++) printf("%.17g\n", (double) A[i0][i1][i2]);
  printf("@ B double\n");
  for (int i0 = 0; i0 < 5; i0++) printf("%.17g\n", (double) B[i0]);
  printf("@ C double\n");
  for (int i0 = 0; i0 < 8; i0++) for (int i1 = 0; i1 < 3; i1++) printf("%.17g\n", (double) C[i0][i1]);
  printf("@ D double\n");
  for (int i0 = 0; i0 < 3; i0++) printf("%.17g\n", (double) D[i0]);
  printf("@ acc0 float\n");
  printf("%.9g\n", (double) acc0);
  return 0;
}
/* polycu-fuzz-program {"seed":200096,"params":[{"name":"n","type":"int","value":2},{"name":"m","type":"int","value":9}],"arrays":[{"name":"A","type":"double","ndim":3,"kind":"global","init":{"k":-1,"a":[13,7,-5],"m":61,"scale":-0.75},"pad":[1,1,0]},{"name":"B","type":"double","ndim":1,"kind":"fixed","init":{"k":-11,"a":[-5],"m":7,"scale":-0.75},"pad":[3]},{"name":"C","type":"double","ndim":2,"kind":"fixed","init":{"k":-9,"a":[-5,3],"m":23,"scale":2.5e-08},"pad":[1,0]},{"name":"D","type":"double","ndim":1,"kind":"fixed","init":{"k":5,"a":[13],"m":23,"scale":0.3333333333333333},"pad":[1]}],"scalars":[{"name":"acc0","type":"float","kind":"global","init":0.001}],"body":[{"k":"for","var":"i","type":"unsigned","lb":["num","int",1],"cond":["cmp",">",["var","m"],["var","i"]],"step":1,"inc":0,"body":[{"k":"for","var":"j","type":"int","lb":["max",["num","int",0],["bin","-",["var","i"],["num","int",2]]],"cond":["cmp","<",["var","j"],["num","int",1]],"step":1,"inc":2,"body":[{"k":"stmt","lhs":["var","acc0"],"op":"-=","rhs":["ref","A",[["bin","-",["var","j"],["num","int",2]],["bin","+",["var","i"],["num","int",1]],["num","int",1]]]}]},{"k":"for","var":"j","type":"int","lb":["bin","-",["var","n"],["num","int",1]],"cond":["cmp",">",["var","j"],["num","int",-1]],"step":-1,"inc":2,"body":[{"k":"stmt","lhs":["ref","B",[["var","j"]]],"op":"=","rhs":["neg",["call","fmax",[["ref","C",[["bin","+",["bin","%",["var","i"],["num","int",5]],["num","int",2]],["bin","+",["bin","%",["var","i"],["num","int",2]],["num","int",1]]]],["ref","A",[["bin","+",["var","i"],["var","i"]],["bin","+",["var","j"],["num","int",2]],["bin","+",["var","i"],["var","i"]]]]]]]},{"k":"stmt","lhs":["ref","D",[["bin","-",["var","j"],["num","int",1]]]],"op":"+=","rhs":["bin","+",["bin","/",["ref","D",[["bin","-",["var","j"],["num","int",1]]]],["bin","+",["num","double",1.0],["call","fabs",[["var","i"]]]]],["cast","double",["num","long",3000000000]]]}]}],"offset":3000000000}],"options":["--tile-size","5"],"decl_iters":true} */
