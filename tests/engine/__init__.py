"""The engine tier: the course's figure kinds measured by running the software readers run.

`make engine` runs it in `.venv-engine` (requirements-engine.txt), on the CPU:
parameter counts (test_parameters), bytes by role per recipe (test_recipes),
per-rank bytes and per-step traffic of DDP, ZeroRedundancyOptimizer, FSDP2 and
DeepSpeed's ZeRO stages at 1, 2, 4 and 8 ranks over gloo (test_data_parallel),
Megatron-LM's tensor parallelism under PyTorch's DTensor at 2, 4 and 8 ranks,
its collectives per layer with and without sequence parallelism
(test_tensor_parallel), the bytes autograd saves per layer (test_activations),
FLOPs (test_flops), Mixtral's total, experts' and active parameters
(test_experts), expert parallelism's all-to-alls at 2, 4 and 8 ranks
(test_expert_parallel) and ring attention's key/value blocks at 2, 4 and 16
ranks (test_context_parallel). Each measurement is a per-parameter or per-element ratio on small
shapes, compared with the course's function in `macros.model` and scaled to the
course's shapes by that function's formula, or, for the all-to-all and ring
bytes of Lessons 13 and 14, bytes at the figure's own shape; each is written to
`catalog/measured.yml` (records.py).

What it cannot measure here, and so does not claim:
- NCCL and its algorithms (rings across NVLink, trees, NVLS), CUDA streams and the
  overlap of communication with compute: gloo on loopback counts what each engine
  asks its collectives to move, not what a wire carries or how long it takes;
- CUDA kernels: flash attention and memory-efficient attention (the tier measures
  eager attention and the CPU's scaled-dot-product kernels), fused optimizers,
  cuBLAS workspaces, the caching allocator's fragmentation; dropout is measured
  through `native_dropout`, the fused op CUDA uses, since the CPU's F.dropout keeps
  a 2-byte mask where CUDA keeps a 1-byte one, and the CPU's layer norm keeps its
  statistics in bf16 where CUDA's keep fp32;
- two or more hosts, and hybrid sharding's cross-host traffic;
- DeepSpeed's compiled ops (CPU Adam, the shared-memory all-reduce): it runs on
  its CPU accelerator with torch's Adam and builds no op.
"""
