/* polycu-fuzz seed=100061 options="--tile-size 4" */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

static int A[1][1];
static int C[1][2][1];

void kernel(int n, int m, int p, int B[m - 34][p - 8], long *D, unsigned *E)
{
  unsigned i;
  int j;
#pragma scop
  for (i = 0 + 2147483650u; i < (p + 2147483650u); i += 3)
    for (j = p - 3; (j < p) && (j < 3); j++)
    {
      A[j - 1][i - 2147483650u] = (B[(i - 2147483650u) + 2][i - 2147483650u] - (A[j - 1][(i - 2147483650u) - 1] + A[j - 1][(i - 2147483650u) + 1])) - (-(j - C[0][(m - j) - 1][(i - 2147483650u) + 2]));
      D[j + 1] = (3000000000L + E[2]) % 97L;
      A[i - 2147483650u][(n - j) + 1] = (D[0] % 3) % 10007;
    }
#pragma endscop
}

int main(void)
{
  static int B[1][2];
  static long D[2];
  static unsigned E[2];
  for (int i0 = 0; i0 < 1; i0++) for (int i1 = 0; i1 < 1; i1++) A[i0][i1] = (int) ((-5 + 3 * i0 + -5 * i1) % 23) * 1;
  for (int i0 = 0; i0 < 1; i0++) for (int i1 = 0; i1 < 2; i1++) B[i0][i1] = (int) ((-2 + 7 * i0 + 1 * i1) % 7) * 1;
  for (int i0 = 0; i0 < 1; i0++) for (int i1 = 0; i1 < 2; i1++) for (int i2 = 0; i2 < 1; i2++) C[i0][i1][i2] = (int) ((18 + 7 * i0 + 3 * i1 + 7 * i2) % 61) * 1;
  for (int i0 = 0; i0 < 2; i0++) D[i0] = (long) ((-12 + 1 * i0) % 7) * 100000000L;
  for (int i0 = 0; i0 < 2; i0++) E[i0] = (unsigned) ((-17 + 1 * i0) % 23) * 1u;
  kernel(7, 35, 10, B, D, E);
  printf("@ A int\n");
  for (int i0 = 0; i0 < 1; i0++) for (int i1 = 0; i1 < 1; i1++) printf("%lld\n", (long long) A[i0][i1]);
  printf("@ B int\n");
  for (int i0 = 0; i0 < 1; i0++) for (int i1 = 0; i1 < 2; i1++) printf("%lld\n", (long long) B[i0][i1]);
  printf("@ C int\n");
  for (int i0 = 0; i0 < 1; i0++) for (int i1 = 0; i1 < 2; i1++) for (int i2 = 0; i2 < 1; i2++) printf("%lld\n", (long long) C[i0][i1][i2]);
  printf("@ D long\n");
  for (int i0 = 0; i0 < 2; i0++) printf("%lld\n", (long long) D[i0]);
  printf("@ E unsigned\n");
  for (int i0 = 0; i0 < 2; i0++) printf("%llu\n", (unsigned long long) E[i0]);
  return 0;
}
/* polycu-fuzz-program {"seed":100061,"params":[{"name":"n","type":"int","value":7},{"name":"m","type":"int","value":35},{"name":"p","type":"int","value":10}],"arrays":[{"name":"A","type":"int","ndim":2,"kind":"global","init":{"k":-5,"a":[3,-5],"m":23,"scale":1},"pad":[0,0]},{"name":"B","type":"int","ndim":2,"kind":"vla","init":{"k":-2,"a":[7,1],"m":7,"scale":1},"pad":[0,1]},{"name":"C","type":"int","ndim":3,"kind":"global","init":{"k":18,"a":[7,3,7],"m":61,"scale":1},"pad":[0,1,0]},{"name":"D","type":"long","ndim":1,"kind":"pointer","init":{"k":-12,"a":[1],"m":7,"scale":100000000},"pad":[1]},{"name":"E","type":"unsigned","ndim":1,"kind":"pointer","init":{"k":-17,"a":[1],"m":23,"scale":1},"pad":[1]}],"scalars":[],"body":[{"k":"for","var":"i","type":"unsigned","lb":["num","int",0],"cond":["cmp","<",["var","i"],["var","p"]],"step":3,"inc":0,"body":[{"k":"for","var":"j","type":"int","lb":["bin","-",["var","p"],["num","int",3]],"cond":["and",["cmp","<",["var","j"],["var","p"]],["cmp","<",["var","j"],["num","int",3]]],"step":1,"inc":0,"body":[{"k":"stmt","lhs":["ref","A",[["bin","-",["var","j"],["num","int",1]],["var","i"]]],"op":"=","rhs":["bin","-",["bin","-",["ref","B",[["bin","+",["var","i"],["num","int",2]],["var","i"]]],["bin","+",["ref","A",[["bin","-",["var","j"],["num","int",1]],["bin","-",["var","i"],["num","int",1]]]],["ref","A",[["bin","-",["var","j"],["num","int",1]],["bin","+",["var","i"],["num","int",1]]]]]],["neg",["bin","-",["var","j"],["ref","C",[["num","int",0],["bin","-",["bin","-",["var","m"],["var","j"]],["num","int",1]],["bin","+",["var","i"],["num","int",2]]]]]]]},{"k":"stmt","lhs":["ref","D",[["bin","+",["var","j"],["num","int",1]]]],"op":"=","rhs":["bin","%",["bin","+",["num","long",3000000000],["ref","E",[["num","int",2]]]],["num","long",97]]},{"k":"stmt","lhs":["ref","A",[["var","i"],["bin","+",["bin","-",["var","n"],["var","j"]],["num","int",1]]]],"op":"=","rhs":["bin","%",["bin","%",["ref","D",[["num","int",0]]],["num","int",3]],["num","int",10007]]}]}],"offset":2147483650}],"options":["--tile-size","4"],"decl_iters":true} */
