"""Lesson 04's widget: build a mask by hand and watch the softmax weights follow it
(``MaskBuilder``).

Shape legend: T queries (Lq), S keys (Lk).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import ipywidgets as widgets
import torch

from course_lib.labels import N_, tr
from course_lib.viz_figures import _png, plot_attention


class MaskBuilder(widgets.VBox):
    """Click cells to allow or block query -> key pairs and watch the attention weights change.

    ``weights = softmax(masked_scores(scores, mask))``, both from the learner's code; the grid of
    toggles is the mask (True = may attend, a lit button). Presets build the usual masks, and
    "MultiheadAttention polarity" feeds the *inverted* mask, to show what passing a mask of the
    wrong convention does.
    """

    def __init__(
        self,
        scores: torch.Tensor,
        tokens: Sequence[str],
        masked_scores: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
        softmax: Callable[..., torch.Tensor] | None = None,
    ):
        scores = scores.detach()
        if scores.ndim != 2 or scores.shape[0] != scores.shape[1] or scores.shape[0] != len(tokens):
            raise ValueError(
                f"MaskBuilder wants square (L, L) scores for L = {len(tokens)} tokens, "
                f"got {tuple(scores.shape)}"
            )
        self.scores = scores  # (L, L)
        self.tokens = list(tokens)
        self.masked_scores = masked_scores
        self.softmax = softmax or (lambda x, dim=-1: torch.softmax(x, dim=dim))
        n = len(self.tokens)
        self.cells = [
            [
                widgets.ToggleButton(
                    value=True,
                    description="",
                    tooltip=f"{self.tokens[i]} -> {self.tokens[j]}",
                    layout=widgets.Layout(width="28px", height="24px"),
                )
                for j in range(n)
            ]
            for i in range(n)
        ]
        for row in self.cells:
            for button in row:
                button.observe(self._on_toggle, names="value")
        grid = widgets.GridBox(
            [b for row in self.cells for b in row],
            layout=widgets.Layout(grid_template_columns=f"repeat({n}, 30px)", grid_gap="2px"),
        )
        self.preset = widgets.ToggleButtons(
            options=[(tr(name), name) for name in (N_("all"), N_("causal"), N_("padding"))],
            value="all",
            description=tr("preset"),
        )
        self.length = widgets.IntSlider(
            value=max(n - 2, 1), min=1, max=n, description=tr("real tokens")
        )
        self.inverted = widgets.Checkbox(value=False, description=tr("MultiheadAttention polarity"))
        self.message = widgets.HTML()
        self.image = widgets.Image(format="png")
        self.preset.observe(self._on_preset, names="value")
        self.length.observe(self._on_preset, names="value")
        self.inverted.observe(self.update, names="value")
        self._quiet = False
        controls = widgets.VBox(
            [
                self.preset,
                self.length,
                self.inverted,
                widgets.HTML(tr("<b>mask</b> (rows: queries)")),
                grid,
            ]
        )
        super().__init__([widgets.HBox([controls, self.image]), self.message])
        self.update()

    @property
    def mask(self) -> torch.Tensor:
        """The mask the grid shows: bool ``(L, L)``, True = may attend."""
        return torch.tensor([[b.value for b in row] for row in self.cells], dtype=torch.bool)

    def set_mask(self, mask: torch.Tensor) -> None:
        """Set every toggle from a bool mask broadcastable to ``(L, L)``, then redraw once."""
        mask = torch.as_tensor(mask, dtype=torch.bool).expand(len(self.tokens), len(self.tokens))
        self._quiet = True
        try:
            for i, row in enumerate(self.cells):
                for j, button in enumerate(row):
                    button.value = bool(mask[i, j])
        finally:
            self._quiet = False
        self.update()

    def _on_toggle(self, change=None) -> None:
        if not self._quiet:
            self.update()

    def _on_preset(self, change=None) -> None:
        n = len(self.tokens)
        if self.preset.value == "all":
            self.set_mask(torch.ones(n, n, dtype=torch.bool))
        elif self.preset.value == "causal":
            self.set_mask(torch.ones(n, n, dtype=torch.bool).tril())
        else:  # padding: every query may look at the first `length` keys only
            keys = torch.arange(n) < self.length.value  # (S,)
            self.set_mask(keys[None, :].expand(n, n))

    def update(self, change=None) -> None:
        mask = self.mask  # (L, L)
        fed = ~mask if self.inverted.value else mask
        self.weights = self.softmax(self.masked_scores(self.scores, fed), dim=-1)  # (L, L)
        w = self.weights.detach().float()
        notes = []
        if bool(torch.isnan(w).any()):
            notes.append(tr("NaN in the weights: a fully masked row divided 0 by 0"))
        empty = (~fed).all(dim=-1)  # (L,)
        if bool(empty.any()):
            names = ", ".join(self.tokens[i] for i in range(len(self.tokens)) if empty[i])
            notes.append(
                tr("fully masked query rows ({names}) should come out all zero", names=names)
            )
        if self.inverted.value:
            notes.append(
                tr(
                    "inverted: each query may attend only where you meant to block it, and one "
                    "you blocked from nothing is now blocked from everything"
                )
            )
        self.message.value = "<br>".join(notes)
        self.figure = plot_attention(
            w, self.tokens, self.tokens, mask=fed, title="softmax(masked_scores(scores, mask))"
        )
        self.image.value = _png(self.figure)
