/* polycu-fuzz seed=3200242 options="": open (not run by the tests).  The unsigned
   loop i = (m - 2) + 3000000000u .. 5 + 3000000000u wraps at m = 1; the scheduler
   skews it with coefficients like 1073741824 * m, and the grid computed at n = 11,
   m = 1 is 3952509682 blocks, over CUDA's limit: the launch fails with a located
   error (the same on commit c97dc3c, before session 11). */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

static float A[3];
static double B[4][2];

void kernel(int n, int m)
{
  int j = (-123);
#pragma scop
  for (unsigned i = (m - 2) + 3000000000u; i <= (5 + 3000000000u); i++)
    for (j = 0; j <= (n - 1); j += 1)
      A[((i - 3000000000u) % 2) + 1] -= n;
  for (int i = 0; i < 1; i++)
    for (j = i; j < m; j += 2)
    {
      if (n == (i - 1))
        A[j - 1] *= A[i + 1] + ((A[j + 2] + (-3.0f)) + (m + 0.001f));
      B[(i % 3) + 1][i] = B[((i % 3) + 1) + 1][(i - 1) + 2];
    }
#pragma endscop
  printf("@ j int\n");
  printf("%lld\n", (long long) j);
}

int main(void)
{
  for (int i0 = 0; i0 < 3; i0++) A[i0] = (float) ((18 + 7 * i0) % 61) * 0.001f;
  for (int i0 = 0; i0 < 4; i0++) for (int i1 = 0; i1 < 2; i1++) B[i0][i1] = (double) ((8 + 7 * i0 + 13 * (i1 - 1)) % 41) * (-0.75);
  kernel(11, 1);
  printf("@ A float\n");
  for (int i0 = 0; i0 < 3; i0++) printf("%.9g\n", (double) A[i0]);
  printf("@ B double\n");
  for (int i0 = 0; i0 < 4; i0++) for (int i1 = 0; i1 < 2; i1++) printf("%.17g\n", (double) B[i0][i1]);
  return 0;
}
/* polycu-fuzz-program {"seed":3200242,"params":[{"name":"n","type":"int","value":11},{"name":"m","type":"int","value":1}],"arrays":[{"name":"A","type":"float","ndim":1,"kind":"global","init":{"k":18,"a":[7],"m":61,"scale":0.001},"pad":[0]},{"name":"B","type":"double","ndim":2,"kind":"global","init":{"k":8,"a":[7,13],"m":41,"scale":-0.75},"pad":[1,0]}],"scalars":[],"body":[{"k":"for","var":"i","type":"unsigned","lb":["bin","-",["var","m"],["num","int",2]],"cond":["cmp","<=",["var","i"],["num","int",5]],"step":1,"inc":0,"body":[{"k":"for","var":"j","type":"int","lb":["num","int",0],"cond":["cmp","<=",["var","j"],["bin","-",["var","n"],["num","int",1]]],"step":1,"inc":2,"body":[{"k":"stmt","lhs":["ref","A",[["bin","+",["bin","%",["var","i"],["num","int",2]],["num","int",1]]]],"op":"-=","rhs":["var","n"]}]}],"offset":3000000000},{"k":"for","var":"i","type":"int","lb":["num","int",0],"cond":["cmp","<",["var","i"],["num","int",1]],"step":1,"inc":0,"body":[{"k":"for","var":"j","type":"int","lb":["var","i"],"cond":["cmp","<",["var","j"],["var","m"]],"step":2,"inc":0,"body":[{"k":"if","cond":["cmp","==",["var","n"],["bin","-",["var","i"],["num","int",1]]],"then":[{"k":"stmt","lhs":["ref","A",[["bin","-",["var","j"],["num","int",1]]]],"op":"*=","rhs":["bin","+",["ref","A",[["bin","+",["var","i"],["num","int",1]]]],["bin","+",["bin","+",["ref","A",[["bin","+",["var","j"],["num","int",2]]]],["num","float",-3.0]],["bin","+",["var","m"],["num","float",0.001]]]]}],"else":null},{"k":"stmt","lhs":["ref","B",[["bin","+",["bin","%",["var","i"],["num","int",3]],["num","int",1]],["bin","-",["var","i"],["num","int",1]]]],"op":"=","rhs":["ref","B",[["bin","+",["bin","+",["bin","%",["var","i"],["num","int",3]],["num","int",1]],["num","int",1]],["bin","+",["bin","-",["var","i"],["num","int",1]],["num","int",1]]]]}]}]}],"options":[],"decl_iters":true} */
