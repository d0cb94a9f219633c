/* polycu-fuzz seed=138 options="" */
/* mismatch in the CPU emulation: polycu emits `for (int c0 = -n; c0 <= 0; c0 += 1) C[(-c0)] = C[(-c0) + (-c0)];`
   and g++/gcc 12.2 at -O1 (ivopts, then ipa-pure-const) drop the call of the
   function holding that loop: C[1] keeps -11 instead of -16 (a GCC bug; the original loop is fine) */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

static int C[4];

void kernel(int n)
{
#pragma scop
  for (int i = n; i > (-1); --i)
    C[i] = C[i + i];
#pragma endscop
}

int main(void)
{
  for (int i0 = 0; i0 < 4; i0++) C[i0] = (int) ((-6 + -5 * i0) % 23) * 1;
  kernel(1);
  printf("@ C int\n");
  for (int i0 = 0; i0 < 4; i0++) printf("%lld\n", (long long) C[i0]);
  return 0;
}
/* polycu-fuzz-program {"seed":138,"params":[{"name":"n","type":"int","value":1}],"arrays":[{"name":"C","type":"int","ndim":1,"kind":"global","init":{"k":-6,"a":[-5],"m":23,"scale":1},"pad":[1]}],"scalars":[],"body":[{"k":"for","var":"i","type":"int","lb":["var","n"],"cond":["cmp",">",["var","i"],["num","int",-1]],"step":-1,"inc":1,"body":[{"k":"stmt","lhs":["ref","C",[["var","i"]]],"op":"=","rhs":["ref","C",[["bin","+",["var","i"],["var","i"]]]]}],"offset":0}],"options":[],"decl_iters":false} */
