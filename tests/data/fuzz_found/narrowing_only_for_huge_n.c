/* polycu-fuzz seed=100305 options="--tile-size 8" */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

void kernel(int n, int m, double A[8], int B[m + 10][m + 6][n + 16])
{
  long i;
  int j;
#pragma scop
  for (i = 0; n > i; i = i + 3)
  {
    A[i + 1] = A[i] - A[(i % 3) + 2];
    for (j = 2 * i; j <= (n + 1); j += 1)
    {
      if (j < (j + i))
        B[j][i + 2][(m - j) + 8] -= (1 * (-2)) % 1000;
      B[j][i][(j + i) + 8] *= 2;
    }
  }
#pragma endscop
}

int main(void)
{
  static double A[8];
  static int B[11][7][24];
  for (int i0 = 0; i0 < 8; i0++) A[i0] = (double) ((2 + 1 * (i0 - 1)) % 61) * 0.001;
  for (int i0 = 0; i0 < 11; i0++) for (int i1 = 0; i1 < 7; i1++) for (int i2 = 0; i2 < 24; i2++) B[i0][i1][i2] = (int) ((-16 + 7 * (i0 - 1) + 1 * (i1 - 1) + -5 * (i2 - 8)) % 41) * 1;
  kernel(8, 1, A, B);
  printf("@ A double\n");
  for (int i0 = 0; i0 < 8; i0++) printf("%.17g\n", (double) A[i0]);
  printf("@ B int\n");
  for (int i0 = 0; i0 < 11; i0++) for (int i1 = 0; i1 < 7; i1++) for (int i2 = 0; i2 < 24; i2++) printf("%lld\n", (long long) B[i0][i1][i2]);
  return 0;
}
/* polycu-fuzz-program {"seed":100305,"params":[{"name":"n","type":"int","value":8},{"name":"m","type":"int","value":1}],"arrays":[{"name":"A","type":"double","ndim":1,"kind":"fixed","init":{"k":2,"a":[1],"m":61,"scale":0.001},"pad":[0]},{"name":"B","type":"int","ndim":3,"kind":"vla","init":{"k":-16,"a":[7,1,-5],"m":41,"scale":1},"pad":[1,1,3]}],"scalars":[],"body":[{"k":"for","var":"i","type":"long","lb":["num","int",0],"cond":["cmp",">",["var","n"],["var","i"]],"step":3,"inc":1,"body":[{"k":"stmt","lhs":["ref","A",[["var","i"]]],"op":"=","rhs":["bin","-",["ref","A",[["bin","-",["var","i"],["num","int",1]]]],["ref","A",[["bin","+",["bin","%",["var","i"],["num","int",3]],["num","int",1]]]]]},{"k":"for","var":"j","type":"int","lb":["bin","*",["num","int",2],["var","i"]],"cond":["cmp","<=",["var","j"],["bin","+",["var","n"],["num","int",1]]],"step":1,"inc":2,"body":[{"k":"if","cond":["cmp","<",["var","j"],["bin","+",["var","j"],["var","i"]]],"then":[{"k":"stmt","lhs":["ref","B",[["bin","-",["var","j"],["num","int",1]],["bin","+",["var","i"],["num","int",1]],["bin","-",["var","m"],["var","j"]]]],"op":"-=","rhs":["bin","%",["bin","*",["num","int",1],["num","int",-2]],["num","int",1000]]}],"else":null},{"k":"stmt","lhs":["ref","B",[["bin","-",["var","j"],["num","int",1]],["bin","-",["var","i"],["num","int",1]],["bin","+",["var","j"],["var","i"]]]],"op":"*=","rhs":["num","int",2]}]}]}],"options":["--tile-size","8"],"decl_iters":true} */
