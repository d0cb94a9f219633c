/* polycu-fuzz seed=5606810 options="" */
/* crash (build): a kernel of five threads (latency-bound) with a shared tile (s0, for C)
   and strips staged for each thread (codegen/staging.py, session 32) named its first
   buffer s0 too: "redefinition of polycu_shared_s0".  The buffers are now named after
   the tiles (s1 here).  Minimised by scripts/fuzz.py --minimise. */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

static double min[5];

void kernel(int warpSize, int *C, double D[warpSize + 1][warpSize + 1])
{
  int and = (-324), j = (-123);
  unsigned k = 4294967172u;
#pragma scop
  for (and = 0; and <= 3; ++and)
    for (j = 1; j <= warpSize; ++j)
      for (k = 0; k <= 4; ++k)
      {
        min[k] = C[k];
        min[k] = D[1][(j - 3u) + 3u];
      }
#pragma endscop
  printf("@ and int\n");
  printf("%lld\n", (long long) and);
  printf("@ j int\n");
  printf("%lld\n", (long long) j);
  printf("@ k unsigned\n");
  printf("%llu\n", (unsigned long long) k);
}

int main(void)
{
  static int C[5];
  static double D[2][2];
  for (int i0 = 0; i0 < 5; i0++) min[i0] = (double) ((-3 + 7 * i0) % 61) * 0.001;
  for (int i0 = 0; i0 < 5; i0++) C[i0] = (int) ((-19 + -5 * i0) % 41) * 3;
  for (int i0 = 0; i0 < 2; i0++) for (int i1 = 0; i1 < 2; i1++) D[i0][i1] = (double) ((-15 + 7 * i0 + -5 * i1) % 7) * 1000.0;
  kernel(1, C, D);
  printf("@ min double\n");
  for (int i0 = 0; i0 < 5; i0++) printf("%.17g\n", (double) min[i0]);
  printf("@ C int\n");
  for (int i0 = 0; i0 < 5; i0++) printf("%lld\n", (long long) C[i0]);
  printf("@ D double\n");
  for (int i0 = 0; i0 < 2; i0++) for (int i1 = 0; i1 < 2; i1++) printf("%.17g\n", (double) D[i0][i1]);
  return 0;
}
/* polycu-fuzz-program {"seed":5606810,"params":[{"name":"warpSize","type":"int","value":1}],"arrays":[{"name":"min","type":"double","ndim":1,"kind":"global","init":{"k":-3,"a":[7],"m":61,"scale":0.001},"pad":[0]},{"name":"C","type":"int","ndim":1,"kind":"pointer","init":{"k":-19,"a":[-5],"m":41,"scale":3},"pad":[0]},{"name":"D","type":"double","ndim":2,"kind":"vla","init":{"k":-15,"a":[7,-5],"m":7,"scale":1000.0},"pad":[0,0]}],"scalars":[],"body":[{"k":"for","var":"and","type":"int","lb":["num","int",0],"cond":["cmp","<=",["var","and"],["num","int",3]],"step":1,"inc":1,"body":[{"k":"for","var":"j","type":"int","lb":["num","int",1],"cond":["cmp","<=",["var","j"],["var","warpSize"]],"step":1,"inc":1,"body":[{"k":"for","var":"k","type":"unsigned","lb":["num","int",0],"cond":["cmp","<=",["var","k"],["num","int",4]],"step":1,"inc":1,"body":[{"k":"stmt","lhs":["ref","min",[["var","k"]]],"op":"=","rhs":["ref","C",[["var","k"]]]},{"k":"stmt","lhs":["ref","min",[["var","k"]]],"op":"=","rhs":["ref","D",[["num","int",1],["var","j"]]]}]}]}]}],"options":[],"decl_iters":true} */
