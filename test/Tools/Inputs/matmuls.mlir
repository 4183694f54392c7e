// Two products (blas-load-fails.test): a batched f32 product with a
// transposed operand and an f64 one, both BLAS calls when a BLAS loads.
func.func @main(%a: tensor<2x64x32xf32>, %b: tensor<2x48x32xf32>, %c: tensor<32x16xf64>, %d: tensor<16x48xf64>) -> (tensor<2x64x48xf32>, tensor<32x48xf64>) {
  %ab = "kiln.matmul"(%a, %b) <{transpose_b = true}> : (tensor<2x64x32xf32>, tensor<2x48x32xf32>) -> tensor<2x64x48xf32>
  %cd = "kiln.matmul"(%c, %d) : (tensor<32x16xf64>, tensor<16x48xf64>) -> tensor<32x48xf64>
  return %ab, %cd : tensor<2x64x48xf32>, tensor<32x48xf64>
}
