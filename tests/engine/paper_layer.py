"""A transformer layer written to Korthikanti et al.'s assumptions (2022, §4.1), to measure their count.

Sequence-first, [s, b, h], 16-bit throughout (bf16 here), with dropout after
the attention scores, after the attention's output projection and after the
MLP, and an exact GeLU on a 4h-wide MLP. Q, K and V are three projections of
the first layer norm's output, so that the layer norm's output is the one
input they all save. Every tensor autograd keeps is one §4.1 names: the two
layer norms' inputs (4sbh), Q and K (4sbh), V (2sbh), the softmax output
(2as²b), its dropout mask (as²b) and output (2as²b), the projection's input
(2sbh) and its dropout mask (sbh), the MLP's input (2sbh), GeLU's input and
output (16sbh) and the last dropout mask (sbh): 34sbh + 5as²b, plus what §4.1
does not count, each layer norm's fp32 mean and inverse deviation per token.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

DROPOUT = 0.1


class PaperLayer(nn.Module):
    def __init__(self, hidden: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(hidden)
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.value = nn.Linear(hidden, hidden)
        self.projection = nn.Linear(hidden, hidden)
        self.norm2 = nn.LayerNorm(hidden)
        self.up = nn.Linear(hidden, 4 * hidden)
        self.down = nn.Linear(4 * hidden, hidden)

    def _heads(self, x: torch.Tensor) -> torch.Tensor:
        s, b, h = x.shape
        return x.view(s, b * self.heads, h // self.heads).transpose(0, 1)  # [b·a, s, d]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        s, b, h = x.shape
        normed = self.norm1(x)
        q, k, v = (self._heads(f(normed)) for f in (self.query, self.key, self.value))
        scores = torch.bmm(q, k.transpose(1, 2)) / (h // self.heads) ** 0.5
        weights = F.dropout(F.softmax(scores, dim=-1), DROPOUT, self.training)
        context = torch.bmm(weights, v).transpose(0, 1).reshape(s, b, h)
        x = x + F.dropout(self.projection(context), DROPOUT, self.training)
        hidden = self.up(self.norm2(x))
        return x + F.dropout(self.down(F.gelu(hidden)), DROPOUT, self.training)
