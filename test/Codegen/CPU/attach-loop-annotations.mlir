// RUN: kiln-opt %s -kiln-attach-loop-annotations | FileCheck %s

// The discardable attribute that -convert-cf-to-llvm leaves on a back edge
// becomes the branch's own loop annotation, which the translation reads.
// Its parallel access group tags the loads and stores of the loop (header
// and body), and of nothing else.
// CHECK: #[[GROUP:.+]] = #llvm.access_group<id = distinct[0]<>>
// CHECK: #[[ANNOTATION:.+]] = #llvm.loop_annotation<vectorize = #{{.+}}, parallelAccesses = #[[GROUP]]>
// CHECK-LABEL: llvm.func @loop
// CHECK: llvm.load %{{.+}} : !llvm.ptr -> f32
// CHECK-NOT: access_groups
// CHECK: ^bb1(
// CHECK: llvm.load %{{.+}} {access_groups = [#[[GROUP]]]} : !llvm.ptr -> f32
// CHECK: ^bb2:
// CHECK: llvm.store %{{.+}}, %{{.+}} {access_groups = [#[[GROUP]]]} : f32, !llvm.ptr
// CHECK: llvm.br ^bb1(%{{.+}} : i64) {loop_annotation = #[[ANNOTATION]]}
// CHECK: ^bb3:
// CHECK-NEXT: llvm.store %{{.+}}, %{{.+}} : f32, !llvm.ptr
// CHECK-NOT: llvm.loop_annotation
#vectorize = #llvm.loop_vectorize<disable = false, width = 8 : i32>
#group = #llvm.access_group<id = distinct[0]<>>
#annotation = #llvm.loop_annotation<vectorize = #vectorize, parallelAccesses = #group>
llvm.func @loop(%n: i64, %p: !llvm.ptr, %q: !llvm.ptr) {
  %c0 = llvm.mlir.constant(0 : i64) : i64
  %c1 = llvm.mlir.constant(1 : i64) : i64
  %before = llvm.load %p : !llvm.ptr -> f32
  llvm.br ^bb1(%c0 : i64)
^bb1(%i: i64):
  %x = llvm.load %p : !llvm.ptr -> f32
  %done = llvm.icmp "sge" %i, %n : i64
  llvm.cond_br %done, ^bb3, ^bb2
^bb2:
  llvm.store %x, %q : f32, !llvm.ptr
  %next = llvm.add %i, %c1 : i64
  llvm.br ^bb1(%next : i64) {llvm.loop_annotation = #annotation}
^bb3:
  llvm.store %before, %q : f32, !llvm.ptr
  llvm.return
}
