"""transformers Wav2Vec2Model.forward: runtime-only findings zlint reports at 421 (ZL802 under
mark_unbacked: the feature encoder's conv loop) and 1270 (the decorated def: ZL801 under
backed_size_oblivious, ZL802 under mark_unbacked), batch varying."""
import torch
from transformers import Wav2Vec2Config
from transformers.models.wav2vec2 import modeling_wav2vec2 as w
from _common import sweep

path = w.__file__
cfg = Wav2Vec2Config(hidden_size=64, num_hidden_layers=1, num_attention_heads=4, intermediate_size=128,
                     conv_dim=(32,) * 7, attn_implementation="eager")
m = w.Wav2Vec2Model(cfg).eval()
make = lambda n: ((torch.randn(n, 16000),), {})  # noqa: E731
sweep(m, make, [2, 3, 5, 1], path, label="default")
sweep(m, make, [2, 3, 5, 1], path, mode="mark_unbacked", dims={0: [0]}, label="mark_unbacked")
sweep(m, make, [2, 3, 5, 1], path, mode="backed_size_oblivious", dims={0: [0]}, label="backed_size_oblivious")
