// Second derivatives of every VJP rule, in f64: @f_OP, its gradient
// @d1_OP(args..., ct) = kiln.vjp @f_OP w.r.t. every float argument, and
// @d2_OP(args..., ct, v...) = kiln.vjp @d1_OP w.r.t. the arguments and ct.
// The derivative w.r.t. the arguments is a Hessian-vector product (it
// differentiates the derivative ops each rule emits: cmp/select/convert masks,
// the pow rule's pow and log, ...); the one w.r.t. ct applies the transpose of
// each adjoint rule (the adjoint of a broadcast's reduce_sum, of a slice's
// insertion, of a concat's slices, ...). Shape ops are wrapped in sin/tanh/
// squares so that both are non-trivial. Checked against the reference
// interpreter's finite differences of finite differences: --rtol 1e-4
// --atol 2e-5 (their noise is 1e-6 to 1e-5 absolute; see second_order.mlir).
// Domains as in rules_f64.mlir.

// RUN: kiln-run %s --entry d2_neg --random-inputs 701 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=SO_NEG
// RUN: kiln-run %s --entry d2_exp --random-inputs 702 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=SO_EXP
// RUN: kiln-run %s --entry d2_log --random-inputs 703 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=SO_LOG
// RUN: kiln-run %s --entry d2_tanh --random-inputs 704 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=SO_TANH
// RUN: kiln-run %s --entry d2_sigmoid --random-inputs 705 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=SO_SIGMOID
// RUN: kiln-run %s --entry d2_relu --random-inputs 706 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=SO_RELU
// RUN: kiln-run %s --entry d2_sqrt --random-inputs 707 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=SO_SQRT
// RUN: kiln-run %s --entry d2_rsqrt --random-inputs 708 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=SO_RSQRT
// RUN: kiln-run %s --entry d2_abs --random-inputs 709 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=SO_ABS
// RUN: kiln-run %s --entry d2_sin --random-inputs 710 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=SO_SIN
// RUN: kiln-run %s --entry d2_cos --random-inputs 711 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=SO_COS
// RUN: kiln-run %s --entry d2_reciprocal --random-inputs 712 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=SO_RECIPROCAL
// RUN: kiln-run %s --entry d2_add --random-inputs 713 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=SO_ADD
// RUN: kiln-run %s --entry d2_sub --random-inputs 714 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=SO_SUB
// RUN: kiln-run %s --entry d2_mul --random-inputs 715 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=SO_MUL
// RUN: kiln-run %s --entry d2_div --random-inputs 716 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=SO_DIV
// RUN: kiln-run %s --entry d2_max --random-inputs 717 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=SO_MAX
// RUN: kiln-run %s --entry d2_min --random-inputs 718 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=SO_MIN
// RUN: kiln-run %s --entry d2_pow --random-inputs 719 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=SO_POW
// RUN: kiln-run %s --entry d2_select --random-inputs 720 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=SO_SELECT
// RUN: kiln-run %s --entry d2_convert --random-inputs 721 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=SO_CONVERT
// RUN: kiln-run %s --entry d2_broadcast --random-inputs 722 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=SO_BROADCAST
// RUN: kiln-run %s --entry d2_reduce_sum --random-inputs 723 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=SO_REDUCE_SUM
// RUN: kiln-run %s --entry d2_reduce_max --random-inputs 724 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=SO_REDUCE_MAX
// RUN: kiln-run %s --entry d2_reshape --random-inputs 725 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=SO_RESHAPE
// RUN: kiln-run %s --entry d2_transpose --random-inputs 726 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=SO_TRANSPOSE
// RUN: kiln-run %s --entry d2_slice --random-inputs 727 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=SO_SLICE
// RUN: kiln-run %s --entry d2_chunk --random-inputs 728 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=SO_CHUNK
// RUN: kiln-run %s --entry d2_concat --random-inputs 729 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=SO_CONCAT
// RUN: kiln-run %s --entry d2_matmul_nn --random-inputs 730 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=SO_MATMUL_NN
// RUN: kiln-run %s --entry d2_matmul_tt --random-inputs 731 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=SO_MATMUL_TT
// RUN: kiln-run %s --entry d2_matmul_batched --random-inputs 732 --check-reference --rtol 1e-4 --atol 2e-5 | FileCheck %s --check-prefix=SO_MATMUL_BATCHED

