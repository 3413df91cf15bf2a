"""GPT-2 causal LM forward (learned positions, fused QKV), prompt length varies, batch 1.
Written after the session's changes, to accept them on a model zlint was not tuned on."""
import torch
from transformers import GPT2Config, GPT2LMHeadModel

NAME = "gpt2_lm"
SIZES = [4, 7, 1, 2, 12, 3]
DYNAMIC = {"input_ids": [1], "attention_mask": [1]}


def build():
    cfg = GPT2Config(vocab_size=300, n_positions=64, n_embd=32, n_layer=2, n_head=4, use_cache=False)
    return GPT2LMHeadModel(cfg).eval()


def inputs(n):
    return dict(input_ids=torch.randint(0, 300, (1, n)), attention_mask=torch.ones(1, n, dtype=torch.long))
