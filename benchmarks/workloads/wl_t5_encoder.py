"""T5 encoder (relative position buckets), sequence length varies, batch 2.
Written after the session's changes, to accept them on a model zlint was not tuned on."""
import torch
from transformers import T5Config, T5EncoderModel

NAME = "t5_encoder"
SIZES = [5, 9, 1, 2, 16, 3]
DYNAMIC = {"input_ids": [1], "attention_mask": [1]}


def build():
    cfg = T5Config(vocab_size=300, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4,
                   relative_attention_num_buckets=8, relative_attention_max_distance=16, use_cache=False)
    return T5EncoderModel(cfg).eval()


def inputs(n):
    return dict(input_ids=torch.randint(0, 300, (2, n)), attention_mask=torch.ones(2, n, dtype=torch.long))
