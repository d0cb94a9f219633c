"""Autotuning (``polycu tune``): search a SCoP's configurations on the GPU.

space.py (the configurations: schedules, sizes, memory choices, as option values),
evaluate.py (build in worker processes; check against the CPU reference, then
time), search.py (exhaustive, random and local strategies within a budget), run.py
(the command and the library call ``tune_file``).  The winners go to the cache of
``polycu.tuned``, which ``--tuned`` compiles with.
"""
