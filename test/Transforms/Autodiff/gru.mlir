// A GRU cell with fused gate weights: vjp w.r.t. h alone holds 3 matmuls
// (the two forward ones and dgh @ Wh), w.r.t. every argument 6.
// RUN: kiln-opt %s -kiln-autodiff -canonicalize -cse | FileCheck %s

func.func private @gru(%x: tensor<4x8xf32>, %h: tensor<4x16xf32>, %wi: tensor<48x8xf32>, %wh: tensor<48x16xf32>) -> tensor<4x16xf32> {
  %gi = kiln.matmul %x, %wi {transpose_b = true} : tensor<4x8xf32>, tensor<48x8xf32> -> tensor<4x48xf32>
  %gh = kiln.matmul %h, %wh {transpose_b = true} : tensor<4x16xf32>, tensor<48x16xf32> -> tensor<4x48xf32>
  %ir = kiln.slice %gi, offsets = [0, 0], sizes = [4, 16] : tensor<4x48xf32> -> tensor<4x16xf32>
  %iz = kiln.slice %gi, offsets = [0, 16], sizes = [4, 16] : tensor<4x48xf32> -> tensor<4x16xf32>
  %in = kiln.slice %gi, offsets = [0, 32], sizes = [4, 16] : tensor<4x48xf32> -> tensor<4x16xf32>
  %hr = kiln.slice %gh, offsets = [0, 0], sizes = [4, 16] : tensor<4x48xf32> -> tensor<4x16xf32>
  %hz = kiln.slice %gh, offsets = [0, 16], sizes = [4, 16] : tensor<4x48xf32> -> tensor<4x16xf32>
  %hn = kiln.slice %gh, offsets = [0, 32], sizes = [4, 16] : tensor<4x48xf32> -> tensor<4x16xf32>
  %ar = kiln.add %ir, %hr : tensor<4x16xf32>
  %r = kiln.sigmoid %ar : tensor<4x16xf32>
  %az = kiln.add %iz, %hz : tensor<4x16xf32>
  %z = kiln.sigmoid %az : tensor<4x16xf32>
  %rn = kiln.mul %r, %hn : tensor<4x16xf32>
  %an = kiln.add %in, %rn : tensor<4x16xf32>
  %n = kiln.tanh %an : tensor<4x16xf32>
  %d = kiln.sub %h, %n : tensor<4x16xf32>
  %zd = kiln.mul %z, %d : tensor<4x16xf32>
  %h2 = kiln.add %n, %zd : tensor<4x16xf32>
  return %h2 : tensor<4x16xf32>
}

// CHECK-LABEL: func @grad_h
// CHECK-COUNT-3: kiln.matmul
// CHECK-NOT: kiln.matmul
// The adjoint of the chunked gh is one concat of the three gate adjoints.
// CHECK-NOT: kiln.transpose
// CHECK: return
func.func @grad_h(%x: tensor<4x8xf32>, %h: tensor<4x16xf32>, %wi: tensor<48x8xf32>, %wh: tensor<48x16xf32>, %ct: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %g = kiln.vjp @gru(%x, %h, %wi, %wh, %ct) wrt [1] : (tensor<4x8xf32>, tensor<4x16xf32>, tensor<48x8xf32>, tensor<48x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  return %g : tensor<4x16xf32>
}

// CHECK-LABEL: func @grad_all
// CHECK-COUNT-6: kiln.matmul
// CHECK-NOT: kiln.matmul
// CHECK: return
func.func @grad_all(%x: tensor<4x8xf32>, %h: tensor<4x16xf32>, %wi: tensor<48x8xf32>, %wh: tensor<48x16xf32>, %ct: tensor<4x16xf32>) -> (tensor<4x8xf32>, tensor<4x16xf32>, tensor<48x8xf32>, tensor<48x16xf32>) {
  %g:4 = kiln.vjp @gru(%x, %h, %wi, %wh, %ct) wrt [0, 1, 2, 3] : (tensor<4x8xf32>, tensor<4x16xf32>, tensor<48x8xf32>, tensor<48x16xf32>, tensor<4x16xf32>) -> (tensor<4x8xf32>, tensor<4x16xf32>, tensor<48x8xf32>, tensor<48x16xf32>)
  return %g#0, %g#1, %g#2, %g#3 : tensor<4x8xf32>, tensor<4x16xf32>, tensor<48x8xf32>, tensor<48x16xf32>
}

// The gate adjoints of the chunked gh join into one concat along dim 1,
// with no zero padding and no kiln.add of padded parts.
// CHECK-LABEL: func @chunk_adjoint
// CHECK: %[[D:.+]] = kiln.concat %{{.*}}, %{{.*}}, %{{.*}} dim = 1 : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32> -> tensor<4x48xf32>
// CHECK: kiln.matmul %[[D]], %{{.*}} : tensor<4x48xf32>, tensor<48x16xf32> -> tensor<4x16xf32>
func.func @chunk_adjoint(%x: tensor<4x8xf32>, %h: tensor<4x16xf32>, %wi: tensor<48x8xf32>, %wh: tensor<48x16xf32>, %ct: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %g = kiln.vjp @gru(%x, %h, %wi, %wh, %ct) wrt [1] : (tensor<4x8xf32>, tensor<4x16xf32>, tensor<48x8xf32>, tensor<48x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  return %g : tensor<4x16xf32>
}
