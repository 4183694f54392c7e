// RUN: kiln-opt %s -kiln-attach-loop-annotations | FileCheck %s

// The discardable attribute that -convert-cf-to-llvm leaves on a back edge
// becomes the branch's own loop annotation, which the translation reads.
// CHECK: #[[VECTORIZE:.+]] = #llvm.loop_vectorize<disable = false, width = 8 : i32>
// CHECK: #[[ANNOTATION:.+]] = #llvm.loop_annotation<vectorize = #[[VECTORIZE]]>
// CHECK-LABEL: llvm.func @loop
// CHECK: llvm.br ^bb1(%{{.+}} : i64) {loop_annotation = #[[ANNOTATION]]}
// CHECK-NOT: llvm.loop_annotation
#vectorize = #llvm.loop_vectorize<disable = false, width = 8 : i32>
#annotation = #llvm.loop_annotation<vectorize = #vectorize>
llvm.func @loop(%n: i64) {
  %c0 = llvm.mlir.constant(0 : i64) : i64
  %c1 = llvm.mlir.constant(1 : i64) : i64
  llvm.br ^bb1(%c0 : i64)
^bb1(%i: i64):
  %done = llvm.icmp "sge" %i, %n : i64
  llvm.cond_br %done, ^bb3, ^bb2
^bb2:
  %next = llvm.add %i, %c1 : i64
  llvm.br ^bb1(%next : i64) {llvm.loop_annotation = #annotation}
^bb3:
  llvm.return
}
