// RUN: kiln-opt %s -kiln-merge-entry-wrappers -split-input-file | FileCheck %s

// The entry's body moves into its C wrapper, which takes its passthrough
// attributes; the entry, which nothing else calls, is gone.
// CHECK-NOT: llvm.func @main(
// CHECK-LABEL: llvm.func @_mlir_ciface_main
// CHECK-SAME: (%[[D:.+]]: !llvm.ptr) -> i64 attributes {passthrough = ["noinline", "optnone"]}
// CHECK: %[[S:.+]] = llvm.load %[[D]]
// CHECK: %[[A:.+]] = llvm.extractvalue %[[S]][0]
// CHECK: %[[N:.+]] = llvm.extractvalue %[[S]][1]
// CHECK: %[[R:.+]] = llvm.call @use(%[[A]], %[[N]])
// CHECK-NEXT: llvm.return %[[R]] : i64
llvm.func @use(!llvm.ptr, i64) -> i64
llvm.func @main(%a: !llvm.ptr, %n: i64) -> i64 attributes {passthrough = ["noinline", "optnone"]} {
  %r = llvm.call @use(%a, %n) : (!llvm.ptr, i64) -> i64
  llvm.return %r : i64
}
llvm.func @_mlir_ciface_main(%d: !llvm.ptr) -> i64 {
  %s = llvm.load %d : !llvm.ptr -> !llvm.struct<(ptr, i64)>
  %a = llvm.extractvalue %s[0] : !llvm.struct<(ptr, i64)>
  %n = llvm.extractvalue %s[1] : !llvm.struct<(ptr, i64)>
  %r = llvm.call @main(%a, %n) : (!llvm.ptr, i64) -> i64
  llvm.return %r : i64
}

// -----

// Another caller keeps the entry.
// CHECK-LABEL: llvm.func @main
// CHECK-LABEL: llvm.func @_mlir_ciface_main
// CHECK: llvm.call @main
// CHECK-LABEL: llvm.func @other
// CHECK: llvm.call @main
llvm.func @main(%n: i64) {
  llvm.return
}
llvm.func @_mlir_ciface_main(%n: i64) {
  llvm.call @main(%n) : (i64) -> ()
  llvm.return
}
llvm.func @other(%n: i64) {
  llvm.call @main(%n) : (i64) -> ()
  llvm.return
}

// -----

// So does an entry of several blocks.
// CHECK-LABEL: llvm.func @main
// CHECK-LABEL: llvm.func @_mlir_ciface_main
// CHECK: llvm.call @main
llvm.func @main(%n: i64) {
  llvm.br ^bb1
^bb1:
  llvm.return
}
llvm.func @_mlir_ciface_main(%n: i64) {
  llvm.call @main(%n) : (i64) -> ()
  llvm.return
}
