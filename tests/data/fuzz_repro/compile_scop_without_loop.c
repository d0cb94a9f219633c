/* polycu-fuzz seed=10 options="" */
/* crash: a SCoP without any loop (`if (0) A[0] = 1;`): IndexError in codegen/host.py:_footprint_rows
   (seed 10, fuzz run A); fixed in the working tree of run B */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

void kernel(double *A)
{
#pragma scop
  if (0)
    A[0] = 1;
#pragma endscop
}

int main(void)
{
  static double A[1];
  for (int i0 = 0; i0 < 1; i0++) A[i0] = (double) ((-10 + 3 * i0) % 23) * 1000.0;
  kernel(A);
  printf("@ A double\n");
  for (int i0 = 0; i0 < 1; i0++) printf("%.17g\n", (double) A[i0]);
  return 0;
}
/* polycu-fuzz-program {"seed":10,"params":[],"arrays":[{"name":"A","type":"double","ndim":1,"kind":"pointer","init":{"k":-10,"a":[3],"m":23,"scale":1000.0},"pad":[0]}],"scalars":[],"body":[{"k":"if","cond":["num","int",0],"then":[{"k":"stmt","lhs":["ref","A",[["num","int",0]]],"op":"=","rhs":["num","int",1]}],"else":null}],"options":[],"decl_iters":true} */
