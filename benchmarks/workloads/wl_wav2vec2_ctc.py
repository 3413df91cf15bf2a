"""transformers Wav2Vec2 CTC speech recognizer (conv feature encoder, grouped positional conv,
transformer encoder, CTC head) on streamed audio chunks of varying length, batch 1: n output
frames (20 ms each at 16 kHz) = 320*n + 80 samples, from a one-frame blip to 2 s of speech.
Written after the session's changes, to accept them on a model zlint was not tuned on."""
import torch
from transformers import Wav2Vec2Config, Wav2Vec2ForCTC

NAME = "wav2vec2_ctc"
SIZES = [25, 50, 1, 2, 100, 7]
DYNAMIC = {"input_values": [1]}


def build():
    torch.manual_seed(0)
    cfg = Wav2Vec2Config(vocab_size=32, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                         intermediate_size=64, conv_dim=(16,) * 7, num_conv_pos_embeddings=16,
                         num_conv_pos_embedding_groups=4)
    return Wav2Vec2ForCTC(cfg).eval()


def inputs(n):
    return dict(input_values=torch.randn(1, 320 * n + 80))


def select(out):
    return out.logits
