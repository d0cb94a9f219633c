/* polycu-fuzz seed=3700063 options="--tile-size 2" */
/* mismatch (emulate), open: the final value of k, whose loop runs no iteration in
   the last i (k = MIN(n - 1, i + 1) with unsigned n, down to i): 38 where C leaves 36
   (p = n = m = 37, seed 1).  Older than session 13: commit 14dccdb computes the same. */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

void kernel(unsigned n, unsigned m, int p, double A[p + 6])
{
  int i = (-122), j = (-123), k = (-124), l = (-125);
  float s0 = 1.5f;
#pragma scop
  for (i = 0; i <= p; ++i)
  {
    for (j = 2; j < p; j++)
      for (k = MIN(n - 1, i + 1); k >= i; k -= 1)
        for (l = 0; l < m; l++)
          A[l] += ((double) l);
    A[i] = cbrt(((double) i)) * ((A[i + 2] / (-3)) - 0.1);
    s0 = i - 0.001;
  }
#pragma endscop
  printf("@ i int\n");
  printf("%lld\n", (long long) i);
  printf("@ j int\n");
  printf("%lld\n", (long long) j);
  printf("@ k int\n");
  printf("%lld\n", (long long) k);
  printf("@ l int\n");
  printf("%lld\n", (long long) l);
}

int main(void)
{
  static double A[7];
  for (int i0 = 0; i0 < 7; i0++) A[i0] = (double) ((-6 + 3 * (i0 - 1)) % 41) * 1.0;
  kernel(10u, 3u, 1, A);
  printf("@ A double\n");
  for (int i0 = 0; i0 < 7; i0++) printf("%.17g\n", (double) A[i0]);
  return 0;
}
/* polycu-fuzz-program {"seed":3700063,"params":[{"name":"n","type":"unsigned","value":10},{"name":"m","type":"unsigned","value":3},{"name":"p","type":"int","value":1}],"arrays":[{"name":"A","type":"double","ndim":1,"kind":"vla","init":{"k":-6,"a":[3],"m":41,"scale":1.0},"pad":[3]}],"scalars":[{"name":"s0","type":"float","kind":"local","init":1.5}],"body":[{"k":"for","var":"i","type":"int","lb":["num","int",0],"cond":["cmp","<=",["var","i"],["var","p"]],"step":1,"inc":1,"body":[{"k":"for","var":"j","type":"int","lb":["num","int",2],"cond":["cmp","<",["var","j"],["var","p"]],"step":1,"inc":0,"body":[{"k":"for","var":"k","type":"int","lb":["min",["bin","-",["var","n"],["num","int",1]],["bin","+",["var","i"],["num","int",1]]],"cond":["cmp",">=",["var","k"],["var","i"]],"step":-1,"inc":2,"body":[{"k":"for","var":"l","type":"int","lb":["num","int",0],"cond":["cmp","<",["var","l"],["var","m"]],"step":1,"inc":0,"body":[{"k":"stmt","lhs":["ref","A",[["bin","-",["var","l"],["num","int",1]]]],"op":"+=","rhs":["cast","double",["var","l"]]}]}]}]},{"k":"stmt","lhs":["ref","A",[["bin","-",["var","i"],["num","int",1]]]],"op":"=","rhs":["bin","*",["call","cbrt",[["cast","double",["var","i"]]]],["bin","-",["bin","/",["ref","A",[["bin","+",["var","i"],["num","int",1]]]],["num","int",-3]],["num","double",0.1]]]},{"k":"stmt","lhs":["var","s0"],"op":"=","rhs":["bin","-",["var","i"],["num","double",0.001]]}]}],"options":["--tile-size","2"],"decl_iters":true} */
