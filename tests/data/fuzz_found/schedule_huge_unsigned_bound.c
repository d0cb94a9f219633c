/* polycu-fuzz seed=3400052: isl's scheduler ran for minutes (the operation budget never
   reached) on the dependences of an int iterator that starts at unsigned n - 1: the
   domains hold n <= 2147483648.  It now schedules under a representative context
   (schedule/isl_scheduler.py, huge_bounds): about 5 s. */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

void kernel(unsigned n, double *A)
{
  int i = (-122), j = (-123), l = (-125);
  long k = (-124L);
#pragma scop
  for (i = n - 1; i >= 0; i -= 2)
    for (j = 1; j < n; ++j)
    {
      for (k = n - 1; k >= MAX(0, j - 2); k -= 1)
        for (l = MAX(0, k - 2); l < (n - k); l += 1)
        {
          A[l]++;
          A[l] += A[(i + l) + 3];
          A[l] = A[k + 2];
        }
    }
#pragma endscop
  printf("@ i int\n");
  printf("%lld\n", (long long) i);
  printf("@ j int\n");
  printf("%lld\n", (long long) j);
  printf("@ k long\n");
  printf("%lld\n", (long long) k);
  printf("@ l int\n");
  printf("%lld\n", (long long) l);
}

int main(void)
{
  static double A[24];
  for (int i0 = 0; i0 < 24; i0++) A[i0] = (double) ((3 + 3 * (i0 - 1)) % 41) * 1000.0;
  kernel(11u, A);
  printf("@ A double\n");
  for (int i0 = 0; i0 < 24; i0++) printf("%.17g\n", (double) A[i0]);
  return 0;
}
/* polycu-fuzz-program {"seed":3400052,"params":[{"name":"n","type":"unsigned","value":11}],"arrays":[{"name":"A","type":"double","ndim":1,"kind":"pointer","init":{"k":3,"a":[3],"m":41,"scale":1000.0},"pad":[0]}],"scalars":[],"body":[{"k":"for","var":"i","type":"int","lb":["bin","-",["var","n"],["num","int",1]],"cond":["cmp",">=",["var","i"],["num","int",0]],"step":-2,"inc":2,"body":[{"k":"for","var":"j","type":"int","lb":["num","int",1],"cond":["cmp","<",["var","j"],["var","n"]],"step":1,"inc":1,"body":[{"k":"for","var":"k","type":"long","lb":["bin","-",["var","n"],["num","int",1]],"cond":["cmp",">=",["var","k"],["max",["num","int",0],["bin","-",["var","j"],["num","int",2]]]],"step":-1,"inc":2,"body":[{"k":"for","var":"l","type":"int","lb":["max",["num","int",0],["bin","-",["var","k"],["num","int",2]]],"cond":["cmp","<",["var","l"],["bin","-",["var","n"],["var","k"]]],"step":1,"inc":2,"body":[{"k":"stmt","lhs":["ref","A",[["bin","-",["var","l"],["num","int",1]]]],"op":"++","rhs":null},{"k":"stmt","lhs":["ref","A",[["bin","-",["var","l"],["num","int",1]]]],"op":"+=","rhs":["ref","A",[["bin","+",["bin","+",["var","i"],["var","l"]],["num","int",2]]]]},{"k":"stmt","lhs":["ref","A",[["bin","-",["var","l"],["num","int",1]]]],"op":"=","rhs":["ref","A",[["bin","+",["var","k"],["num","int",1]]]]}]}]}]}]}],"options":["--parallel-reductions"],"decl_iters":true} */
