"""transformers wav2vec2 Wav2Vec2Encoder(.StableLayerNorm).forward lines 692/740:
`if not skip_the_layer or synced_gpus` where skip_the_layer is a tensor in training (LayerDrop)."""
import torch
from transformers import Wav2Vec2Config
from transformers.models.wav2vec2 import modeling_wav2vec2 as w
from _common import sweep

path = w.__file__
cfg = Wav2Vec2Config(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
                     layerdrop=0.1, hidden_dropout=0.0, attention_dropout=0.0, activation_dropout=0.0,
                     attn_implementation="eager")
for cls in (w.Wav2Vec2Encoder, w.Wav2Vec2EncoderStableLayerNorm):
    enc = cls(cfg).train()
    sweep(enc, lambda n: ((torch.randn(2, n, 64),), {}), [20, 30, 40], path, label=f"{cls.__name__} training, T varies")
    enc.eval()
    sweep(enc, lambda n: ((torch.randn(2, n, 64),), {}), [20, 30, 40], path, label=f"{cls.__name__} eval")
