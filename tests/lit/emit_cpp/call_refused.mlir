// Calls emit-cpp refuses, located at the call (exit 2, nothing written): recursion (a device
// function's on-chip buffers have one fixed address, a frame per function and not a stack; the
// passes and the simulator accept it, the simulator inlining up to 64 nested calls), and a call
// to a function without a body (the simulator refuses it too, at the same call).
// RUN: rm -f %t.cpp
// RUN: not %tilesched opt %S/Inputs/recursion.mlir -p insert-sync,emit-cpp -o %t.cpp 2>&1 | %filecheck %s --check-prefix=REC
// RUN: not test -e %t.cpp
// RUN: not %tilesched opt %S/Inputs/no_body.mlir -p emit-cpp 2>&1 | %filecheck %s --check-prefix=BODY
// RUN: not %tilesched sim %S/Inputs/no_body.mlir 2>&1 | %filecheck %s --check-prefix=SIM
// REC-NOT: Traceback
// REC: recursion.mlir:16:5: error: emit-cpp cannot print 'func.call': recursion (@down -> @down): a device function's on-chip buffers have one fixed address
// BODY: no_body.mlir:5:3: error: emit-cpp cannot print 'func.call': the module defines no body for @ext
// SIM: no_body.mlir:5:3: error: func.call @ext: the module defines no body for @ext
