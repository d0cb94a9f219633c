/* polycu-fuzz seed=100029 options="" */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

static double B[1][5];

void kernel(int n, double alpha0, unsigned A[1][1][2], int C[n + 2][n + 3])
{
  int i, k, l;
  long j;
#pragma scop
  for (i = n - 1; i > (-1); i -= 1)
    for (j = MIN(n - 1, i + 2) + 3000000000L; j >= (MAX(0, i - 2) + 3000000000L); j -= 1)
      for (k = 2 * i; k < n; k += 1)
      {
        for (l = i; l >= MAX(0, i - 2); l -= 1)
        {
          A[j - 3000000000L][k][l] = (2u * (-2)) % 10007;
          B[k][l + 1] += ((7.0 / (1.0 + fabs((-3.0)))) - alpha0) - ((((j - 3000000000L) / 2) > (2 - 1)) ? (((i + l) <= (k + 1)) ? alpha0 : B[k][(l - 1) + 1]) : ((j - 3000000000L) + C[n][(l + (j - 3000000000L)) + 2]));
        }
      }
#pragma endscop
}

int main(void)
{
  static unsigned A[1][1][2];
  static int C[3][4];
  for (int i0 = 0; i0 < 1; i0++) for (int i1 = 0; i1 < 1; i1++) for (int i2 = 0; i2 < 2; i2++) A[i0][i1][i2] = (unsigned) ((0 + 1 * (i0 - 1) + 7 * i1 + -5 * (i2 - 1)) % 7) * 1u;
  for (int i0 = 0; i0 < 1; i0++) for (int i1 = 0; i1 < 5; i1++) B[i0][i1] = (double) ((11 + 1 * i0 + 7 * (i1 - 2)) % 23) * 1.0;
  for (int i0 = 0; i0 < 3; i0++) for (int i1 = 0; i1 < 4; i1++) C[i0][i1] = (int) ((-18 + 7 * i0 + -5 * i1) % 41) * 1;
  kernel(1, 0.1, A, C);
  printf("@ A unsigned\n");
  for (int i0 = 0; i0 < 1; i0++) for (int i1 = 0; i1 < 1; i1++) for (int i2 = 0; i2 < 2; i2++) printf("%llu\n", (unsigned long long) A[i0][i1][i2]);
  printf("@ B double\n");
  for (int i0 = 0; i0 < 1; i0++) for (int i1 = 0; i1 < 5; i1++) printf("%.17g\n", (double) B[i0][i1]);
  printf("@ C int\n");
  for (int i0 = 0; i0 < 3; i0++) for (int i1 = 0; i1 < 4; i1++) printf("%lld\n", (long long) C[i0][i1]);
  return 0;
}
/* polycu-fuzz-program {"seed":100029,"params":[{"name":"n","type":"int","value":1}],"arrays":[{"name":"A","type":"unsigned","ndim":3,"kind":"fixed","init":{"k":0,"a":[1,7,-5],"m":7,"scale":1},"pad":[0,0,1]},{"name":"B","type":"double","ndim":2,"kind":"global","init":{"k":11,"a":[1,7],"m":23,"scale":1.0},"pad":[0,3]},{"name":"C","type":"int","ndim":2,"kind":"vla","init":{"k":-18,"a":[7,-5],"m":41,"scale":1},"pad":[1,1]}],"scalars":[{"name":"alpha0","type":"double","kind":"arg","init":0.1}],"body":[{"k":"for","var":"i","type":"int","lb":["bin","-",["var","n"],["num","int",1]],"cond":["cmp",">",["var","i"],["num","int",-1]],"step":-1,"inc":2,"body":[{"k":"for","var":"j","type":"long","lb":["min",["bin","-",["var","n"],["num","int",1]],["bin","+",["var","i"],["num","int",2]]],"cond":["cmp",">=",["var","j"],["max",["num","int",0],["bin","-",["var","i"],["num","int",2]]]],"step":-1,"inc":2,"body":[{"k":"for","var":"k","type":"int","lb":["bin","*",["num","int",2],["var","i"]],"cond":["cmp","<",["var","k"],["var","n"]],"step":1,"inc":2,"body":[{"k":"for","var":"l","type":"int","lb":["var","i"],"cond":["cmp",">=",["var","l"],["max",["num","int",0],["bin","-",["var","i"],["num","int",2]]]],"step":-1,"inc":2,"body":[{"k":"stmt","lhs":["ref","A",[["bin","-",["var","j"],["num","int",1]],["var","k"],["bin","-",["var","l"],["num","int",1]]]],"op":"=","rhs":["bin","%",["bin","*",["num","unsigned",2],["num","int",-2]],["num","int",10007]]},{"k":"stmt","lhs":["ref","B",[["var","k"],["bin","-",["var","l"],["num","int",1]]]],"op":"+=","rhs":["bin","-",["bin","-",["bin","/",["num","double",7.0],["bin","+",["num","double",1.0],["call","fabs",[["num","double",-3.0]]]]],["var","alpha0"]],["cond",["cmp",">",["bin","/",["var","j"],["num","int",2]],["bin","-",["num","int",2],["num","int",1]]],["cond",["cmp","<=",["bin","+",["var","i"],["var","l"]],["bin","+",["var","k"],["num","int",1]]],["var","alpha0"],["ref","B",[["var","k"],["bin","-",["bin","-",["var","l"],["num","int",1]],["num","int",1]]]]],["bin","+",["var","j"],["ref","C",[["var","n"],["bin","+",["bin","+",["var","l"],["var","j"]],["num","int",2]]]]]]]}]}]}],"offset":3000000000}]}],"options":[],"decl_iters":true} */
