/* polycu-fuzz seed=4400087 options="--tile-size 4": over five minutes in isl's scheduler for
   the index-set split (k runs from j + 2147483651 on, an unsigned counter offset by
   2^31); the split is now dropped when a representative context does not remove
   the huge constants. */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
enum { K_0 = 0, K_1 = 1, K_2 = 2, K_3 = 3, K_4 = 4, K_6 = 6, K_1000 = 1000 };

static long acc0;

void kernel(int n, int m, int A[n + 1][n + 4], long B[2])
{
#pragma scop
  for (int i = K_0; i < K_6; i = i + K_2)
  {
    A[i][i] = ((A[((long) (i + K_1)) + K_1][i + K_4] - A[i][i + K_3]) * K_3) % K_1000;
    for (int j = n - K_1; j >= K_0; j -= K_1)
      for (unsigned k = (j + K_1) + 2147483650u; k < (m + 2147483650u); k = k + K_2)
      {
        A[j][(k - 2147483650u) + K_3] = B[K_2 * (k - 2147483650u)] % K_1000;
        acc0 += (B[j - K_2] - A[m + K_1][(((k - 2147483650u) + K_1) / K_4) + K_2]) * K_2;
      }
  }
#pragma endscop
}

int main(void)
{
  static int A[7][10];
  static long B[2];
  for (int i0 = 0; i0 < 7; i0++) for (int i1 = 0; i1 < 10; i1++) A[i0][i1] = (int) ((-1 + 1 * (i0 - 1) + 3 * (i1 - 2)) % 23) * 1;
  for (int i0 = 0; i0 < 2; i0++) B[i0] = (long) ((-7 + -5 * i0) % 61) * 100000000L;
  acc0 = (-4L);
  kernel(6, -3, A, B);
  printf("@ A int\n");
  for (int i0 = 0; i0 < 7; i0++) for (int i1 = 0; i1 < 10; i1++) printf("%lld\n", (long long) A[i0][i1]);
  printf("@ B long\n");
  for (int i0 = 0; i0 < 2; i0++) printf("%lld\n", (long long) B[i0]);
  printf("@ acc0 long\n");
  printf("%lld\n", (long long) acc0);
  return 0;
}
/* polycu-fuzz-program {"seed":4400087,"params":[{"name":"n","type":"int","value":6},{"name":"m","type":"int","value":-3}],"arrays":[{"name":"A","type":"int","ndim":2,"kind":"vla","init":{"k":-1,"a":[1,3],"m":23,"scale":1},"pad":[0,1]},{"name":"B","type":"long","ndim":1,"kind":"fixed","init":{"k":-7,"a":[-5],"m":61,"scale":100000000},"pad":[1]}],"scalars":[{"name":"acc0","type":"long","kind":"global","init":-4}],"body":[{"k":"for","var":"i","type":"int","lb":["num","int",0],"cond":["cmp","<",["var","i"],["num","int",6]],"step":2,"inc":1,"body":[{"k":"stmt","lhs":["ref","A",[["bin","-",["var","i"],["num","int",1]],["bin","-",["var","i"],["num","int",2]]]],"op":"=","rhs":["bin","%",["bin","*",["bin","-",["ref","A",[["cast","long",["bin","+",["var","i"],["num","int",1]]],["bin","+",["var","i"],["num","int",2]]]],["ref","A",[["bin","-",["var","i"],["num","int",1]],["bin","+",["var","i"],["num","int",1]]]]],["num","int",3]],["num","int",1000]]},{"k":"for","var":"j","type":"int","lb":["bin","-",["var","n"],["num","int",1]],"cond":["cmp",">=",["var","j"],["num","int",0]],"step":-1,"inc":2,"body":[{"k":"for","var":"k","type":"unsigned","lb":["bin","+",["var","j"],["num","int",1]],"cond":["cmp","<",["var","k"],["var","m"]],"step":2,"inc":1,"body":[{"k":"stmt","lhs":["ref","A",[["bin","-",["var","j"],["num","int",1]],["bin","+",["var","k"],["num","int",1]]]],"op":"=","rhs":["bin","%",["ref","B",[["bin","*",["num","int",2],["var","k"]]]],["num","int",1000]]},{"k":"stmt","lhs":["var","acc0"],"op":"+=","rhs":["bin","*",["bin","-",["ref","B",[["bin","-",["var","j"],["num","int",2]]]],["ref","A",[["var","m"],["bin","/",["bin","+",["var","k"],["num","int",1]],["num","int",4]]]]],["num","int",2]]}],"offset":2147483650}]}]}],"options":["--tile-size","4"],"decl_iters":false} */