func.func @f_neg(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %y = kiln.neg %x : tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
func.func @d1_neg(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_neg(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}
// SO_NEG:      reference: out0 tensor<3x4xf64> matches
// SO_NEG-NEXT: reference: out1 tensor<3x4xf64> matches
// SO_NEG-NOT:  matches
func.func @d2_neg(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>, %vx: tensor<3x4xf64>)
    -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %h:2 = kiln.vjp @d1_neg(%x, %ct, %vx) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %h#0, %h#1 : tensor<3x4xf64>, tensor<3x4xf64>
}

func.func @f_exp(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %y = kiln.exp %x : tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
func.func @d1_exp(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_exp(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}
// SO_EXP:      reference: out0 tensor<3x4xf64> matches
// SO_EXP-NEXT: reference: out1 tensor<3x4xf64> matches
// SO_EXP-NOT:  matches
func.func @d2_exp(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>, %vx: tensor<3x4xf64>)
    -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %h:2 = kiln.vjp @d1_exp(%x, %ct, %vx) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %h#0, %h#1 : tensor<3x4xf64>, tensor<3x4xf64>
}

func.func @f_log(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %c = kiln.constant dense<1.5> : tensor<3x4xf64>
  %d = kiln.add %x, %c : tensor<3x4xf64>
  %y = kiln.log %d : tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
func.func @d1_log(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_log(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}
// SO_LOG:      reference: out0 tensor<3x4xf64> matches
// SO_LOG-NEXT: reference: out1 tensor<3x4xf64> matches
// SO_LOG-NOT:  matches
func.func @d2_log(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>, %vx: tensor<3x4xf64>)
    -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %h:2 = kiln.vjp @d1_log(%x, %ct, %vx) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %h#0, %h#1 : tensor<3x4xf64>, tensor<3x4xf64>
}

func.func @f_tanh(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %y = kiln.tanh %x : tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
func.func @d1_tanh(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_tanh(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}
// SO_TANH:      reference: out0 tensor<3x4xf64> matches
// SO_TANH-NEXT: reference: out1 tensor<3x4xf64> matches
// SO_TANH-NOT:  matches
func.func @d2_tanh(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>, %vx: tensor<3x4xf64>)
    -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %h:2 = kiln.vjp @d1_tanh(%x, %ct, %vx) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %h#0, %h#1 : tensor<3x4xf64>, tensor<3x4xf64>
}

func.func @f_sigmoid(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %y = kiln.sigmoid %x : tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
func.func @d1_sigmoid(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_sigmoid(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}
// SO_SIGMOID:      reference: out0 tensor<3x4xf64> matches
// SO_SIGMOID-NEXT: reference: out1 tensor<3x4xf64> matches
// SO_SIGMOID-NOT:  matches
func.func @d2_sigmoid(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>, %vx: tensor<3x4xf64>)
    -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %h:2 = kiln.vjp @d1_sigmoid(%x, %ct, %vx) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %h#0, %h#1 : tensor<3x4xf64>, tensor<3x4xf64>
}

func.func @f_relu(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %y = kiln.relu %x : tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
func.func @d1_relu(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_relu(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}
// SO_RELU:      reference: out0 tensor<3x4xf64> matches
// SO_RELU-NEXT: reference: out1 tensor<3x4xf64> matches
// SO_RELU-NOT:  matches
func.func @d2_relu(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>, %vx: tensor<3x4xf64>)
    -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %h:2 = kiln.vjp @d1_relu(%x, %ct, %vx) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %h#0, %h#1 : tensor<3x4xf64>, tensor<3x4xf64>
}

func.func @f_sqrt(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %c = kiln.constant dense<1.5> : tensor<3x4xf64>
  %d = kiln.add %x, %c : tensor<3x4xf64>
  %y = kiln.sqrt %d : tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
func.func @d1_sqrt(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_sqrt(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}
// SO_SQRT:      reference: out0 tensor<3x4xf64> matches
// SO_SQRT-NEXT: reference: out1 tensor<3x4xf64> matches
// SO_SQRT-NOT:  matches
func.func @d2_sqrt(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>, %vx: tensor<3x4xf64>)
    -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %h:2 = kiln.vjp @d1_sqrt(%x, %ct, %vx) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %h#0, %h#1 : tensor<3x4xf64>, tensor<3x4xf64>
}

func.func @f_rsqrt(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %c = kiln.constant dense<1.5> : tensor<3x4xf64>
  %d = kiln.add %x, %c : tensor<3x4xf64>
  %y = kiln.rsqrt %d : tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
func.func @d1_rsqrt(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_rsqrt(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}
// SO_RSQRT:      reference: out0 tensor<3x4xf64> matches
// SO_RSQRT-NEXT: reference: out1 tensor<3x4xf64> matches
// SO_RSQRT-NOT:  matches
func.func @d2_rsqrt(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>, %vx: tensor<3x4xf64>)
    -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %h:2 = kiln.vjp @d1_rsqrt(%x, %ct, %vx) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %h#0, %h#1 : tensor<3x4xf64>, tensor<3x4xf64>
}

func.func @f_abs(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %y = kiln.abs %x : tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
func.func @d1_abs(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_abs(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}
// SO_ABS:      reference: out0 tensor<3x4xf64> matches
// SO_ABS-NEXT: reference: out1 tensor<3x4xf64> matches
// SO_ABS-NOT:  matches
func.func @d2_abs(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>, %vx: tensor<3x4xf64>)
    -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %h:2 = kiln.vjp @d1_abs(%x, %ct, %vx) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %h#0, %h#1 : tensor<3x4xf64>, tensor<3x4xf64>
}

func.func @f_sin(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %y = kiln.sin %x : tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
func.func @d1_sin(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_sin(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}
// SO_SIN:      reference: out0 tensor<3x4xf64> matches
// SO_SIN-NEXT: reference: out1 tensor<3x4xf64> matches
// SO_SIN-NOT:  matches
func.func @d2_sin(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>, %vx: tensor<3x4xf64>)
    -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %h:2 = kiln.vjp @d1_sin(%x, %ct, %vx) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %h#0, %h#1 : tensor<3x4xf64>, tensor<3x4xf64>
}

func.func @f_cos(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %y = kiln.cos %x : tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
func.func @d1_cos(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_cos(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}
// SO_COS:      reference: out0 tensor<3x4xf64> matches
// SO_COS-NEXT: reference: out1 tensor<3x4xf64> matches
// SO_COS-NOT:  matches
func.func @d2_cos(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>, %vx: tensor<3x4xf64>)
    -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %h:2 = kiln.vjp @d1_cos(%x, %ct, %vx) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %h#0, %h#1 : tensor<3x4xf64>, tensor<3x4xf64>
}

func.func @f_reciprocal(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %c = kiln.constant dense<-2.0> : tensor<3x4xf64>
  %d = kiln.add %x, %c : tensor<3x4xf64>
  %y = kiln.reciprocal %d : tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
func.func @d1_reciprocal(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_reciprocal(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}
// SO_RECIPROCAL:      reference: out0 tensor<3x4xf64> matches
// SO_RECIPROCAL-NEXT: reference: out1 tensor<3x4xf64> matches
// SO_RECIPROCAL-NOT:  matches
func.func @d2_reciprocal(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>, %vx: tensor<3x4xf64>)
    -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %h:2 = kiln.vjp @d1_reciprocal(%x, %ct, %vx) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %h#0, %h#1 : tensor<3x4xf64>, tensor<3x4xf64>
}

func.func @f_add(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %z = kiln.add %x, %y : tensor<3x4xf64>
  return %z : tensor<3x4xf64>
}
func.func @d1_add(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %g:2 = kiln.vjp @f_add(%x, %y, %ct) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %g#0, %g#1 : tensor<3x4xf64>, tensor<3x4xf64>
}
// SO_ADD:      reference: out0 tensor<3x4xf64> matches
// SO_ADD-NEXT: reference: out1 tensor<3x4xf64> matches
// SO_ADD-NEXT: reference: out2 tensor<3x4xf64> matches
// SO_ADD-NOT:  matches
func.func @d2_add(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>, %ct: tensor<3x4xf64>, %vx: tensor<3x4xf64>, %vy: tensor<3x4xf64>)
    -> (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) {
  %h:3 = kiln.vjp @d1_add(%x, %y, %ct, %vx, %vy) wrt [0, 1, 2] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>)
  return %h#0, %h#1, %h#2 : tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>
}

func.func @f_sub(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %z = kiln.sub %x, %y : tensor<3x4xf64>
  return %z : tensor<3x4xf64>
}
func.func @d1_sub(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %g:2 = kiln.vjp @f_sub(%x, %y, %ct) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %g#0, %g#1 : tensor<3x4xf64>, tensor<3x4xf64>
}
// SO_SUB:      reference: out0 tensor<3x4xf64> matches
// SO_SUB-NEXT: reference: out1 tensor<3x4xf64> matches
// SO_SUB-NEXT: reference: out2 tensor<3x4xf64> matches
// SO_SUB-NOT:  matches
func.func @d2_sub(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>, %ct: tensor<3x4xf64>, %vx: tensor<3x4xf64>, %vy: tensor<3x4xf64>)
    -> (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) {
  %h:3 = kiln.vjp @d1_sub(%x, %y, %ct, %vx, %vy) wrt [0, 1, 2] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>)
  return %h#0, %h#1, %h#2 : tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>
}

func.func @f_mul(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %z = kiln.mul %x, %y : tensor<3x4xf64>
  return %z : tensor<3x4xf64>
}
func.func @d1_mul(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %g:2 = kiln.vjp @f_mul(%x, %y, %ct) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %g#0, %g#1 : tensor<3x4xf64>, tensor<3x4xf64>
}
// SO_MUL:      reference: out0 tensor<3x4xf64> matches
// SO_MUL-NEXT: reference: out1 tensor<3x4xf64> matches
// SO_MUL-NEXT: reference: out2 tensor<3x4xf64> matches
// SO_MUL-NOT:  matches
func.func @d2_mul(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>, %ct: tensor<3x4xf64>, %vx: tensor<3x4xf64>, %vy: tensor<3x4xf64>)
    -> (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) {
  %h:3 = kiln.vjp @d1_mul(%x, %y, %ct, %vx, %vy) wrt [0, 1, 2] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>)
  return %h#0, %h#1, %h#2 : tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>
}

func.func @f_div(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %c2 = kiln.constant dense<2.0> : tensor<3x4xf64>
  %d = kiln.add %y, %c2 : tensor<3x4xf64>
  %z = kiln.div %x, %d : tensor<3x4xf64>
  return %z : tensor<3x4xf64>
}
func.func @d1_div(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %g:2 = kiln.vjp @f_div(%x, %y, %ct) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %g#0, %g#1 : tensor<3x4xf64>, tensor<3x4xf64>
}
// SO_DIV:      reference: out0 tensor<3x4xf64> matches
// SO_DIV-NEXT: reference: out1 tensor<3x4xf64> matches
// SO_DIV-NEXT: reference: out2 tensor<3x4xf64> matches
// SO_DIV-NOT:  matches
func.func @d2_div(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>, %ct: tensor<3x4xf64>, %vx: tensor<3x4xf64>, %vy: tensor<3x4xf64>)
    -> (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) {
  %h:3 = kiln.vjp @d1_div(%x, %y, %ct, %vx, %vy) wrt [0, 1, 2] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>)
  return %h#0, %h#1, %h#2 : tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>
}

func.func @f_max(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %z = kiln.max %x, %y : tensor<3x4xf64>
  return %z : tensor<3x4xf64>
}
func.func @d1_max(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %g:2 = kiln.vjp @f_max(%x, %y, %ct) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %g#0, %g#1 : tensor<3x4xf64>, tensor<3x4xf64>
}
// SO_MAX:      reference: out0 tensor<3x4xf64> matches
// SO_MAX-NEXT: reference: out1 tensor<3x4xf64> matches
// SO_MAX-NEXT: reference: out2 tensor<3x4xf64> matches
// SO_MAX-NOT:  matches
func.func @d2_max(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>, %ct: tensor<3x4xf64>, %vx: tensor<3x4xf64>, %vy: tensor<3x4xf64>)
    -> (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) {
  %h:3 = kiln.vjp @d1_max(%x, %y, %ct, %vx, %vy) wrt [0, 1, 2] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>)
  return %h#0, %h#1, %h#2 : tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>
}

func.func @f_min(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %z = kiln.min %x, %y : tensor<3x4xf64>
  return %z : tensor<3x4xf64>
}
func.func @d1_min(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %g:2 = kiln.vjp @f_min(%x, %y, %ct) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %g#0, %g#1 : tensor<3x4xf64>, tensor<3x4xf64>
}
// SO_MIN:      reference: out0 tensor<3x4xf64> matches
// SO_MIN-NEXT: reference: out1 tensor<3x4xf64> matches
// SO_MIN-NEXT: reference: out2 tensor<3x4xf64> matches
// SO_MIN-NOT:  matches
func.func @d2_min(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>, %ct: tensor<3x4xf64>, %vx: tensor<3x4xf64>, %vy: tensor<3x4xf64>)
    -> (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) {
  %h:3 = kiln.vjp @d1_min(%x, %y, %ct, %vx, %vy) wrt [0, 1, 2] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>)
  return %h#0, %h#1, %h#2 : tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>
}

func.func @f_pow(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %c05 = kiln.constant dense<0.5> : tensor<3x4xf64>
  %c3 = kiln.constant dense<3.0> : tensor<3x4xf64>
  %ax = kiln.abs %x : tensor<3x4xf64>
  %base = kiln.add %ax, %c05 : tensor<3x4xf64>
  %expo = kiln.mul %y, %c3 : tensor<3x4xf64>
  %z = kiln.pow %base, %expo : tensor<3x4xf64>
  return %z : tensor<3x4xf64>
}
func.func @d1_pow(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %g:2 = kiln.vjp @f_pow(%x, %y, %ct) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %g#0, %g#1 : tensor<3x4xf64>, tensor<3x4xf64>
}
// SO_POW:      reference: out0 tensor<3x4xf64> matches
// SO_POW-NEXT: reference: out1 tensor<3x4xf64> matches
// SO_POW-NEXT: reference: out2 tensor<3x4xf64> matches
// SO_POW-NOT:  matches
func.func @d2_pow(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>, %ct: tensor<3x4xf64>, %vx: tensor<3x4xf64>, %vy: tensor<3x4xf64>)
    -> (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) {
  %h:3 = kiln.vjp @d1_pow(%x, %y, %ct, %vx, %vy) wrt [0, 1, 2] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>)
  return %h#0, %h#1, %h#2 : tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>
}

func.func @f_select(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %p = kiln.cmp gt, %x, %y : tensor<3x4xf64>
  %xy = kiln.mul %x, %y : tensor<3x4xf64>
  %sy = kiln.sin %y : tensor<3x4xf64>
  %z = kiln.select %p, %xy, %sy : tensor<3x4xi1>, tensor<3x4xf64>
  return %z : tensor<3x4xf64>
}
func.func @d1_select(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %g:2 = kiln.vjp @f_select(%x, %y, %ct) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %g#0, %g#1 : tensor<3x4xf64>, tensor<3x4xf64>
}
// SO_SELECT:      reference: out0 tensor<3x4xf64> matches
// SO_SELECT-NEXT: reference: out1 tensor<3x4xf64> matches
// SO_SELECT-NEXT: reference: out2 tensor<3x4xf64> matches
// SO_SELECT-NOT:  matches
func.func @d2_select(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>, %ct: tensor<3x4xf64>, %vx: tensor<3x4xf64>, %vy: tensor<3x4xf64>)
    -> (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) {
  %h:3 = kiln.vjp @d1_select(%x, %y, %ct, %vx, %vy) wrt [0, 1, 2] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>)
  return %h#0, %h#1, %h#2 : tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>
}

func.func @f_convert(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %s = kiln.convert %x : tensor<3x4xf64> -> tensor<3x4xf32>
  %t = kiln.tanh %s : tensor<3x4xf32>
  %e = kiln.mul %t, %s : tensor<3x4xf32>
  %y = kiln.convert %e : tensor<3x4xf32> -> tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}
func.func @d1_convert(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_convert(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}
// SO_CONVERT:      reference: out0 tensor<3x4xf64> matches
// SO_CONVERT-NEXT: reference: out1 tensor<3x4xf64> matches
// SO_CONVERT-NOT:  matches
func.func @d2_convert(%x: tensor<3x4xf64>, %ct: tensor<3x4xf64>, %vx: tensor<3x4xf64>)
    -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %h:2 = kiln.vjp @d1_convert(%x, %ct, %vx) wrt [0, 1] : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %h#0, %h#1 : tensor<3x4xf64>, tensor<3x4xf64>
}

func.func @f_broadcast(%x: tensor<1x4xf64>) -> tensor<2x3x4xf64> {
  %b = kiln.broadcast_in_dim %x, dims = [1, 2] : tensor<1x4xf64> -> tensor<2x3x4xf64>
  %y = kiln.sin %b : tensor<2x3x4xf64>
  return %y : tensor<2x3x4xf64>
}
func.func @d1_broadcast(%x: tensor<1x4xf64>, %ct: tensor<2x3x4xf64>) -> tensor<1x4xf64> {
  %g = kiln.vjp @f_broadcast(%x, %ct) wrt [0] : (tensor<1x4xf64>, tensor<2x3x4xf64>) -> tensor<1x4xf64>
  return %g : tensor<1x4xf64>
}
// SO_BROADCAST:      reference: out0 tensor<1x4xf64> matches
// SO_BROADCAST-NEXT: reference: out1 tensor<2x3x4xf64> matches
// SO_BROADCAST-NOT:  matches
func.func @d2_broadcast(%x: tensor<1x4xf64>, %ct: tensor<2x3x4xf64>, %vx: tensor<1x4xf64>)
    -> (tensor<1x4xf64>, tensor<2x3x4xf64>) {
  %h:2 = kiln.vjp @d1_broadcast(%x, %ct, %vx) wrt [0, 1] : (tensor<1x4xf64>, tensor<2x3x4xf64>, tensor<1x4xf64>) -> (tensor<1x4xf64>, tensor<2x3x4xf64>)
  return %h#0, %h#1 : tensor<1x4xf64>, tensor<2x3x4xf64>
}

func.func @f_reduce_sum(%x: tensor<2x3x4xf64>) -> tensor<3xf64> {
  %s = kiln.sin %x : tensor<2x3x4xf64>
  %r = kiln.reduce_sum %s, dims = [0, 2] : tensor<2x3x4xf64> -> tensor<3xf64>
  %y = kiln.mul %r, %r : tensor<3xf64>
  return %y : tensor<3xf64>
}
func.func @d1_reduce_sum(%x: tensor<2x3x4xf64>, %ct: tensor<3xf64>) -> tensor<2x3x4xf64> {
  %g = kiln.vjp @f_reduce_sum(%x, %ct) wrt [0] : (tensor<2x3x4xf64>, tensor<3xf64>) -> tensor<2x3x4xf64>
  return %g : tensor<2x3x4xf64>
}
// SO_REDUCE_SUM:      reference: out0 tensor<2x3x4xf64> matches
// SO_REDUCE_SUM-NEXT: reference: out1 tensor<3xf64> matches
// SO_REDUCE_SUM-NOT:  matches
func.func @d2_reduce_sum(%x: tensor<2x3x4xf64>, %ct: tensor<3xf64>, %vx: tensor<2x3x4xf64>)
    -> (tensor<2x3x4xf64>, tensor<3xf64>) {
  %h:2 = kiln.vjp @d1_reduce_sum(%x, %ct, %vx) wrt [0, 1] : (tensor<2x3x4xf64>, tensor<3xf64>, tensor<2x3x4xf64>) -> (tensor<2x3x4xf64>, tensor<3xf64>)
  return %h#0, %h#1 : tensor<2x3x4xf64>, tensor<3xf64>
}

func.func @f_reduce_max(%x: tensor<3x4xf64>) -> tensor<3xf64> {
  %s = kiln.sin %x : tensor<3x4xf64>
  %r = kiln.reduce_max %s, dims = [1] : tensor<3x4xf64> -> tensor<3xf64>
  %y = kiln.mul %r, %r : tensor<3xf64>
  return %y : tensor<3xf64>
}
func.func @d1_reduce_max(%x: tensor<3x4xf64>, %ct: tensor<3xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_reduce_max(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<3xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}
// SO_REDUCE_MAX:      reference: out0 tensor<3x4xf64> matches
// SO_REDUCE_MAX-NEXT: reference: out1 tensor<3xf64> matches
// SO_REDUCE_MAX-NOT:  matches
func.func @d2_reduce_max(%x: tensor<3x4xf64>, %ct: tensor<3xf64>, %vx: tensor<3x4xf64>)
    -> (tensor<3x4xf64>, tensor<3xf64>) {
  %h:2 = kiln.vjp @d1_reduce_max(%x, %ct, %vx) wrt [0, 1] : (tensor<3x4xf64>, tensor<3xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3xf64>)
  return %h#0, %h#1 : tensor<3x4xf64>, tensor<3xf64>
}

func.func @f_reshape(%x: tensor<3x4xf64>) -> tensor<2x6xf64> {
  %r = kiln.reshape %x : tensor<3x4xf64> -> tensor<2x6xf64>
  %y = kiln.sin %r : tensor<2x6xf64>
  return %y : tensor<2x6xf64>
}
func.func @d1_reshape(%x: tensor<3x4xf64>, %ct: tensor<2x6xf64>) -> tensor<3x4xf64> {
  %g = kiln.vjp @f_reshape(%x, %ct) wrt [0] : (tensor<3x4xf64>, tensor<2x6xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}
// SO_RESHAPE:      reference: out0 tensor<3x4xf64> matches
// SO_RESHAPE-NEXT: reference: out1 tensor<2x6xf64> matches
// SO_RESHAPE-NOT:  matches
func.func @d2_reshape(%x: tensor<3x4xf64>, %ct: tensor<2x6xf64>, %vx: tensor<3x4xf64>)
    -> (tensor<3x4xf64>, tensor<2x6xf64>) {
  %h:2 = kiln.vjp @d1_reshape(%x, %ct, %vx) wrt [0, 1] : (tensor<3x4xf64>, tensor<2x6xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<2x6xf64>)
  return %h#0, %h#1 : tensor<3x4xf64>, tensor<2x6xf64>
}

func.func @f_transpose(%x: tensor<2x3x4xf64>) -> tensor<4x2x3xf64> {
  %t = kiln.transpose %x, perm = [2, 0, 1] : tensor<2x3x4xf64> -> tensor<4x2x3xf64>
  %y = kiln.sin %t : tensor<4x2x3xf64>
  return %y : tensor<4x2x3xf64>
}
func.func @d1_transpose(%x: tensor<2x3x4xf64>, %ct: tensor<4x2x3xf64>) -> tensor<2x3x4xf64> {
  %g = kiln.vjp @f_transpose(%x, %ct) wrt [0] : (tensor<2x3x4xf64>, tensor<4x2x3xf64>) -> tensor<2x3x4xf64>
  return %g : tensor<2x3x4xf64>
}
// SO_TRANSPOSE:      reference: out0 tensor<2x3x4xf64> matches
// SO_TRANSPOSE-NEXT: reference: out1 tensor<4x2x3xf64> matches
// SO_TRANSPOSE-NOT:  matches
func.func @d2_transpose(%x: tensor<2x3x4xf64>, %ct: tensor<4x2x3xf64>, %vx: tensor<2x3x4xf64>)
    -> (tensor<2x3x4xf64>, tensor<4x2x3xf64>) {
  %h:2 = kiln.vjp @d1_transpose(%x, %ct, %vx) wrt [0, 1] : (tensor<2x3x4xf64>, tensor<4x2x3xf64>, tensor<2x3x4xf64>) -> (tensor<2x3x4xf64>, tensor<4x2x3xf64>)
  return %h#0, %h#1 : tensor<2x3x4xf64>, tensor<4x2x3xf64>
}

func.func @f_slice(%x: tensor<4x5xf64>) -> tensor<2x3xf64> {
  %s = kiln.slice %x, offsets = [1, 2], sizes = [2, 3] : tensor<4x5xf64> -> tensor<2x3xf64>
  %y = kiln.sin %s : tensor<2x3xf64>
  return %y : tensor<2x3xf64>
}
func.func @d1_slice(%x: tensor<4x5xf64>, %ct: tensor<2x3xf64>) -> tensor<4x5xf64> {
  %g = kiln.vjp @f_slice(%x, %ct) wrt [0] : (tensor<4x5xf64>, tensor<2x3xf64>) -> tensor<4x5xf64>
  return %g : tensor<4x5xf64>
}
// SO_SLICE:      reference: out0 tensor<4x5xf64> matches
// SO_SLICE-NEXT: reference: out1 tensor<2x3xf64> matches
// SO_SLICE-NOT:  matches
func.func @d2_slice(%x: tensor<4x5xf64>, %ct: tensor<2x3xf64>, %vx: tensor<4x5xf64>)
    -> (tensor<4x5xf64>, tensor<2x3xf64>) {
  %h:2 = kiln.vjp @d1_slice(%x, %ct, %vx) wrt [0, 1] : (tensor<4x5xf64>, tensor<2x3xf64>, tensor<4x5xf64>) -> (tensor<4x5xf64>, tensor<2x3xf64>)
  return %h#0, %h#1 : tensor<4x5xf64>, tensor<2x3xf64>
}

func.func @f_chunk(%x: tensor<3x8xf64>) -> tensor<3x2xf64> {
  %s0 = kiln.slice %x, offsets = [0, 0], sizes = [3, 2] : tensor<3x8xf64> -> tensor<3x2xf64>
  %s1 = kiln.slice %x, offsets = [0, 2], sizes = [3, 2] : tensor<3x8xf64> -> tensor<3x2xf64>
  %s2 = kiln.slice %x, offsets = [0, 4], sizes = [3, 2] : tensor<3x8xf64> -> tensor<3x2xf64>
  %s3 = kiln.slice %x, offsets = [0, 6], sizes = [3, 2] : tensor<3x8xf64> -> tensor<3x2xf64>
  %p = kiln.mul %s0, %s1 : tensor<3x2xf64>
  %t = kiln.tanh %s2 : tensor<3x2xf64>
  %e = kiln.exp %s3 : tensor<3x2xf64>
  %a = kiln.add %p, %t : tensor<3x2xf64>
  %y = kiln.sub %a, %e : tensor<3x2xf64>
  return %y : tensor<3x2xf64>
}
func.func @d1_chunk(%x: tensor<3x8xf64>, %ct: tensor<3x2xf64>) -> tensor<3x8xf64> {
  %g = kiln.vjp @f_chunk(%x, %ct) wrt [0] : (tensor<3x8xf64>, tensor<3x2xf64>) -> tensor<3x8xf64>
  return %g : tensor<3x8xf64>
}
// SO_CHUNK:      reference: out0 tensor<3x8xf64> matches
// SO_CHUNK-NEXT: reference: out1 tensor<3x2xf64> matches
// SO_CHUNK-NOT:  matches
func.func @d2_chunk(%x: tensor<3x8xf64>, %ct: tensor<3x2xf64>, %vx: tensor<3x8xf64>)
    -> (tensor<3x8xf64>, tensor<3x2xf64>) {
  %h:2 = kiln.vjp @d1_chunk(%x, %ct, %vx) wrt [0, 1] : (tensor<3x8xf64>, tensor<3x2xf64>, tensor<3x8xf64>) -> (tensor<3x8xf64>, tensor<3x2xf64>)
  return %h#0, %h#1 : tensor<3x8xf64>, tensor<3x2xf64>
}

func.func @f_concat(%a: tensor<3x2xf64>, %b: tensor<3x5xf64>) -> tensor<3x7xf64> {
  %k = kiln.concat %a, %b dim = 1 : tensor<3x2xf64>, tensor<3x5xf64> -> tensor<3x7xf64>
  %y = kiln.sin %k : tensor<3x7xf64>
  return %y : tensor<3x7xf64>
}
func.func @d1_concat(%a: tensor<3x2xf64>, %b: tensor<3x5xf64>, %ct: tensor<3x7xf64>) -> (tensor<3x2xf64>, tensor<3x5xf64>) {
  %g:2 = kiln.vjp @f_concat(%a, %b, %ct) wrt [0, 1] : (tensor<3x2xf64>, tensor<3x5xf64>, tensor<3x7xf64>) -> (tensor<3x2xf64>, tensor<3x5xf64>)
  return %g#0, %g#1 : tensor<3x2xf64>, tensor<3x5xf64>
}
// SO_CONCAT:      reference: out0 tensor<3x2xf64> matches
// SO_CONCAT-NEXT: reference: out1 tensor<3x5xf64> matches
// SO_CONCAT-NEXT: reference: out2 tensor<3x7xf64> matches
// SO_CONCAT-NOT:  matches
func.func @d2_concat(%a: tensor<3x2xf64>, %b: tensor<3x5xf64>, %ct: tensor<3x7xf64>, %va: tensor<3x2xf64>, %vb: tensor<3x5xf64>)
    -> (tensor<3x2xf64>, tensor<3x5xf64>, tensor<3x7xf64>) {
  %h:3 = kiln.vjp @d1_concat(%a, %b, %ct, %va, %vb) wrt [0, 1, 2] : (tensor<3x2xf64>, tensor<3x5xf64>, tensor<3x7xf64>, tensor<3x2xf64>, tensor<3x5xf64>) -> (tensor<3x2xf64>, tensor<3x5xf64>, tensor<3x7xf64>)
  return %h#0, %h#1, %h#2 : tensor<3x2xf64>, tensor<3x5xf64>, tensor<3x7xf64>
}

func.func @f_matmul_nn(%a: tensor<3x4xf64>, %b: tensor<4x5xf64>) -> tensor<3x5xf64> {
  %m = kiln.matmul %a, %b : tensor<3x4xf64>, tensor<4x5xf64> -> tensor<3x5xf64>
  %y = kiln.tanh %m : tensor<3x5xf64>
  return %y : tensor<3x5xf64>
}
func.func @d1_matmul_nn(%a: tensor<3x4xf64>, %b: tensor<4x5xf64>, %ct: tensor<3x5xf64>) -> (tensor<3x4xf64>, tensor<4x5xf64>) {
  %g:2 = kiln.vjp @f_matmul_nn(%a, %b, %ct) wrt [0, 1] : (tensor<3x4xf64>, tensor<4x5xf64>, tensor<3x5xf64>) -> (tensor<3x4xf64>, tensor<4x5xf64>)
  return %g#0, %g#1 : tensor<3x4xf64>, tensor<4x5xf64>
}
// SO_MATMUL_NN:      reference: out0 tensor<3x4xf64> matches
// SO_MATMUL_NN-NEXT: reference: out1 tensor<4x5xf64> matches
// SO_MATMUL_NN-NEXT: reference: out2 tensor<3x5xf64> matches
// SO_MATMUL_NN-NOT:  matches
func.func @d2_matmul_nn(%a: tensor<3x4xf64>, %b: tensor<4x5xf64>, %ct: tensor<3x5xf64>, %va: tensor<3x4xf64>, %vb: tensor<4x5xf64>)
    -> (tensor<3x4xf64>, tensor<4x5xf64>, tensor<3x5xf64>) {
  %h:3 = kiln.vjp @d1_matmul_nn(%a, %b, %ct, %va, %vb) wrt [0, 1, 2] : (tensor<3x4xf64>, tensor<4x5xf64>, tensor<3x5xf64>, tensor<3x4xf64>, tensor<4x5xf64>) -> (tensor<3x4xf64>, tensor<4x5xf64>, tensor<3x5xf64>)
  return %h#0, %h#1, %h#2 : tensor<3x4xf64>, tensor<4x5xf64>, tensor<3x5xf64>
}

func.func @f_matmul_tt(%a: tensor<4x3xf64>, %b: tensor<5x4xf64>) -> tensor<3x5xf64> {
  %m = kiln.matmul %a, %b {transpose_a = true, transpose_b = true} : tensor<4x3xf64>, tensor<5x4xf64> -> tensor<3x5xf64>
  %y = kiln.tanh %m : tensor<3x5xf64>
  return %y : tensor<3x5xf64>
}
func.func @d1_matmul_tt(%a: tensor<4x3xf64>, %b: tensor<5x4xf64>, %ct: tensor<3x5xf64>) -> (tensor<4x3xf64>, tensor<5x4xf64>) {
  %g:2 = kiln.vjp @f_matmul_tt(%a, %b, %ct) wrt [0, 1] : (tensor<4x3xf64>, tensor<5x4xf64>, tensor<3x5xf64>) -> (tensor<4x3xf64>, tensor<5x4xf64>)
  return %g#0, %g#1 : tensor<4x3xf64>, tensor<5x4xf64>
}
// SO_MATMUL_TT:      reference: out0 tensor<4x3xf64> matches
// SO_MATMUL_TT-NEXT: reference: out1 tensor<5x4xf64> matches
// SO_MATMUL_TT-NEXT: reference: out2 tensor<3x5xf64> matches
// SO_MATMUL_TT-NOT:  matches
func.func @d2_matmul_tt(%a: tensor<4x3xf64>, %b: tensor<5x4xf64>, %ct: tensor<3x5xf64>, %va: tensor<4x3xf64>, %vb: tensor<5x4xf64>)
    -> (tensor<4x3xf64>, tensor<5x4xf64>, tensor<3x5xf64>) {
  %h:3 = kiln.vjp @d1_matmul_tt(%a, %b, %ct, %va, %vb) wrt [0, 1, 2] : (tensor<4x3xf64>, tensor<5x4xf64>, tensor<3x5xf64>, tensor<4x3xf64>, tensor<5x4xf64>) -> (tensor<4x3xf64>, tensor<5x4xf64>, tensor<3x5xf64>)
  return %h#0, %h#1, %h#2 : tensor<4x3xf64>, tensor<5x4xf64>, tensor<3x5xf64>
}

func.func @f_matmul_batched(%a: tensor<2x3x4xf64>, %b: tensor<2x5x4xf64>) -> tensor<2x3x5xf64> {
  %m = kiln.matmul %a, %b {transpose_b = true} : tensor<2x3x4xf64>, tensor<2x5x4xf64> -> tensor<2x3x5xf64>
  %y = kiln.tanh %m : tensor<2x3x5xf64>
  return %y : tensor<2x3x5xf64>
}
func.func @d1_matmul_batched(%a: tensor<2x3x4xf64>, %b: tensor<2x5x4xf64>, %ct: tensor<2x3x5xf64>) -> (tensor<2x3x4xf64>, tensor<2x5x4xf64>) {
  %g:2 = kiln.vjp @f_matmul_batched(%a, %b, %ct) wrt [0, 1] : (tensor<2x3x4xf64>, tensor<2x5x4xf64>, tensor<2x3x5xf64>) -> (tensor<2x3x4xf64>, tensor<2x5x4xf64>)
  return %g#0, %g#1 : tensor<2x3x4xf64>, tensor<2x5x4xf64>
}
// SO_MATMUL_BATCHED:      reference: out0 tensor<2x3x4xf64> matches
// SO_MATMUL_BATCHED-NEXT: reference: out1 tensor<2x5x4xf64> matches
// SO_MATMUL_BATCHED-NEXT: reference: out2 tensor<2x3x5xf64> matches
// SO_MATMUL_BATCHED-NOT:  matches
func.func @d2_matmul_batched(%a: tensor<2x3x4xf64>, %b: tensor<2x5x4xf64>, %ct: tensor<2x3x5xf64>, %va: tensor<2x3x4xf64>, %vb: tensor<2x5x4xf64>)
    -> (tensor<2x3x4xf64>, tensor<2x5x4xf64>, tensor<2x3x5xf64>) {
  %h:3 = kiln.vjp @d1_matmul_batched(%a, %b, %ct, %va, %vb) wrt [0, 1, 2] : (tensor<2x3x4xf64>, tensor<2x5x4xf64>, tensor<2x3x5xf64>, tensor<2x3x4xf64>, tensor<2x5x4xf64>) -> (tensor<2x3x4xf64>, tensor<2x5x4xf64>, tensor<2x3x5xf64>)
  return %h#0, %h#1, %h#2 : tensor<2x3x4xf64>, tensor<2x5x4xf64>, tensor<2x3x5xf64>
}
