"""transformers BART sequence classification as used for zero-shot classification (NLI style,
bart-large-mnli-like): one premise of n tokens paired with 3 candidate-label hypotheses
("<s> premise </s></s> hypothesis </s>", 5 hypothesis tokens), so batch 3 and sequence length
n + 9 vary with the premise (a one-word message to a paragraph); encoder-decoder with the decoder
input shifted from the input, eos-pooled head.
Written after the session's changes, to accept them on a model zlint was not tuned on."""
import torch
from transformers import BartConfig, BartForSequenceClassification

NAME = "bart_zeroshot"
SIZES = [12, 30, 1, 2, 48, 5]
DYNAMIC = {"input_ids": [1], "attention_mask": [1]}


def build():
    torch.manual_seed(0)
    cfg = BartConfig(vocab_size=300, d_model=32, encoder_layers=2, decoder_layers=2,
                     encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=64,
                     decoder_ffn_dim=64, max_position_embeddings=128, num_labels=3, use_cache=False)
    return BartForSequenceClassification(cfg).eval()


def inputs(n):
    premise = torch.randint(4, 300, (n,))
    rows = [torch.cat([torch.tensor([0]), premise, torch.tensor([2, 2]), torch.randint(4, 300, (5,)),
                       torch.tensor([2])]) for _ in range(3)]
    ids = torch.stack(rows)
    return dict(input_ids=ids, attention_mask=torch.ones_like(ids))


def select(out):
    return out.logits
