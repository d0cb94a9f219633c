"""Inputs from the program's own initialisation function (``--init init_array``).

In:  the C file, one of its SCoPs, parameter values, and the name of a function of
     the file that fills the SCoP's arrays (PolyBench's ``init_array``).
Out: the SCoP's arrays as numpy arrays filled by that function, so that ``check``
     and ``bench`` can run on the program's real data instead of random values.

The function is usually ``static``, so it is called from inside its own translation
unit: a wrapper file includes the C file (its ``main`` made static and so dropped)
and defines one function with the contract-1 signature (parameters, then the SCoP's arrays as flat
pointers) that calls the initialisation function, matching its arguments to the
SCoP's parameters and arrays by name.  The PolyBench harness (``polybench.c`` next
to ``polybench.h`` in an include directory) is linked, since some initialisations
allocate through it.  It runs in a child process like the CPU reference, so a crash
is a located error.
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
from pycparser import c_ast

from ..diagnostics import Location, error
from ..frontend.parse import parse
from ..frontend.preprocess import preprocess
from ..model import Scop
from .inputs import DEFAULT_PROFILE, random_inputs
from .native import NativeFunction, build_cached
from .signature import Signature

WRAPPER = "polycu_program_init"


def init_parameters(path: str, function: str, defines: Sequence[str],
                    includes: Sequence[str]) -> list[tuple[str, bool]]:
    """(name, is-pointer-or-array) of each parameter of ``function`` in the file."""
    ast = parse(preprocess(path, defines, includes))
    for ext in ast.ext:
        if isinstance(ext, c_ast.FuncDef) and ext.decl.name == function:
            params = ext.decl.type.args.params if ext.decl.type.args else []
            return [(p.name, isinstance(p.type, (c_ast.PtrDecl, c_ast.ArrayDecl)))
                    for p in params if isinstance(p, c_ast.Decl)]
    raise error(f"--init: no function '{function}' is defined in the file", Location(path))


def _call(scop: Scop, function: str, params: list[tuple[str, bool]], path: str) -> str:
    """The call of ``function`` inside the wrapper, each argument chosen by name."""
    arrays = {a.name: a for a in Signature.of(scop).arrays}
    args = []
    for name, pointer in params:
        if name in scop.parameters and not pointer:
            args.append(name)
        elif name in arrays and pointer:
            args.append(f"(void *) polycu_arg_{name}")
        elif name in arrays and arrays[name].is_scalar:
            raise error(f"--init: '{function}' takes '{name}' by value, so it cannot set it",
                        Location(path))
        else:
            raise error(f"--init: parameter '{name}' of '{function}' is not a parameter or "
                        f"an array of {scop.name}", Location(path))
    return f"{function}({', '.join(args)});"


def init_inputs(path: str, scop: Scop, values: Mapping[str, int], function: str, seed: int, *,
                defines: Sequence[str] = (), includes: Sequence[str] = (),
                profile: str = DEFAULT_PROFILE) -> dict[str, np.ndarray]:
    """The SCoP's arrays after ``function`` ran; arrays it does not set keep seeded random
    values (as ``random_inputs`` gives them for ``profile``)."""
    source = Path(path).resolve()
    call = _call(scop, function, init_parameters(path, function, defines, includes), path)
    sig = Signature.of(scop)
    # main becomes an unused static function, which the compiler drops with its calls
    # into a harness that is not linked.
    wrapper = (f'#define main static polycu_original_main\n#include "{source}"\n#undef main\n'
               f"{sig.prototype(WRAPPER)}\n{{\n  {call}\n}}\n")
    harness = [str(Path(i) / "polybench.c") for i in includes
               if (Path(i) / "polybench.c").is_file() and (Path(i) / "polybench.h").is_file()]
    flags = ["gcc", "-O1", "-shared", "-fPIC", "-w", *(f"-D{d}" for d in defines),
             *(f"-I{i}" for i in includes), f"-I{source.parent}", *harness]
    digest = hashlib.sha256(b"".join(Path(f).read_bytes() for f in [source, *harness])
                            ).hexdigest()
    library = build_cached(wrapper, flags, suffix=".so", language="c", location=scop.location,
                           extra_key=digest)
    data = random_inputs(scop, values, seed, profile)
    NativeFunction(library, WRAPPER, sig, f"the initialisation '{function}' of {scop.name}",
                   scop.location)(values, data)
    return data
