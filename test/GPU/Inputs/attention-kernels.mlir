// Attention at GPT-2's head dim (64), forward and backward, with an additive
// mask: ptxas.test assembles the kernels of -kiln-attention-to-gpu.
func.func @attn(%q: tensor<4x130x64xf32>, %k: tensor<4x130x64xf32>, %v: tensor<4x130x64xf32>, %mask: tensor<1x130x130xf32>) -> tensor<4x130x64xf32> {
  %o, %m, %l = kiln.attention %q, %k, %v score(%mask : tensor<1x130x130xf32>) steps [2, 0, -1] : tensor<4x130x64xf32>, tensor<4x130x64xf32>, tensor<4x130x64xf32> -> tensor<4x130x64xf32>, tensor<4x130xf32>, tensor<4x130xf32>
  return %o : tensor<4x130x64xf32>
}
func.func @attn_grad(%q: tensor<4x130x64xf32>, %k: tensor<4x130x64xf32>, %v: tensor<4x130x64xf32>, %mask: tensor<1x130x130xf32>, %do: tensor<4x130x64xf32>) -> (tensor<4x130x64xf32>, tensor<4x130x64xf32>, tensor<4x130x64xf32>) {
  %o, %m, %l = kiln.attention %q, %k, %v score(%mask : tensor<1x130x130xf32>) steps [2, 0, -1] : tensor<4x130x64xf32>, tensor<4x130x64xf32>, tensor<4x130x64xf32> -> tensor<4x130x64xf32>, tensor<4x130xf32>, tensor<4x130xf32>
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %o, %m, %l, %do score(%mask : tensor<1x130x130xf32>) steps [2, 0, -1] : tensor<4x130x64xf32>, tensor<4x130x64xf32>, tensor<4x130x64xf32>, tensor<4x130x64xf32>, tensor<4x130xf32>, tensor<4x130xf32>, tensor<4x130x64xf32> -> tensor<4x130x64xf32>, tensor<4x130x64xf32>, tensor<4x130x64xf32>
  return %dq, %dk, %dv : tensor<4x130x64xf32>, tensor<4x130x64xf32>, tensor<4x130x64xf32>
}
