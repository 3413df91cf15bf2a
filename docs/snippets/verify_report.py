import torch

from zlint.verify import check


def pool_branchy(likes: torch.Tensor) -> torch.Tensor:
    if likes.size(0) == 1:  # line 7: a fast path for a single like
        return likes[0]
    return likes.mean(0).nan_to_num(0.0)


report = check(pool_branchy, lambda n: (torch.randn(n, 8),), sizes=range(9), backend="eager")
print(report.summary())
for evidence in report.at(7):
    print(evidence.describe())
