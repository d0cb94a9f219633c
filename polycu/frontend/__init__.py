"""C frontend: a C file in, the list of its SCoPs (``polycu.model.Scop``) out.

The modules in order, each importing only modules listed before it:

- ``preprocess.py``: cpp with polycu's own libc headers (``polycu/fakelibc``);
  ``parse.py``: pycparser, with located syntax errors.
- ``syntax.py``: small questions about the AST; ``ctype.py``: C's arithmetic
  types and conversions; ``enums.py``: enumeration constants as the integers they
  are, enumerated types as gcc's integer types; ``typenames.py``: typedef names of
  arithmetic types written out (declarations, casts, ``sizeof``); ``affine.py``: C expressions to isl with C's
  semantics; ``calls.py``: library calls with C's argument conversions written out.
- ``sizes.py``: each ``sizeof`` the declarations fix written as the number gcc
  computes (in the kernels arrays are flat pointers, and C++ types ``'a'`` and
  ``i == j`` otherwise).  ``tables.py``: the constant-subscripted elements of ``const``
  tables with initializers written as their values.  ``switches.py``: a ``switch`` whose
  cases end in ``break`` written as its ``if`` chain.  ``continues.py``: guard
  clauses ``if (c) continue;`` as an ``if`` around the rest of the loop body.
  ``classify.py``: ``isnan``, ``isinf``, ``isgreater``, ... written as expressions
  with glibc's values.  ``loop_forms.py``: loops with companion counters (``for (i =
  0, j = n - 1; i < j; i++, j--)``) or post-decrement tests (``for (i = n; i-- >
  0;)``) written as counted loops.
- ``symbols.py``: what each name is declared as; ``regions.py``: where the
  SCoPs are (``#pragma scop`` or found automatically); ``liveness.py``: what the
  code around a SCoP does with its variables.
- ``reductions.py``, ``conditions.py`` (an ``if`` on values read: one
  statement with may-writes), ``members.py`` (structure members: one array per
  field), ``accesses.py``, ``final_values.py`` (the values loop counters read
  after the SCoP keep), ``loop_accesses.py`` and ``loops.py`` (a loop isl cannot
  describe: one statement, its accesses over-approximated) and ``builder.py``: statements,
  their accesses, domains and the schedule; ``inline_body.py`` and ``inline.py``: calls
  of the file's functions replaced by their bodies before the statements are
  built; ``struct_fields.py``: the fields of a structure with pointer fields
  bound to names of their own (``M->data``, ``M->rows``); ``pointer_forms.py``
  (where a pointer expression points) and ``pointers.py``: references through
  pointers (``*(p + i)``, local ``double *row = A + i * n``) made subscripts of the
  array pointed into; ``delinearise.py``: flat arrays subscripted ``A[i * n + j]``
  read as rows ``A[i][j]``; these four after inlining, in this order, and before the
  statements are built; ``scop.py``: the steps in order, and the ``Scop`` with its
  arrays and parameter context.
- ``spelling.py``: the user's names that isl, C++ or CUDA reserve (``new``,
  ``max``, ``threadIdx``) renamed in the whole unit, the user's names kept for the
  host program and diagnostics.
- ``load.py``: the whole frontend in one call (enums, type names, sizes, tables,
  switches, continues, classification macros, loop forms and spellings are rewrites
  of the AST before the SCoPs are extracted).
"""
