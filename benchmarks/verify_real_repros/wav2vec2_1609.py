"""transformers Wav2Vec2ForCTC.forward line 1609 (`labels.max() >= vocab_size`: ZL303) with long
labels as the docstring says, raw audio of 16 kHz; and whether the breaks zlint reports at 1593
(the decorated def) and 1630 come with real inputs too."""
import torch
from transformers import Wav2Vec2Config
from transformers.models.wav2vec2 import modeling_wav2vec2 as w
from _common import sweep

path = w.__file__
cfg = Wav2Vec2Config(hidden_size=64, num_hidden_layers=1, num_attention_heads=4, intermediate_size=128,
                     conv_dim=(32,) * 7, vocab_size=32, attn_implementation="eager")
m = w.Wav2Vec2ForCTC(cfg).eval()
sweep(m, lambda n: ((torch.randn(n, 16000),), {"labels": torch.randint(1, 32, (n, 12))}), [2, 3, 4], path,
      label="labels given (long)")
sweep(m, lambda n: ((torch.randn(n, 16000),), {}), [2, 3, 4], path, label="no labels")
