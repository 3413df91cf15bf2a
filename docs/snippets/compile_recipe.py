import torch

model = torch.nn.Linear(4, 4)
compiled = torch.compile(model, dynamic=True, mode='max-autotune', fullgraph=False,
                         options={'triton.cudagraphs': True, 'trace.enabled': True})
other = torch.compile(model, options={'target': 'cuda'}, optimize_cache=True, cache_size=64)
print(torch.compiled_cache_info())
torch.clear_compiled_cache()
