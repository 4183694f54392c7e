// The host program's memory plan (program_memory.c): the temporaries of a
// 4-layer MLP's forward and backward share one arena, placed by liveness.
// --report gives the plan: the arena is at least the most bytes live at
// once and, with buffers that die before others are made, less than their
// sum; the runtime's measured peak over the run is the planned one (the
// inputs, the results and the arena: nothing else is allocated).
//
// RUN: kiln-run %s --random-inputs 7 --report \
// RUN:   | %host_python -c "import json, sys; m = json.loads(sys.stdin.read().splitlines()[-1])['memory']; print('planned', m['planned_buffers'] >= 8, m['unplanned_buffers']); print('bounds', m['live_peak_bytes'] <= m['arena_bytes'] < m['unshared_bytes']); print('measured', m['peak_bytes'] == m['planned_peak_bytes'])" \
// RUN:   | FileCheck %s --check-prefix=PLAN
// PLAN:      planned True 0
// PLAN-NEXT: bounds True
// PLAN-NEXT: measured True
//
// Buffers filled with NaN when they are allocated and freed: every value a
// step reads was written by an earlier step, so the gradients still match.
// RUN: env KILN_POISON_BUFFERS=1 kiln-run %s --random-inputs 7 --check-reference --atol 1e-4 \
// RUN:   | FileCheck %s --check-prefix=POISON
// POISON-COUNT-5: matches
// POISON-NOT: matches

func.func private @mlp(%x: tensor<8x16xf32>, %w1: tensor<16x16xf32>,
                       %w2: tensor<16x16xf32>, %w3: tensor<16x16xf32>,
                       %w4: tensor<16x4xf32>) -> tensor<f32> {
  %h1 = kiln.matmul %x, %w1 : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %a1 = kiln.tanh %h1 : tensor<8x16xf32>
  %h2 = kiln.matmul %a1, %w2 : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %a2 = kiln.tanh %h2 : tensor<8x16xf32>
  %h3 = kiln.matmul %a2, %w3 : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %a3 = kiln.tanh %h3 : tensor<8x16xf32>
  %h4 = kiln.matmul %a3, %w4 : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %sq = kiln.mul %h4, %h4 : tensor<8x4xf32>
  %loss = kiln.reduce_sum %sq, dims = [0, 1] : tensor<8x4xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @main(%x: tensor<8x16xf32>, %w1: tensor<16x16xf32>,
                %w2: tensor<16x16xf32>, %w3: tensor<16x16xf32>,
                %w4: tensor<16x4xf32>)
    -> (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>,
        tensor<16x4xf32>, tensor<f32>) {
  %ct = kiln.constant dense<1.0> : tensor<f32>
  %g:4 = kiln.vjp @mlp(%x, %w1, %w2, %w3, %w4, %ct) wrt [1, 2, 3, 4]
      : (tensor<8x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>,
         tensor<16x16xf32>, tensor<16x4xf32>, tensor<f32>)
      -> (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>,
          tensor<16x4xf32>)
  %loss = func.call @mlp(%x, %w1, %w2, %w3, %w4)
      : (tensor<8x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>,
         tensor<16x16xf32>, tensor<16x4xf32>) -> tensor<f32>
  return %g#0, %g#1, %g#2, %g#3, %loss
      : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>,
        tensor<16x4xf32>, tensor<f32>
}
