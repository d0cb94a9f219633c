"""The child process of ``NativeFunction`` calls (run as a script, never imported).

    python -I -S native_child.py SPEC_JSON

SPEC: the shared library, the symbol, the parameters (ctypes type name and value,
``["c_uint64", 4294967296]``), and the files that hold each array (mapped shared,
so the parent sees what the call wrote) and the 8-byte status cell.  Only the
standard library is used, so the child starts in a few milliseconds; a crash or a
hang ends only this process.
"""
import ctypes
import json
import mmap
import os
import sys


def main() -> None:
    spec = json.loads(sys.argv[1])
    maps = []
    for path, size in spec["arrays"]:
        fd = os.open(path, os.O_RDWR)
        try:
            maps.append(mmap.mmap(fd, max(size, 1)))
        finally:
            os.close(fd)
    lib = ctypes.CDLL(spec["library"])
    entry = getattr(lib, spec["symbol"])
    entry.restype = None
    entry.argtypes = ([getattr(ctypes, kind) for kind, _ in spec["params"]]
                      + [ctypes.c_void_p] * len(maps))
    pointers = [ctypes.addressof(ctypes.c_char.from_buffer(m)) for m in maps]
    entry(*(value for _, value in spec["params"]), *pointers)
    probe = getattr(lib, "polycu_emu_live_allocations", None)
    if probe is not None:
        probe.restype = ctypes.c_long
        with open(spec["status"], "r+b") as status:
            status.write(int(probe()).to_bytes(8, "little", signed=True))
    ctypes.CDLL(None).fflush(None)
    for m in maps:
        m.flush()
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
