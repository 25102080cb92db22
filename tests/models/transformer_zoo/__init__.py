"""Realistic transformer ONNX models for wnn's tests: the layouts real exporters emit.

Three families, each written with onnx.helper and numpy (no exporter is run):
- genai: decoders as onnxruntime-genai's model builder writes them for CPU (GroupQueryAttention
  with rotary inside, or RotaryEmbedding + MultiHeadAttention; SimplifiedLayerNormalization;
  MatMulNBits as ORT's MatMulNBitsQuantizer leaves them; external data in NAME.onnx.data).
- optimum: fp32 decoders with a KV cache from standard ONNX ops (torch.onnx.export's idiom).
- encoder: transformers.js BERT encoders, fp32 and as ORT's quantize_dynamic leaves them.

catalog.py lists the variants; make_transformers.py is the command line.
"""
