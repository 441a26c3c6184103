"""C++ output: ``emit-cpp`` prints PTO-ISA kernels (:mod:`.cpp`, names in :mod:`.names`, the
on-chip address plan in :mod:`.plan`); :mod:`.harness` compiles and runs them on the library's CPU
simulator for ``tilesched run-cpp``."""
