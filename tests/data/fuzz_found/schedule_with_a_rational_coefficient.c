/* polycu-fuzz seed=4700146 options="": a traceback (ValueError) in the check of isl's
   schedule coefficients, one of which was rational; now compared as isl values. */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
typedef double real;
typedef float real32;
typedef unsigned u32;
typedef long i64;
enum { K_0 = 0, K_1 = 1, K_2 = 2, K_4 = 4, K_5 = 5, K_6 = 6 };

static int A[9][12][13];

void kernel(int n, u32 m, int p)
{
  int i = (-122);
  i64 j = (-123L);
#pragma scop
  for (i = K_0; (i <= K_5) && (i < (p + K_1)); ++i)
    for (j = K_0; j < (m + K_2); j += K_2)
    {
      i64 t1 = ((j < (n - K_1)) ? K_1 : 2L) - (j - A[j + K_2][(i + i) + K_1][(i - j) + K_6]);
      if ((n > K_2) && ((j / K_2) < (j - K_1)))
        A[i][j + K_1][j + K_4] += j - (((int) i) % K_5);
    }
#pragma endscop
  printf("@ i int\n");
  printf("%lld\n", (long long) i);
  printf("@ j long\n");
  printf("%lld\n", (long long) j);
}

int main(void)
{
  for (int i0 = 0; i0 < 9; i0++) for (int i1 = 0; i1 < 12; i1++) for (int i2 = 0; i2 < 13; i2++) A[i0][i1][i2] = (int) ((9 + 1 * i0 + 7 * i1 + 13 * (i2 - 4)) % 23) * 1;
  kernel(6, 6u, 9);
  printf("@ A int\n");
  for (int i0 = 0; i0 < 9; i0++) for (int i1 = 0; i1 < 12; i1++) for (int i2 = 0; i2 < 13; i2++) printf("%lld\n", (long long) A[i0][i1][i2]);
  return 0;
}
/* polycu-fuzz-program {"seed":4700146,"params":[{"name":"n","type":"int","value":6},{"name":"m","type":"unsigned","value":6},{"name":"p","type":"int","value":9}],"arrays":[{"name":"A","type":"int","ndim":3,"kind":"global","init":{"k":9,"a":[1,7,13],"m":23,"scale":1},"pad":[0,0,1]}],"scalars":[],"body":[{"k":"for","var":"i","type":"int","lb":["num","int",0],"cond":["and",["cmp","<=",["var","i"],["num","int",5]],["cmp","<",["var","i"],["bin","+",["var","p"],["num","int",1]]]],"step":1,"inc":1,"body":[{"k":"for","var":"j","type":"long","lb":["num","int",0],"cond":["cmp","<",["var","j"],["bin","+",["var","m"],["num","int",2]]],"step":2,"inc":2,"body":[{"k":"let","type":"long","name":"t1","init":["bin","-",["cond",["cmp","<",["var","j"],["bin","-",["var","n"],["num","int",1]]],["num","int",1],["num","long",2]],["bin","-",["var","j"],["ref","A",[["bin","+",["var","j"],["num","int",2]],["bin","+",["bin","+",["var","i"],["var","i"]],["num","int",1]],["bin","+",["bin","-",["var","i"],["var","j"]],["num","int",2]]]]]]},{"k":"if","cond":["and",["cmp",">",["var","n"],["num","int",2]],["cmp","<",["bin","/",["var","j"],["num","int",2]],["bin","-",["var","j"],["num","int",1]]]],"then":[{"k":"stmt","lhs":["ref","A",[["var","i"],["bin","+",["var","j"],["num","int",1]],["var","j"]]],"op":"+=","rhs":["bin","-",["var","j"],["bin","%",["cast","int",["var","i"]],["num","int",5]]]}],"else":null}]}]}],"options":[],"decl_iters":true} */
