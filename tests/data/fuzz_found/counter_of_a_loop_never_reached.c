/* polycu-fuzz seed=9020 options="" */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

static int A[1];
static unsigned B[2];
static float acc0;

void kernel(unsigned m, int p, int tsteps, double C[2][1][1], double D[1])
{
  int i = (-122), j = (-123), t = (-133);
#pragma scop
  for (t = 0; t < tsteps; ++t)
    for (i = 3; i <= (3 - 1); ++i)
    {
      for (j = p - 1; j >= i; j = j - 2)
      {
        acc0 = powf(A[p - i], 2);
        double t1 = ((j % 2) != 1) ? B[j + 1] : C[(tsteps - j) + 1][i % 5][0];
        if ((m > (j - 1)) && ((j % 2) != 1))
          acc0 += D[j - 2];
      }
    }
#pragma endscop
  printf("@ i int\n");
  printf("%lld\n", (long long) i);
  printf("@ j int\n");
  printf("%lld\n", (long long) j);
  printf("@ t int\n");
  printf("%lld\n", (long long) t);
}

int main(void)
{
  static double C[2][1][1];
  static double D[1];
  for (int i0 = 0; i0 < 1; i0++) A[i0] = (int) ((19 + 13 * i0) % 61) * 1;
  for (int i0 = 0; i0 < 2; i0++) B[i0] = (unsigned) ((16 + 7 * i0) % 61) * 1u;
  for (int i0 = 0; i0 < 2; i0++) for (int i1 = 0; i1 < 1; i1++) for (int i2 = 0; i2 < 1; i2++) C[i0][i1][i2] = (double) ((-7 + 13 * i0 + 13 * i1 + -5 * i2) % 61) * (-0.75);
  for (int i0 = 0; i0 < 1; i0++) D[i0] = (double) ((-5 + -5 * i0) % 61) * 1.0;
  acc0 = 1.5f;
  kernel(11u, 2, 3, C, D);
  printf("@ A int\n");
  for (int i0 = 0; i0 < 1; i0++) printf("%lld\n", (long long) A[i0]);
  printf("@ B unsigned\n");
  for (int i0 = 0; i0 < 2; i0++) printf("%llu\n", (unsigned long long) B[i0]);
  printf("@ C double\n");
  for (int i0 = 0; i0 < 2; i0++) for (int i1 = 0; i1 < 1; i1++) for (int i2 = 0; i2 < 1; i2++) printf("%.17g\n", (double) C[i0][i1][i2]);
  printf("@ D double\n");
  for (int i0 = 0; i0 < 1; i0++) printf("%.17g\n", (double) D[i0]);
  printf("@ acc0 float\n");
  printf("%.9g\n", (double) acc0);
  return 0;
}
/* polycu-fuzz-program {"seed":9020,"params":[{"name":"m","type":"unsigned","value":11},{"name":"p","type":"int","value":2},{"name":"tsteps","type":"int","value":3}],"arrays":[{"name":"A","type":"int","ndim":1,"kind":"global","init":{"k":19,"a":[13],"m":61,"scale":1},"pad":[0]},{"name":"B","type":"unsigned","ndim":1,"kind":"global","init":{"k":16,"a":[7],"m":61,"scale":1},"pad":[1]},{"name":"C","type":"double","ndim":3,"kind":"fixed","init":{"k":-7,"a":[13,13,-5],"m":61,"scale":-0.75},"pad":[1,0,0]},{"name":"D","type":"double","ndim":1,"kind":"vla","init":{"k":-5,"a":[-5],"m":61,"scale":1.0},"pad":[0]}],"scalars":[{"name":"acc0","type":"float","kind":"global","init":1.5}],"body":[{"k":"for","var":"t","type":"int","lb":["num","int",0],"cond":["cmp","<",["var","t"],["var","tsteps"]],"step":1,"inc":1,"body":[{"k":"for","var":"i","type":"int","lb":["num","int",3],"cond":["cmp","<=",["var","i"],["bin","-",["num","int",3],["num","int",1]]],"step":1,"inc":1,"body":[{"k":"for","var":"j","type":"int","lb":["bin","-",["var","p"],["num","int",1]],"cond":["cmp",">=",["var","j"],["var","i"]],"step":-2,"inc":1,"body":[{"k":"stmt","lhs":["var","acc0"],"op":"=","rhs":["call","powf",[["ref","A",[["bin","-",["var","p"],["var","i"]]]],["num","int",2]]]},{"k":"let","type":"double","name":"t1","init":["cond",["cmp","!=",["bin","%",["var","j"],["num","int",2]],["num","int",1]],["ref","B",[["bin","+",["var","j"],["num","int",1]]]],["ref","C",[["bin","+",["bin","-",["var","tsteps"],["var","j"]],["num","int",1]],["bin","%",["var","i"],["num","int",5]],["num","int",0]]]]},{"k":"if","cond":["and",["cmp",">",["var","m"],["bin","-",["var","j"],["num","int",1]]],["cmp","!=",["bin","%",["var","j"],["num","int",2]],["num","int",1]]],"then":[{"k":"stmt","lhs":["var","acc0"],"op":"+=","rhs":["ref","D",[["bin","-",["var","j"],["num","int",2]]]]}],"else":null}]}]}]}],"options":[],"decl_iters":true} */
